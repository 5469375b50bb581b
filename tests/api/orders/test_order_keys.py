"""Migration 0018: an order refers to its location with its account, and to its connection
with its client, by two paired foreign keys, on both databases."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sqlalchemy import delete, func, inspect, select, update
from sqlalchemy.exc import IntegrityError

from comptoir.db.engine import Database
from comptoir.models import Connection, OAuthClient, Order
from tests.api.conftest import Shop
from tests.api.orders.conftest import order
from tests.factories import World
from tests.storage.migrating import migrate


async def _foreign_keys(database: Database) -> list[tuple[tuple[str, ...], str, tuple[str, ...], Any]]:
    async with database.engine.connect() as connection:
        keys = await connection.run_sync(lambda sync: inspect(sync).get_foreign_keys("orders"))
    return sorted(
        (
            tuple(fk["constrained_columns"]),
            fk["referred_table"],
            tuple(fk["referred_columns"]),
            fk["options"].get("ondelete"),
        )
        for fk in keys
    )


async def _created(client: httpx.AsyncClient, shop: Shop, token: str | None = None) -> dict[str, Any]:
    created = await client.post("/v1/location/orders", json=order(), headers=shop.headers(token))
    assert created.status_code == 200, created.text
    return created.json()


async def _row(world: World) -> Order:
    async with world.db.transaction(write=False) as session:
        return (await session.scalars(select(Order))).one()


async def test_orders_have_paired_foreign_keys(database: Database) -> None:
    assert await _foreign_keys(database) == [
        (("connection_id", "client_id"), "connections", ("id", "client_id"), "SET NULL"),
        (("customer_id",), "customers", ("id",), "SET NULL"),
        (("location_id", "account_id"), "locations", ("id", "account_id"), None),
    ]


async def test_migration_0018_goes_down_and_up_again(database: Database) -> None:
    await migrate(database, "0017")
    assert await _foreign_keys(database) == [
        (("account_id",), "accounts", ("id",), None),
        (("client_id",), "oauth_clients", ("id",), "SET NULL"),
        (("connection_id",), "connections", ("id",), "SET NULL"),
        (("customer_id",), "customers", ("id",), "SET NULL"),
        (("location_id",), "locations", ("id",), None),
    ]
    await migrate(database, "head")
    assert len(await _foreign_keys(database)) == 3


@pytest.mark.parametrize(
    "change",
    ["another account", "another client", "a client without connection", "an unknown connection"],
)
async def test_an_order_cannot_point_to_a_mismatched_pair(
    client: httpx.AsyncClient, shop: Shop, world: World, change: str
) -> None:
    await _created(client, shop)
    other_account = await world.account(name="Elsewhere")
    other_client = await world.client(name="Another app")
    values = {
        "another account": {"account_id": other_account.id},
        "another client": {"client_id": other_client.id},
        "a client without connection": {"connection_id": None},
        "an unknown connection": {"connection_id": 10**9},
    }[change]
    before = await world.snapshot()
    with pytest.raises(IntegrityError):
        async with world.db.transaction() as session:
            await session.execute(update(Order).values(**values))
    assert await world.snapshot() == before


async def test_a_deleted_client_leaves_its_orders_without_client_and_connection(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    marketplace = await world.client(name="Marketplace")
    token = await world.token("location[orders.write]", location=shop.location, client=marketplace)
    created = await _created(client, shop, token)
    row = await _row(world)
    assert row.client_id is not None
    assert row.connection_id is not None
    async with world.db.transaction() as session:
        await session.execute(delete(OAuthClient).where(OAuthClient.id == row.client_id))
    async with world.db.transaction(write=False) as session:
        assert (
            await session.scalar(select(func.count()).select_from(Connection).where(Connection.id == row.connection_id))
            == 0
        )
    kept = await _row(world)
    assert (kept.client_id, kept.connection_id, kept.location_id) == (None, None, row.location_id)
    read = await client.get(f"/v1/location/orders/{created['id']}", headers=shop.headers())
    assert read.status_code == 200, read.text
    shown = ("id", "created_by", "connection_name", "total", "customer")
    assert {name: read.json()[name] for name in shown} == {name: created[name] for name in shown}
