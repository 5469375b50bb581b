"""Flooding a receiver, and the database, with replays (docs/api/callbacks-events.md "Testing,
resending and replaying", docs/api/conventions.md "Rate limits"): 12 replays a minute, well
inside the general rate limit, each queuing thousands of events again, made the worker write
and POST about 930 a second. A connection now replays one range at a time (409 while one is
still sent), each replay counts ceil(n / 100) requests, and at most 50,000 events are replayed
a day (429 past it). A refused replay queues nothing."""

# ruff: noqa: F811 - the API's fixtures are imported, then named as parameters
from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI

from comptoir import events
from comptoir.callbacks.worker import DeliveryWorker
from comptoir.db.engine import Database
from comptoir.kit import clock
from comptoir.ratelimit.limiter import REPLAYED
from tests.api.callbacks.conftest import (  # noqa: F401 - the callbacks' fixtures
    Listener,
    fast_retries,
    listener,
    subscribe,
    touch_location,
    worker,
)
from tests.api.callbacks.test_delivery import connection_id, received, wait_until_listed
from tests.api.conftest import Shop, app, client, shop, world  # noqa: F401 - the API's fixtures
from tests.api.web.test_back_office_connections import connection_of
from tests.api.web.test_back_office_login import csrf_of, log_in
from tests.factories import World
from tests.receiver import Receiver, running_receiver

NOWHERE = "http://127.0.0.1:9/hook"  # an active callback no worker serves here: replays stay queued
STILL_SENT = {
    "error_type": "conflict",
    "message": "Events queued by an earlier replay or resend are still to be sent: replay again once they have gone out",
}


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver() as running:
        yield running


def span(start: datetime) -> dict[str, str]:
    return {"from": start.isoformat(), "to": (clock.now() + timedelta(seconds=1)).isoformat()}


async def replay(client: httpx.AsyncClient, listener: Listener, start: datetime) -> httpx.Response:
    return await client.post("/v1/callback/replay", json=span(start), headers=listener.headers())


def left(response: httpx.Response, window: str = "minute") -> int:
    """The requests left in `window`, as the RateLimit header reads it."""
    for part in response.headers["ratelimit"].split(", "):
        name, remaining, _ = part.split(";")
        if name == f'"{window}"':
            return int(remaining.removeprefix("r="))
    raise AssertionError(response.headers["ratelimit"])


async def record_location_updates(database: Database, shop: Shop, count: int) -> None:
    """`count` location updates recorded at once (the listener's events), as a write would."""
    async with database.transaction() as session:
        for _ in range(count):
            await events.record(
                session, resource_type="location", event_type="update", ids={"location_id": shop.location.public_id},
                account_id=shop.account.id, location_id=shop.location.id, previous_state={}, new_state={},
            )  # fmt: skip


async def test_a_second_replay_while_the_first_is_still_sent_is_409_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, world: World
) -> None:
    start = clock.now() - timedelta(seconds=1)
    await subscribe(client, listener.token, {"location": ["update"]}, NOWHERE)
    for minutes in (31, 32, 33):
        await touch_location(client, shop, minutes)
    first = await replay(client, listener, start)
    assert (first.status_code, first.json()) == (202, {"count": 3})
    before = await world.snapshot()
    second = await replay(client, listener, start)
    assert (second.status_code, second.json()) == (409, STILL_SENT)
    assert left(second) == left(first) - 1  # the request, and nothing for events it did not queue
    assert await world.snapshot() == before


async def test_a_replay_while_a_resend_is_still_sent_is_409_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, world: World
) -> None:
    start = clock.now() - timedelta(seconds=1)
    await subscribe(client, listener.token, {"location": ["update"]}, NOWHERE)
    await touch_location(client, shop, 34)
    [event] = (await client.get("/v1/callback/events", headers=listener.headers())).json()
    resent = await client.post(f"/v1/callback/events/{event['id']}/resend", headers=listener.headers())
    assert resent.status_code == 202
    before = await world.snapshot()
    answer = await replay(client, listener, start)
    assert (answer.status_code, answer.json()) == (409, STILL_SENT)
    assert await world.snapshot() == before


async def test_once_the_replayed_events_went_out_the_next_replay_is_accepted(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, receiver: Receiver, worker: DeliveryWorker
) -> None:
    start = clock.now() - timedelta(seconds=1)
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    for minutes in (35, 36):
        await touch_location(client, shop, minutes)
    await received(receiver, "/hook", 2)
    await wait_until_listed(client, listener, 0)
    assert (await replay(client, listener, start)).status_code == 202
    await received(receiver, "/hook", 4)
    await wait_until_listed(client, listener, 0)  # each had its POST: the replay is over
    again = await replay(client, listener, start)
    assert (again.status_code, again.json()) == (202, {"count": 2})


async def test_a_replay_of_250_events_counts_as_3_requests(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, database: Database
) -> None:
    clock.freeze(datetime(2026, 3, 2, 10, 0, 5, tzinfo=UTC))  # all in one minute window
    start = clock.now() - timedelta(seconds=1)
    await subscribe(client, listener.token, {"location": ["update"]}, NOWHERE)
    await record_location_updates(database, shop, 250)
    read = await client.get("/v1/callback", headers=listener.headers())
    replayed = await replay(client, listener, start)
    assert (replayed.status_code, replayed.json()) == (202, {"count": 250})
    after = await client.get("/v1/callback", headers=listener.headers())
    # the replay (3 requests: its own and 2 more for its events), then this read
    assert left(after) == left(read) - 4
    assert left(after, "day") == left(read, "day") - 4


async def test_replaying_past_50000_events_a_day_is_429_and_changes_nothing(
    client: httpx.AsyncClient, app: FastAPI, shop: Shop, listener: Listener, world: World
) -> None:
    day_ends = datetime(2026, 3, 3, tzinfo=UTC)
    clock.freeze(day_ends - timedelta(hours=1))
    start = clock.now() - timedelta(seconds=1)
    await subscribe(client, listener.token, {"location": ["update"]}, NOWHERE)
    await touch_location(client, shop, 37)
    clock.freeze(day_ends - timedelta(minutes=59))
    await touch_location(client, shop, 38)
    connection = await connection_id(world, listener)
    await app.state.comptoir.limiter.charge(connection, {REPLAYED: 49_999})  # replayed earlier today
    before = await world.snapshot()
    refused = await replay(client, listener, start)  # 2 events: 50,001
    assert (refused.status_code, refused.json()) == (
        429,
        {"error_type": "too_many_requests", "message": "Rate limit reached (replayed-day); retry in 3540 seconds"},
    )
    assert refused.headers["retry-after"] == "3540"
    assert await world.snapshot() == before
    first_only = {"from": start.isoformat(), "to": (day_ends - timedelta(minutes=59, seconds=30)).isoformat()}
    one = await client.post("/v1/callback/replay", json=first_only, headers=listener.headers())
    assert (one.status_code, one.json()) == (202, {"count": 1})  # 50,000: within the cap


async def test_the_back_offices_replay_while_one_is_still_sent_is_refused_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, world: World
) -> None:
    start = clock.now() - timedelta(seconds=1)
    await subscribe(client, listener.token, {"location": ["update"]}, NOWHERE)
    await touch_location(client, shop, 39)
    assert (await replay(client, listener, start)).status_code == 202
    await log_in(client, "owner@example.com")
    connection = await connection_of(world, listener.token)
    page = await client.get(f"/connections/{connection.public_id}")  # the request log is written now
    before = await world.snapshot()
    answer = await client.post(
        f"/connections/{connection.public_id}/callback/replay",
        data={"csrf": csrf_of(page.text), **span(start)},
    )
    assert answer.status_code == 200
    assert "Events queued by an earlier replay or resend are still to be sent" in answer.text
    assert await world.snapshot() == before
