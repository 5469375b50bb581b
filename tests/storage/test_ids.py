"""docs/api/conventions.md "Ids": ids are never reused, even after a deletion, on every database;
and they are keyed per installation (`comptoir.kit.ids`): two installations hand out
unrelated ids, one installation keeps its ids across restarts, a new server key and the
migration that brought the keys."""

from __future__ import annotations

import re
import shutil
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import delete, inspect, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.config import Settings
from comptoir.core import names
from comptoir.db.engine import Database, create_database
from comptoir.db.migrate import upgrade
from comptoir.kit import clock, ids
from comptoir.models import Account, Base, CustomerList, Location
from tests import databases
from tests.api.conftest import Shop, app, client, shop  # noqa: F401  (fixtures)
from tests.conftest import SECRET_KEY, postgres_url
from tests.factories import World
from tests.storage.migrating import migrate

# What the code before installation keys answered for row 1 (and 123456) of these kinds.
LEGACY = {("account", 1): "4k3jxr", ("customer_list", 1): "rqs3g7", ("order", 1): "qaj3px", ("event", 1): "uf4w4d"}
LEGACY_ORDER_123456 = "nc98jy"


# --- ids are never reused -------------------------------------------------------------


async def _created_deleted_created_again(
    client: httpx.AsyncClient,  # noqa: F811
    shop: Shop,  # noqa: F811
    path: str,
    body: dict[str, object],
    items: str,
) -> None:
    """Creates a resource at `path`, deletes it (at `items`/id), creates it again: a new id,
    and the first one stays gone."""
    token = shop.headers(shop.account_token)
    first = (await client.post(path, json=body, headers=token)).json()["id"]
    assert (await client.delete(f"{items}/{first}", headers=token)).status_code == 200
    second = (await client.post(path, json=body, headers=token)).json()["id"]
    assert second != first
    assert (await client.get(f"{items}/{first}", headers=token)).status_code == 404


async def test_a_new_customer_list_never_gets_the_id_of_a_deleted_one(
    client: httpx.AsyncClient,  # noqa: F811
    shop: Shop,  # noqa: F811
) -> None:
    path = f"/v1/accounts/{shop.account.public_id}/customer_lists"
    await _created_deleted_created_again(client, shop, path, {"name": "VIP"}, "/v1/customer_lists")


async def test_a_new_catalog_never_gets_the_id_of_a_deleted_one(
    client: httpx.AsyncClient,  # noqa: F811
    shop: Shop,  # noqa: F811
) -> None:
    path = f"/v1/locations/{shop.location.public_id}/catalogs"
    await _created_deleted_created_again(client, shop, path, {"name": "Brunch", "data": {}}, "/v1/catalogs")


async def test_a_new_location_never_gets_the_number_of_a_deleted_one(world: World) -> None:
    account = await world.account()
    await world.location(account, name="Paris")
    newest = await world.location(account, name="Lyon")
    async with world.db.transaction() as session:
        await session.execute(delete(Location).where(Location.id == newest.id))
    again = await world.location(account, name="Lille")
    assert (newest.number, again.number) == (2, 3)
    assert again.public_id != newest.public_id
    assert again.id != newest.id


async def test_every_table_of_public_ids_draws_ids_that_are_never_handed_out_again(database: Database) -> None:
    """SQLite: AUTOINCREMENT (without it, the largest rowid is reused once its row is
    deleted). PostgreSQL: a sequence, which never goes back."""
    tables = sorted(
        mapper.local_table.name
        for mapper in Base.registry.mappers
        if hasattr(mapper.class_, "KIND") or mapper.local_table.name in ("locations", "changes")
    )
    assert {"customer_lists", "orders", "events", "locations"} <= set(tables)
    async with database.engine.connect() as connection:
        for table in tables:
            if database.is_sqlite:
                sql = (
                    await connection.execute(text("SELECT sql FROM sqlite_master WHERE name = :t"), {"t": table})
                ).scalar_one()
                assert "AUTOINCREMENT" in sql, table
            else:
                columns = await connection.run_sync(lambda sync, t=table: inspect(sync).get_columns(t))
                column = next(c for c in columns if c["name"] == "id")
                assert (column.get("identity"), column["default"]) == (None, f"nextval('{table}_id_seq'::regclass)")


async def _list_of_0018(world: World, account: Account, name: str) -> CustomerList:
    """A list as the code of 0018 made one: its row, its name claimed, no change recorded
    (the service records one with columns a database of 0018 does not have yet)."""
    async with world.db.transaction() as session:
        row = CustomerList(name=name, account_id=account.id, location_id=None, created_at=clock.now())
        await names.insert_named(session, "customer_list", row, lambda: AssertionError(name))
        return row


async def _list_rows(session: AsyncSession) -> list[tuple[Any, ...]]:
    """Every customer list's row as stored, in id order (PostgreSQL returns a heap's rows in
    any order: a new row may fill a deleted one's slot)."""
    return [tuple(row) for row in await session.execute(select(CustomerList.__table__).order_by(CustomerList.id))]


async def test_a_database_migrated_from_0018_never_reuses_a_customer_list_id_it_handed_out(
    database: Database, world: World
) -> None:
    """On SQLite, `customer_lists` had no AUTOINCREMENT before 0019: the migration adds it
    and starts its counter past the lists it still knows of (rows and recorded changes),
    keeping every row and every customer of the lists."""
    await migrate(database, "0018")
    ids.use_key("")  # what the code of 0018 used
    account = await world.account()
    kept = await _list_of_0018(world, account, "Kept")
    newest = await _list_of_0018(world, account, "Deleted")
    async with database.transaction() as session:
        await session.execute(  # a customer of the newest list was created: recorded
            text(
                "INSERT INTO changes (created_at, resource_type, event_type, ids, timezone, account_id, customer_list_id)"
                " VALUES (:now, 'customer', 'create', '{}', 'UTC', :account, :list)"
            ),
            {"now": datetime(2026, 1, 1), "account": account.id, "list": newest.id},
        )
        await session.execute(delete(CustomerList).where(CustomerList.id == newest.id))
        before = await _list_rows(session)
    await migrate(database, "head")
    await database.load_id_key()
    again = await world.customer_list(account=account, name="New")
    assert again.id > newest.id
    async with database.transaction() as session:  # and from now on, whatever was deleted
        await session.execute(delete(CustomerList).where(CustomerList.id == again.id))
    assert (await world.customer_list(account=account, name="Newer")).id > again.id
    async with database.transaction(write=False) as session:
        rows = await _list_rows(session)
        if database.is_sqlite:
            assert (await session.execute(text("PRAGMA integrity_check"))).scalar_one() == "ok"
    assert rows[:-1] == before
    assert len(rows) == len(before) + 1
    assert kept.public_id == ids.encode("customer_list", kept.id)


# --- ids are keyed per installation ------------------------------------------------------


@pytest.fixture
async def fresh_database(db_kind: str, tmp_path: Path) -> AsyncIterator[Callable[[], Database]]:
    """Makes brand-new, migrated databases of this test's kind (each a new installation)."""
    made: list[tuple[Database, str | None]] = []

    async def make() -> Database:
        if db_kind == "sqlite":
            url, name = f"sqlite:///{tmp_path / uuid.uuid4().hex}.db", None
        else:
            name = databases.new_name()
            await databases.create(name)
            url = postgres_url(name)
        db = create_database(Settings(database_url=url, secret_key=SECRET_KEY), pool_size=1)
        await upgrade(db)
        made.append((db, name))
        return db

    yield make  # type: ignore[misc]
    for db, name in made:
        await db.dispose()
        if name is not None:
            await databases.drop(name)


async def test_two_fresh_installations_give_their_first_rows_unrelated_ids(fresh_database) -> None:  # type: ignore[no-untyped-def]
    handed_out = []
    for _ in range(2):
        db = await fresh_database()
        key = await db.load_id_key()
        assert re.fullmatch(r"[0-9a-f]{32}", key)
        account = await World(db, b"k" * 32).account()
        assert account.id == 1
        handed_out.append((key, account.public_id, ids.encode("order", 1), ids.encode("event", 1)))
    (key_a, *ids_a), (key_b, *ids_b) = handed_out
    assert key_a != key_b
    assert all(a != b for a, b in zip(ids_a, ids_b, strict=True))
    assert ids_a[0] != LEGACY["account", 1]


async def test_ids_hold_across_restarts_and_a_new_server_key(
    database: Database, settings: Settings, world: World
) -> None:
    customer_list = await world.customer_list(account=await world.account(), name="VIP")
    public_id = customer_list.public_id
    await database.dispose()
    for secret_key in (SECRET_KEY, "a-rotated-secret-key-at-least-32-bytes"):
        ids.use_key("another installation's key")  # the process forgets: a restart
        restarted = create_database(settings.model_copy(update={"secret_key": secret_key}), pool_size=1)
        try:
            await restarted.load_id_key()
            assert ids.encode("customer_list", customer_list.id) == public_id
            assert (await World(restarted, b"k" * 32).customer_list_row(public_id)).id == customer_list.id
        finally:
            await restarted.dispose()


async def test_a_database_migrated_from_0018_with_data_keeps_every_id_it_handed_out(
    database: Database, world: World
) -> None:
    await migrate(database, "0018")
    ids.use_key("")  # the code of 0018
    account = await world.account()
    customer_list = await _list_of_0018(world, account, "VIP")
    before = (account.public_id, customer_list.public_id)
    await migrate(database, "head")
    ids.use_key("another installation's key")
    assert await database.load_id_key() == ""
    assert (ids.encode("account", account.id), ids.encode("customer_list", customer_list.id)) == before
    assert ids.decode("account", before[0]) == account.id
    assert [ids.encode(kind, pk) for kind, pk in LEGACY] == list(LEGACY.values())
    assert ids.encode("order", 123456) == LEGACY_ORDER_123456


async def test_a_database_migrated_from_0018_without_data_gets_a_random_key(database: Database) -> None:
    if not database.is_sqlite:  # the shared PostgreSQL database has drawn from its sequences
        return
    await migrate(database, "0018")
    await migrate(database, "head")
    key = await database.load_id_key()
    assert re.fullmatch(r"[0-9a-f]{32}", key)


async def test_ids_round_trip_under_the_installations_key_in_six_characters(database: Database) -> None:
    await database.load_id_key()
    for pk in (1, 2, 999, 123_456, 2**30 - 1):
        public_id = ids.encode("order", pk)
        assert re.fullmatch(r"[23456789abcdefghijkmnpqrstuvwxyz]{6}", public_id)
        assert ids.decode("order", public_id) == pk
    assert ids.encode_many("order", list(range(1, 6001))) == [ids.encode("order", pk) for pk in range(1, 6001)]
    assert [ids.decode("order", ids.encode("order", pk)) for pk in range(1, 6001)] == list(range(1, 6001))


def test_no_id_is_made_before_the_key_is_loaded() -> None:
    loaded = ids.current_key()
    ids.use_key("about to be unloaded")
    ids._key = None  # a process that has not loaded its database's key
    try:
        with pytest.raises(ids.IdKeyNotLoaded):
            ids.encode("order", 7)
        with pytest.raises(ids.IdKeyNotLoaded):
            ids.decode("order", "qaj3px")
        with pytest.raises(ids.IdKeyNotLoaded):
            ids.encode("order", 2**31)
    finally:
        if loaded is not None:
            ids.use_key(loaded)


def test_the_sqlite_template_and_a_copy_share_one_key(sqlite_template: Path, tmp_path: Path) -> None:
    """Copying a database file copies its installation, ids included."""
    import sqlite3

    copy = tmp_path / "copy.db"
    shutil.copy(sqlite_template, copy)
    keys = [
        sqlite3.connect(path).execute("SELECT id_key FROM installation").fetchall() for path in (sqlite_template, copy)
    ]
    assert keys[0] == keys[1]
    assert len(keys[0]) == 1
