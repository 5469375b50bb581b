"""docs/operations.md "When a dependency fails": with the database or Redis refusing
connections, accepting them and never answering, or answering slowly, every API request is
answered within the configured bounds; the database's absence is a 503
`service_unavailable` with `Retry-After`, nothing half-written; Redis's absence refuses
nothing (the rate limits count in the process meanwhile); each outage is logged once when it
starts and once when it ends; everything comes back without a restart.

The dependencies are reached through a TCP relay (tests/relay.py) the tests make fail. The
database's cases run on PostgreSQL; on SQLite, whose database is a file, the same bound holds
for a write that waits for the write lock another connection holds. The bounds here are
short (half a second to connect, a second per statement) so that the tests are quick; a test
asserts an answer well within a generous multiple of them, where a request without bounds
would wait a minute.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import structlog
from fastapi import FastAPI
from sqlalchemy import func, select

from comptoir.app import create_app
from comptoir.config import Settings
from comptoir.db.engine import Database, create_database
from comptoir.kit import clock, outages
from comptoir.models import Order
from comptoir.ratelimit import redis as redis_backend
from tests import apps
from tests.api.conftest import Shop, new_shop
from tests.api.web.test_back_office_login import log_in
from tests.conftest import TEST_REDIS_URL
from tests.factories import World
from tests.relay import Relay
from tests.response_schemas import CheckedASGITransport

# Nothing runs beside these tests: their bounds are a second or less, and a statement of their
# set-up ran past the second once with e2e processes beside it.
pytestmark = pytest.mark.alone

CONNECT, POOL, STATEMENT, REDIS = 0.5, 0.5, 1.0, 0.5
# Every request answers well within this (the bounds above add up to about 3 s); a request
# that waited for the network's own timeouts would take a minute or more.
BOUND = 10.0
UNAVAILABLE = {"error_type": "service_unavailable", "message": "The database is unavailable; retry in a few seconds"}
MINUTE = datetime(2026, 3, 2, 10, 0, 5, tzinfo=UTC)
ORDER = {"status": "new", "items": [{"product_name": "Soup", "price": "4.50 EUR", "quantity": 1}]}


@pytest.fixture(autouse=True)
def _dependencies_up() -> Iterator[None]:
    """The outage trackers are the process's: each test starts and ends with none under way."""
    for dependency in (outages.DATABASE, outages.REDIS):
        dependency.down = False
    yield
    for dependency in (outages.DATABASE, outages.REDIS):
        dependency.down = False


@dataclass
class Hub:
    client: httpx.AsyncClient
    app: FastAPI
    shop: Shop
    relay: Relay | None

    async def timed(self, method: str, path: str, **kwargs: Any) -> tuple[httpx.Response, float]:
        started = time.monotonic()
        response = await self.client.request(method, path, headers=self.shop.headers(), **kwargs)
        return response, time.monotonic() - started


@contextmanager
def logged() -> Iterator[list[dict[str, Any]]]:
    with structlog.testing.capture_logs() as lines:
        yield lines


def events(lines: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [line for line in lines if line["event"] == name]


async def hub_of(settings: Settings, world: World, relay: Relay | None) -> AsyncIterator[Hub]:
    shop = await new_shop(world)
    db = create_database(settings)
    await db.load_id_key()
    app = apps.shared(create_app(settings, database=db, background=False))
    transport = CheckedASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=60) as client:
        yield Hub(client, app, shop, relay)
    await app.state.comptoir.fast.close()
    await app.state.comptoir.limiter.close()
    await db.dispose()


@pytest.fixture
async def db_behind_relay(settings: Settings, world: World, db_kind: str) -> AsyncIterator[Hub]:
    """The app, its database reached through a relay on PostgreSQL (directly on SQLite)."""
    bounds = {
        "database_connect_timeout_seconds": CONNECT,
        "database_pool_timeout_seconds": POOL,
        "database_statement_timeout_seconds": STATEMENT,
    }
    if db_kind == "sqlite":
        async for hub in hub_of(settings.model_copy(update=bounds), world, None):
            yield hub
        return
    relay = Relay(5432)
    relay.forward()
    try:
        relayed = {"database_url": relay.url_of(settings.database_url, 5432), **bounds}
        async for hub in hub_of(settings.model_copy(update=relayed), world, relay):
            yield hub
    finally:
        relay.close()


@pytest.fixture
async def redis_behind_relay(settings: Settings, world: World) -> AsyncIterator[Hub]:
    relay = Relay(6379)
    relay.forward()
    try:
        relayed = {
            "redis_url": relay.url_of(TEST_REDIS_URL, 6379),
            "redis_timeout_seconds": REDIS,
            "redis_prefix": f"comptoir-test:{uuid.uuid4().hex}:",  # counts of this test alone
        }
        async for hub in hub_of(settings.model_copy(update=relayed), world, relay):
            yield hub
    finally:
        relay.close()


def assert_unavailable(response: httpx.Response, took: float) -> None:
    assert (response.status_code, response.json()) == (503, UNAVAILABLE)
    assert response.headers["retry-after"] == "2"
    assert took < BOUND, took


async def orders_in(database: Database) -> int:
    async with database.transaction(write=False) as session:
        return int(await session.scalar(select(func.count()).select_from(Order)) or 0)


# --- the database -----------------------------------------------------------------------------


def fail(hub: Hub, how: str) -> None:
    assert hub.relay is not None
    {"refuse": hub.relay.refuse, "blackhole": hub.relay.blackhole, "slow": lambda: hub.relay.slow(3.0)}[how]()  # type: ignore[union-attr]


ON_POSTGRESQL = pytest.mark.parametrize("db_kind", ["postgresql"])  # SQLite's case: the write lock, below


@ON_POSTGRESQL
@pytest.mark.parametrize("how", ["refuse", "blackhole", "slow"])
async def test_an_unreachable_database_is_a_503_within_the_bound_logged_once(
    db_behind_relay: Hub, database: Database, db_kind: str, how: str
) -> None:
    hub = db_behind_relay
    assert (await hub.timed("GET", "/v1/location"))[0].status_code == 200
    with logged() as lines:
        fail(hub, how)
        for _ in range(3):
            assert_unavailable(*await hub.timed("GET", "/v1/location"))
            order = {**ORDER, "private_ref": f"outage-{how}"}
            assert_unavailable(*await hub.timed("POST", "/v1/location/orders", json=order))
        assert len(events(lines, "dependency_unavailable")) == 1
        assert events(lines, "dependency_unavailable")[0]["dependency"] == "database"
        assert not events(lines, "internal_error")
        hub.relay.forward()  # type: ignore[union-attr]
        response, _took = await hub.timed("GET", "/v1/location")
        assert response.status_code == 200  # back, without a restart
    [recovered] = events(lines, "dependency_recovered")
    assert (recovered["dependency"], recovered["failures"] >= 6) == ("database", True)
    assert await orders_in(database) == 0  # nothing half-written


@ON_POSTGRESQL
async def test_a_burst_during_a_silent_outage_is_answered_in_full(db_behind_relay: Hub, db_kind: str) -> None:
    hub = db_behind_relay
    assert (await hub.timed("GET", "/v1/location"))[0].status_code == 200
    hub.relay.blackhole()  # type: ignore[union-attr]
    started = time.monotonic()
    answers = await asyncio.gather(*(hub.client.get("/v1/location", headers=hub.shop.headers()) for _ in range(40)))
    took = time.monotonic() - started
    assert [a.status_code for a in answers] == [503] * 40
    assert took < 2 * BOUND, took
    hub.relay.forward()  # type: ignore[union-attr]
    assert (await hub.timed("GET", "/v1/location"))[0].status_code == 200


@ON_POSTGRESQL
async def test_an_order_refused_during_an_outage_is_made_once_when_retried(
    db_behind_relay: Hub, database: Database, db_kind: str
) -> None:
    hub = db_behind_relay
    order = {**ORDER, "private_ref": "retried"}
    headers = {**hub.shop.headers(), "Idempotency-Key": "order-1"}
    hub.relay.refuse()  # type: ignore[union-attr]
    refused = await hub.client.post("/v1/location/orders", json=order, headers=headers)
    assert (refused.status_code, refused.json()) == (503, UNAVAILABLE)
    hub.relay.forward()  # type: ignore[union-attr]
    made = await hub.client.post("/v1/location/orders", json=order, headers=headers)
    again = await hub.client.post("/v1/location/orders", json=order, headers=headers)
    assert (made.status_code, again.status_code) == (200, 200)
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json()["id"] == made.json()["id"]
    assert await orders_in(database) == 1


@ON_POSTGRESQL
async def test_the_back_office_says_so_in_a_page(db_behind_relay: Hub) -> None:
    hub = db_behind_relay
    assert (await log_in(hub.client, "owner@example.com")).status_code == 303
    hub.relay.refuse()  # type: ignore[union-attr]
    page = await hub.client.get("/")
    assert (page.status_code, page.headers["retry-after"]) == (503, "2")
    assert page.headers["content-type"].startswith("text/html")
    assert "Comptoir cannot reach its database right now." in page.text
    hub.relay.forward()  # type: ignore[union-attr]
    assert (await hub.client.get("/")).status_code == 200


@ON_POSTGRESQL
async def test_an_unknown_back_office_address_says_so_in_the_same_page(db_behind_relay: Hub) -> None:
    """The not-found page of a signed-in user shows the navigation, read from the database."""
    hub = db_behind_relay
    assert (await log_in(hub.client, "owner@example.com")).status_code == 303
    hub.relay.refuse()  # type: ignore[union-attr]
    page = await hub.client.get("/no-such-page")
    assert (page.status_code, page.headers["retry-after"]) == (503, "2")
    assert page.headers["content-type"].startswith("text/html")
    assert "Comptoir cannot reach its database right now." in page.text
    hub.relay.forward()  # type: ignore[union-attr]
    assert (await hub.client.get("/no-such-page")).status_code == 404


@ON_POSTGRESQL
async def test_a_token_request_is_a_503_with_retry_after_not_an_oauth_refusal(
    db_behind_relay: Hub, world: World
) -> None:
    """docs/api/oauth.md "Token endpoint": its refusals are OAuth errors; an unreachable database
    is not one, and is answered as for any other request."""
    hub = db_behind_relay
    client = await world.client()
    hub.relay.refuse()  # type: ignore[union-attr]
    started = time.monotonic()
    fields = {"grant_type": "authorization_code", "code": "c", "client_id": client.public_id, "client_secret": "s"}
    answer = await hub.client.post("/oauth2/v1/token", data=fields)
    assert_unavailable(answer, time.monotonic() - started)
    revoked = await hub.client.post("/oauth2/v1/revoke", data={**fields, "token": "t"})
    assert (revoked.status_code, revoked.headers["retry-after"], revoked.json()) == (503, "2", UNAVAILABLE)


@ON_POSTGRESQL
async def test_a_slow_database_within_the_bounds_still_answers(db_behind_relay: Hub, db_kind: str) -> None:
    hub = db_behind_relay
    hub.relay.slow(0.05)  # type: ignore[union-attr]
    response, took = await hub.timed("GET", "/v1/location")
    assert response.status_code == 200
    assert took < BOUND


@pytest.mark.parametrize("db_kind", ["sqlite"])
async def test_a_write_waiting_for_sqlites_lock_is_a_503_within_the_bound(
    db_behind_relay: Hub, database: Database, settings: Settings, db_kind: str
) -> None:
    hub = db_behind_relay
    assert settings.sqlite_path is not None
    holder = sqlite3.connect(settings.sqlite_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    try:
        with logged() as lines:
            order = {**ORDER, "private_ref": "locked"}
            assert_unavailable(*await hub.timed("POST", "/v1/location/orders", json=order))
            assert (await hub.timed("GET", "/v1/location"))[0].status_code == 200  # WAL readers never wait
            assert len(events(lines, "dependency_unavailable")) == 1
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert (await hub.timed("POST", "/v1/location/orders", json={**ORDER, "private_ref": "locked"}))[
        0
    ].status_code == 200
    assert await orders_in(database) == 1


# --- Redis ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("how", "counted_in_redis"), [("refuse", 11), ("blackhole", 11), ("slow", 12)])
async def test_an_unreachable_redis_refuses_nothing_and_is_logged_once(
    redis_behind_relay: Hub, how: str, counted_in_redis: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redis_backend, "RETRY_SECONDS", 0.0)  # every request asks Redis again at once
    clock.freeze(MINUTE)  # one rate-limit window throughout
    hub = redis_behind_relay
    for _ in range(10):
        assert (await hub.timed("GET", "/v1/location"))[0].headers["ratelimit"].startswith('"minute";r=4')
    with logged() as lines:
        fail(hub, how)
        for n in range(1, 4):
            response, took = await hub.timed("GET", "/v1/location")
            assert response.status_code == 200
            assert took < BOUND
            assert response.headers["ratelimit"].startswith(f'"minute";r={500 - n};')  # the process's own count
        assert len(events(lines, "dependency_unavailable")) == 1
        assert events(lines, "dependency_unavailable")[0]["dependency"] == "redis"
        metrics = (await hub.client.get("/metrics")).text
        assert 'comptoir_dependency_unavailable{dependency="redis"} 1.0' in metrics
        hub.relay.forward()  # type: ignore[union-attr]
        back, _took = await hub.timed("GET", "/v1/location")
    assert back.status_code == 200
    # Redis's count again: the 10 before and this one; a slow server also counted the first
    # command of the outage, sent on an open connection and answered too late (the next ones
    # waited for a new connection's set-up, which it answered too late too)
    assert back.headers["ratelimit"].startswith(f'"minute";r={500 - counted_in_redis};')
    assert len(events(lines, "dependency_recovered")) == 1
    metrics = (await hub.client.get("/metrics")).text
    assert 'comptoir_dependency_unavailable{dependency="redis"} 0.0' in metrics


async def test_logins_and_token_requests_work_while_redis_is_away(redis_behind_relay: Hub) -> None:
    """Their throttles count failures where the rate limits do: locally meanwhile."""
    hub = redis_behind_relay
    hub.relay.refuse()  # type: ignore[union-attr]
    token = await hub.client.post("/oauth2/v1/token", data={"code": "made-up", "client_id": "x", "client_secret": "y"})
    assert (token.status_code, token.json()["error"]) == (401, "invalid_client")
    wrong = await log_in(hub.client, "owner@example.com", "not the password")
    assert wrong.status_code == 400
    right = await log_in(hub.client, "owner@example.com")
    assert (right.status_code, right.headers["location"]) == (303, "/")
