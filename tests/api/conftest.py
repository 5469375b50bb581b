from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import Table, func, insert, select

from comptoir.app import create_app
from comptoir.config import Settings
from comptoir.db.engine import Database
from comptoir.kit import clock
from comptoir.models import Account, Base, Location, OAuthClient, User
from tests import apps
from tests.factories import World
from tests.response_schemas import CheckedASGITransport

LOCATION_SCOPE = "location[orders.write,catalog.write,customer_list.write,inventory.write],profile_with_email"
ACCOUNT_SCOPE = "account[orders.write,all_catalogs.write,all_customer_lists.write,inventory.write],profile_with_email"


@pytest.fixture
async def app(settings: Settings, database: Database) -> AsyncIterator[FastAPI]:
    """The app of this test's settings and database, served by the process's one FastAPI
    object of its routes (tests/apps.py)."""
    app = apps.shared(create_app(settings, database=database, background=False))
    yield app
    await app.state.comptoir.fast.close()


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """The app in process; every JSON answer is checked against its documented schema
    (tests/response_schemas.py)."""
    transport = CheckedASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


@pytest.fixture
def world(database: Database, settings: Settings) -> World:
    return World(database, settings.server_key())


@dataclass
class Shop:
    """An account with two locations, and a location token and an account token."""

    account: Account
    location: Location
    other_location: Location
    location_token: str
    account_token: str

    def headers(self, token: str | None = None) -> dict[str, str]:
        return {"X-Access-Token": token or self.location_token}


@pytest.fixture
async def shop(world: World, db_kind: str) -> Shop:
    """The shop of most tests. Made through the services once per process and database kind,
    then written again as the rows it left (`ShopImage`): the services' way took most of a
    test's set-up. Made afresh when time was moved before it (its rows would carry another
    time) or when the test made rows of its own before it (their ids could meet)."""
    image = _images.get((db_kind, world.key))  # a token's row depends on the server key
    if image is not None and not clock.moved() and await ShopImage.empty(world):
        return await image.restore(world)
    fits_an_image = image is None and not clock.moved() and await ShopImage.empty(world, wholly=True)
    made = await new_shop(world)
    if fits_an_image:
        _images[db_kind, world.key] = await ShopImage.capture(world, made)
    return made


# Tables the image leaves out: the installation's own rows, which every test database keeps
# (its id key) or makes when its app starts (the data key's wrap), and the request log.
_NOT_THE_SHOPS = {"installation", "server_key_wraps", "request_logs"}
_images: dict[tuple[str, bytes], ShopImage] = {}


@dataclass
class ShopImage:
    """Every row a shop made, by table (parents first), with its tokens."""

    rows: list[tuple[Table, list[dict[str, Any]]]]
    account_id: int
    location_ids: tuple[int, int]
    location_token: str
    account_token: str

    @staticmethod
    async def empty(world: World, *, wholly: bool = False) -> bool:
        """Whether the test made no rows of its own yet: no user, account or application (a
        shop's rows could not meet rows made without one); `wholly`: no row in any table
        the image holds (the image is taken of a shop alone)."""
        tables = [t for t in Base.metadata.sorted_tables if t.name not in _NOT_THE_SHOPS] if wholly else None
        async with world.db.transaction(write=False) as session:
            for table in tables or (User.__table__, Account.__table__, OAuthClient.__table__):
                if await session.scalar(select(func.count()).select_from(table)):
                    return False
        return True

    @classmethod
    async def capture(cls, world: World, shop: Shop) -> ShopImage:
        rows = []
        async with world.db.transaction(write=False) as session:
            for table in Base.metadata.sorted_tables:
                if table.name not in _NOT_THE_SHOPS:
                    found = [dict(row._mapping) for row in await session.execute(select(table))]
                    if found:
                        rows.append((table, found))
        ids = (shop.location.id, shop.other_location.id)
        return cls(rows, shop.account.id, ids, shop.location_token, shop.account_token)

    async def restore(self, world: World) -> Shop:
        async with world.db.transaction() as session:
            connection = await session.connection()  # the rows as they were: no ORM on the way
            for table, found in self.rows:
                await connection.execute(insert(table), found)
            account = await session.get(Account, self.account_id)
            location = await session.get(Location, self.location_ids[0])
            other = await session.get(Location, self.location_ids[1])
        await world.settle()
        assert account is not None
        assert location is not None
        assert other is not None
        return Shop(account, location, other, self.location_token, self.account_token)


async def new_shop(world: World) -> Shop:
    async with world.together():  # one transaction: the fixture of most tests
        owner = await world.user(email="owner@example.com", first_name="Ada", last_name="Lovelace")
        account = await world.account(owner=owner, name="Chez Ada", currency="EUR")
        location = await world.location(account, name="Chez Ada Paris", city="Paris")
        other = await world.location(account, name="Chez Ada Lyon", city="Lyon")
        catalog = await world.catalog(location=location)
        customer_list = await world.customer_list(location=location)
        location_token = await world.token(
            LOCATION_SCOPE, location=location, catalog=catalog, customer_list=customer_list
        )
        account_token = await world.token(ACCOUNT_SCOPE, account=account)
    await world.settle()  # the catalog's and the list's creates are the shop's, not the test's
    return Shop(account, location, other, location_token, account_token)
