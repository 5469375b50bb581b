from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import pytest
from fastapi import FastAPI

from comptoir.app import create_app
from comptoir.config import Settings
from comptoir.db.engine import Database
from comptoir.models import Account, Location
from tests.factories import World
from tests.response_schemas import CheckedASGITransport

LOCATION_SCOPE = "location[orders.write,catalog.write,customer_list.write,inventory.write],profile_with_email"
ACCOUNT_SCOPE = "account[orders.write,all_catalogs.write,all_customer_lists.write,inventory.write],profile_with_email"


_shared: list[FastAPI] = []


@pytest.fixture
async def app(settings: Settings, database: Database) -> AsyncIterator[FastAPI]:
    """The app of this test's settings and database. One FastAPI object serves every test of
    a process, given each test's state: the first request to a new FastAPI object prepares
    its ~200 routes (0.6 s), which per test was most of the suite's time. Everything a
    request reads of the test's settings and database lives in `app.state.comptoir`."""
    fresh = create_app(settings, database=database, background=False)
    if not _shared:
        _shared.append(fresh)
    app = _shared[0]
    app.state.comptoir = fresh.state.comptoir
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
async def shop(world: World) -> Shop:
    return await new_shop(world)


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
