"""The per-process connection cache (comptoir.db.connection_cache): emptied by every change to
what it holds. On PostgreSQL it is used while its LISTEN connection is up; on SQLite a
request asks the database whether anything was committed, then reads the stamp that the
triggers of migration 0032 move."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import text, update

from comptoir.auth.tokens import resolve
from comptoir.db.connection_cache import AUDIENCES, STAMP, TOKENS, ConnectionCache, one_sync_per_request
from comptoir.db.engine import Database
from comptoir.kit import crypto
from comptoir.models import Account, Connection, Location, OAuthClient
from tests.api.callbacks.conftest import subscribe
from tests.api.conftest import Shop
from tests.factories import World
from tests.waiting import PATIENCE, eventually

POSTGRESQL = pytest.mark.parametrize("db_kind", ["postgresql"])  # its LISTEN connection


@pytest.fixture
async def cache(app: FastAPI, db_kind: str) -> AsyncIterator[ConnectionCache]:
    tokens: ConnectionCache = app.state.comptoir.cache
    await tokens.start(app.state.comptoir.fast)
    if db_kind == "postgresql":

        async def listening() -> bool:
            return tokens.active

        await eventually(listening, "the cache listening")
    yield tokens
    await tokens.stop()


@pytest.fixture
def no_new_listen(monkeypatch: pytest.MonkeyPatch) -> None:
    """Asked for before `cache`: a cache that lost its LISTEN connection does not listen anew
    while the test looks at it (it would within RETRY_SECONDS, which a loaded machine reaches)."""
    monkeypatch.setattr("comptoir.db.connection_cache.RETRY_SECONDS", 10 * PATIENCE)


async def _forgotten(cache: ConnectionCache, generation: int) -> None:
    """Wait for the notification of a committed change (it arrives on the LISTEN connection).
    On SQLite nothing arrives: the next request asks."""
    if cache._reader is not None:
        return

    async def told() -> bool:
        return cache.generation != generation

    await eventually(told, "the cache told of the change")


def _hash(app: FastAPI, token: str) -> str:
    return crypto.lookup_hash(app.state.comptoir.key, token)


async def test_a_valid_token_is_looked_up_once(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, cache: ConnectionCache, db_kind: str
) -> None:
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
    cached = cache.get(TOKENS, shop.location_token)
    assert cached is not None
    assert cached.location is not None
    assert cached.location.name == "Chez Ada Paris"
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
    assert cache.get(TOKENS, shop.location_token) is cached


# What each change does to the next request's `GET /v1/location`.
CHANGES = {
    "revoke": 401,
    "block": 401,
    "suspend": 401,
    "rename the client": 200,
    "rename the location": 200,
    "delete the connection": 401,
}


async def _make(change: str, app: FastAPI, shop: Shop, database: Database) -> None:
    async with database.transaction() as session:
        connection = Connection.token_hash == _hash(app, shop.location_token)
        if change == "revoke":
            await session.execute(update(Connection).where(connection).values(revoked_at=datetime.now(UTC)))
        elif change == "block":
            await session.execute(update(Connection).where(connection).values(blocked=True))
        elif change == "suspend":
            await session.execute(update(Account).where(Account.id == shop.account.id).values(suspended=True))
        elif change == "rename the client":
            await session.execute(update(OAuthClient).values(name="Renamed app"))
        elif change == "rename the location":
            await session.execute(update(Location).where(Location.id == shop.location.id).values(name="Ada Paris"))
        else:
            await session.execute(text("DELETE FROM request_logs"))
            await session.execute(
                text("DELETE FROM connections WHERE token_hash = :h"), {"h": _hash(app, shop.location_token)}
            )


def _as_after(change: str, response: httpx.Response) -> None:
    assert response.status_code == CHANGES[change], response.text
    if change == "rename the location":
        assert response.json()["name"] == "Ada Paris"


@pytest.mark.parametrize(
    ("db_kind", "notification"), [("postgresql", "awaited"), ("postgresql", "late"), ("sqlite", "none")]
)
@pytest.mark.parametrize("change", CHANGES)
async def test_a_change_to_what_a_lookup_reads_holds_from_the_next_request(
    app: FastAPI,
    client: httpx.AsyncClient,
    shop: Shop,
    cache: ConnectionCache,
    database: Database,
    db_kind: str,
    change: str,
    notification: str,
) -> None:
    """ "late": the notification travels apart from the commit, and the request sent right
    after the commit waits for it. SQLite has none: the next request asks."""
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
    assert cache.get(TOKENS, shop.location_token) is not None
    generation = cache.generation
    if notification == "late":
        _late_notifications(cache)
    await _make(change, app, shop, database)
    if notification == "awaited":
        await _forgotten(cache, generation)
        assert cache.get(TOKENS, shop.location_token) is None
    _as_after(change, await client.get("/v1/location", headers=shop.headers()))


def _late_notifications(cache: ConnectionCache, seconds: float = 0.2) -> None:
    """What the LISTEN connection receives is read only in `seconds`, as when the process or
    its PostgreSQL backend is busy: a request that did not wait would read the cache as is."""
    transport = cache._listener._transport
    transport.pause_reading()
    asyncio.get_running_loop().call_later(seconds, transport.resume_reading)


@POSTGRESQL
async def test_concurrent_requests_share_their_waits_for_notifications(
    client: httpx.AsyncClient, shop: Shop, cache: ConnectionCache, db_kind: str
) -> None:
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
    before = cache.syncs
    responses = await asyncio.gather(*(client.get("/v1/location", headers=shop.headers()) for _ in range(20)))
    assert [r.status_code for r in responses] == [200] * 20
    assert 1 <= cache.syncs - before <= 2  # one under way when the first arrives, one after it


async def test_the_last_use_written_every_second_keeps_the_cache(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, cache: ConnectionCache, database: Database, db_kind: str
) -> None:
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
    generation = cache.generation
    async with database.transaction() as session:
        await session.execute(update(Connection).values(last_used_at=datetime.now(UTC)))
    if db_kind == "sqlite":  # a commit that moved no stamp: the next request reads the cache
        kept = cache.get(TOKENS, shop.location_token)
        assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
        assert cache.get(TOKENS, shop.location_token) is kept
        assert cache.generation == generation
    async with database.transaction() as session:  # a change that notifies, after it
        await session.execute(update(Location).where(Location.id == shop.other_location.id).values(name="Lyon"))
    await _forgotten(cache, generation)
    if db_kind == "sqlite":
        assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
    assert cache.generation == generation + 1  # one forgetting: the location's


@pytest.mark.parametrize("db_kind", ["sqlite"])
async def test_on_sqlite_a_commit_that_changes_nothing_cached_costs_one_read(
    client: httpx.AsyncClient, shop: Shop, cache: ConnectionCache, database: Database, db_kind: str
) -> None:
    """The stamp is read only when SQLite counts a commit by another connection."""
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
    reads = _count_stamp_reads(cache)
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
    assert reads == []
    async with database.transaction() as session:
        await session.execute(update(Connection).values(last_used_at=datetime.now(UTC)))
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
    assert len(reads) == 1


def _count_stamp_reads(cache: ConnectionCache) -> list[None]:
    reads: list[None] = []
    reader = cache._reader
    assert reader is not None
    one = reader.one

    async def counted(query: object, **params: object) -> object:
        if query is STAMP:
            reads.append(None)
        return await one(query, **params)  # type: ignore[arg-type]

    reader.one = counted  # type: ignore[method-assign]
    return reads


@pytest.mark.parametrize("db_kind", ["sqlite"])
async def test_on_sqlite_an_order_creation_keeps_the_cache(
    client: httpx.AsyncClient, shop: Shop, cache: ConnectionCache, db_kind: str
) -> None:
    """An order commits, but changes nothing a token's lookup reads."""
    assert (await client.post("/v1/location/orders", json=ORDER, headers=shop.headers())).status_code == 200
    kept = cache.get(TOKENS, shop.location_token)
    generation = cache.generation
    assert (await client.post("/v1/location/orders", json=ORDER, headers=shop.headers())).status_code == 200
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
    assert cache.get(TOKENS, shop.location_token) is kept
    assert cache.generation == generation


@pytest.mark.parametrize("db_kind", ["sqlite"])
async def test_on_sqlite_a_stamp_row_deleted_then_made_again_is_a_change(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, cache: ConnectionCache, database: Database, db_kind: str
) -> None:
    """A random stamp, not a count: a cleanup that deletes the row never brings back a stamp
    seen before."""
    async with database.transaction() as session:
        await session.execute(update(Location).where(Location.id == shop.other_location.id).values(name="Lyon"))
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
    async with database.transaction() as session:
        await session.execute(text("DELETE FROM cache_stamps"))
        await session.execute(update(Location).where(Location.id == shop.location.id).values(name="Ada Paris"))
    response = await client.get("/v1/location", headers=shop.headers())
    assert response.json()["name"] == "Ada Paris"


@pytest.mark.parametrize("db_kind", ["sqlite"])
async def test_on_sqlite_an_unreadable_stamp_reads_the_database(
    client: httpx.AsyncClient, shop: Shop, cache: ConnectionCache, database: Database, db_kind: str
) -> None:
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
    reader = cache._reader
    assert reader is not None

    def unreadable() -> int:
        raise sqlite3.OperationalError("disk I/O error")

    reader.commits_seen = unreadable  # type: ignore[method-assign]
    assert await cache.synced() is False
    assert cache.get(TOKENS, shop.location_token) is None
    del reader.commits_seen  # readable again: the next request asks afresh
    async with database.transaction() as session:
        await session.execute(update(Connection).values(blocked=True))
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 401


async def test_a_lookup_read_before_a_change_is_not_kept(
    app: FastAPI, shop: Shop, cache: ConnectionCache, db_kind: str
) -> None:
    token = shop.location_token
    ctx = await resolve(
        app.state.comptoir.fast, app.state.comptoir.cache, app.state.comptoir.key, shop.location_token
    )  # kept
    generation = cache.generation
    cache.forget()  # a notification while another lookup was reading
    cache.put(TOKENS, token, ctx, generation)  # what that lookup read is not kept
    assert cache.get(TOKENS, token) is None


@POSTGRESQL
async def test_without_its_listen_connection_the_cache_is_not_used(
    no_new_listen: None,
    app: FastAPI,
    client: httpx.AsyncClient,
    shop: Shop,
    cache: ConnectionCache,
    database: Database,
    db_kind: str,
) -> None:
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
    async with database.transaction() as session:
        await session.execute(
            text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%comptoir_connections%'"
            )
        )

    async def stopped() -> bool:
        return not cache.active

    await eventually(stopped, "the cache no longer listening")
    assert cache.get(TOKENS, shop.location_token) is None
    async with database.transaction() as session:
        await session.execute(update(Connection).values(blocked=True))
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 401


ORDER = {"status": "new", "items": [{"product_name": "Soup", "price": "4.00 EUR", "quantity": 1}]}


@POSTGRESQL
async def test_a_stuck_listen_connection_is_dropped_and_requests_read_the_database(
    no_new_listen: None,
    client: httpx.AsyncClient,
    shop: Shop,
    cache: ConnectionCache,
    database: Database,
    db_kind: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("comptoir.db.connection_cache.SYNC_TIMEOUT_SECONDS", 0.05)
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
    _late_notifications(cache, seconds=1.0)
    async with database.transaction() as session:
        await session.execute(update(Location).where(Location.id == shop.location.id).values(name="Ada Paris"))
    response = await client.get("/v1/location", headers=shop.headers())
    assert response.json()["name"] == "Ada Paris"
    assert not cache.active  # listened to anew within RETRY_SECONDS
    assert cache.get(TOKENS, shop.location_token) is None


@POSTGRESQL
async def test_requests_waiting_when_the_cache_stops_read_the_database(cache: ConnectionCache, db_kind: str) -> None:
    _late_notifications(cache, seconds=1.0)
    waiting = [asyncio.create_task(cache.synced()) for _ in range(3)]
    await asyncio.sleep(0.01)
    await cache.stop()
    assert await asyncio.gather(*waiting) == [False, False, False]


@POSTGRESQL  # on SQLite an order's receivers are read in its transaction, not kept
async def test_a_new_subscription_gets_the_next_orders_event(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, cache: ConnectionCache, world: World
) -> None:
    app_ = await world.client(name="Kitchen display")
    kitchen = await world.token("location[orders.read]", location=shop.location, client=app_)
    assert (await client.post("/v1/location/orders", json=ORDER, headers=shop.headers())).status_code == 200
    assert cache.get(AUDIENCES, _order_audience(app, shop, cache)) == []  # nobody subscribes yet
    generation = cache.generation
    await subscribe(client, kitchen, {"order": ["create"]})
    await _forgotten(cache, generation)
    created = await client.post("/v1/location/orders", json=ORDER, headers=shop.headers())
    [event] = (await client.get("/v1/callback/events", headers={"X-Access-Token": kitchen})).json()
    assert event["order_id"] == created.json()["id"]


@POSTGRESQL  # on SQLite an order's receivers are read in its transaction, not kept
async def test_a_subscription_committed_before_an_order_gets_its_event_without_waiting(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, cache: ConnectionCache, world: World
) -> None:
    app_ = await world.client(name="Kitchen display")
    kitchen = await world.token("location[orders.read]", location=shop.location, client=app_)
    assert (await client.post("/v1/location/orders", json=ORDER, headers=shop.headers())).status_code == 200
    assert cache.get(AUDIENCES, _order_audience(app, shop, cache)) == []  # nobody subscribes yet
    _late_notifications(cache)
    await subscribe(client, kitchen, {"order": ["create"]})
    created = await client.post("/v1/location/orders", json=ORDER, headers=shop.headers())  # at once
    [event] = (await client.get("/v1/callback/events", headers={"X-Access-Token": kitchen})).json()
    assert event["order_id"] == created.json()["id"]


@POSTGRESQL  # on SQLite an order's receivers are read in its transaction, not kept
async def test_an_unsubscribed_connection_gets_no_more_events(
    client: httpx.AsyncClient, shop: Shop, cache: ConnectionCache, world: World
) -> None:
    app_ = await world.client(name="Kitchen display")
    kitchen = await world.token("location[orders.read]", location=shop.location, client=app_)
    await subscribe(client, kitchen, {"order": ["create"]})
    assert (await client.post("/v1/location/orders", json=ORDER, headers=shop.headers())).status_code == 200
    generation = cache.generation
    await subscribe(client, kitchen, {"location": ["update"]})  # replaces the subscriptions
    await _forgotten(cache, generation)
    assert (await client.post("/v1/location/orders", json=ORDER, headers=shop.headers())).status_code == 200
    assert len((await client.get("/v1/callback/events", headers={"X-Access-Token": kitchen})).json()) == 1


def _order_audience(app: FastAPI, shop: Shop, cache: ConnectionCache) -> tuple[object, ...]:
    """The key of the audience of the shop's order creations."""
    ctx = cache.get(TOKENS, shop.location_token)
    return (
        "order",
        ("event_type", "create"),
        ("account_id", shop.account.id),
        ("client_id", ctx.client_id),
        ("location_id", shop.location.id),
    )


async def test_nothing_is_kept_longer_than_its_maximum_age(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, cache: ConnectionCache
) -> None:
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
    assert cache.get(TOKENS, shop.location_token) is not None
    cache.max_age = 0.0  # as if 30 seconds had passed without any notification
    await asyncio.sleep(0.01)
    assert cache.get(TOKENS, shop.location_token) is None


@POSTGRESQL
async def test_an_order_creation_waits_for_one_round_trip(
    client: httpx.AsyncClient, shop: Shop, cache: ConnectionCache, db_kind: str
) -> None:
    # its token, then who subscribes to its change: both read after the request's one round trip
    assert (await client.post("/v1/location/orders", json=ORDER, headers=shop.headers())).status_code == 200
    assert cache.get(TOKENS, shop.location_token) is not None
    before = cache.syncs
    assert (await client.post("/v1/location/orders", json=ORDER, headers=shop.headers())).status_code == 200
    assert cache.syncs - before == 1
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
    assert cache.syncs - before == 2  # the next request makes its own


@POSTGRESQL
async def test_one_round_trip_answers_for_a_request_in_its_own_task_only(cache: ConnectionCache, db_kind: str) -> None:
    before = cache.syncs
    assert (await cache.synced(), await cache.synced()) == (True, True)
    assert cache.syncs - before == 2  # outside a request: one each
    with one_sync_per_request():
        assert (await cache.synced(), await cache.synced(), await cache.synced()) == (True, True, True)
        assert cache.syncs - before == 3
        assert await asyncio.create_task(cache.synced()) is True  # a task of its own: its own round trip
        assert cache.syncs - before == 4
        assert await cache.synced() is True
        assert cache.syncs - before == 4
    with one_sync_per_request():  # the next request
        assert await cache.synced() is True
        assert cache.syncs - before == 5
