"""spec 6.4: active delivery to a real HTTP receiver on 127.0.0.1, by the worker (here
in-process, with a 1 s retry base and a timeout no loaded machine reaches, unless a test
sets its own)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from itertools import pairwise

import httpx
import pytest
import structlog
from sqlalchemy import select, text, update

from comptoir.applications.service import client_secret
from comptoir.callbacks import repository
from comptoir.callbacks.service import render_delivery_log
from comptoir.callbacks.worker import DeliveryWorker
from comptoir.config import Settings
from comptoir.db.direct import FastReader
from comptoir.db.engine import Database
from comptoir.kit import clock
from comptoir.kit.jsonutil import dumps
from comptoir.models import Callback, Connection, DeliveryAttempt, Event, OAuthClient
from tests.api.callbacks.conftest import (
    FREE_FORM,
    Listener,
    looked_again,
    new_listener,
    past_every_resend,
    subscribe,
    touch_location,
)
from tests.api.conftest import Shop
from tests.api.orders.conftest import ORDER
from tests.factories import World
from tests.receiver import Answer, Receiver
from tests.waiting import PATIENCE, QUICKLY, eventually


async def listed(client: httpx.AsyncClient, listener: Listener) -> list[dict[str, object]]:
    return (await client.get("/v1/callback/events", headers=listener.headers())).json()


async def wait_until_listed(
    client: httpx.AsyncClient, listener: Listener, count: int, within: float = PATIENCE
) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if len(await listed(client, listener)) == count:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"expected {count} listed events, have {len(await listed(client, listener))}")


async def secret_of(world: World, listener: Listener) -> bytes:
    async with world.db.transaction(write=False) as session:
        app = await session.get(OAuthClient, listener.client_id)
        assert app is not None
        return client_secret(world.key, app).encode()


async def received(receiver: Receiver, path: str, count: int, within: float = PATIENCE) -> list:  # type: ignore[type-arg]
    return await asyncio.to_thread(receiver.wait_for, path, count, within)


async def connection_id(world: World, listener: Listener) -> int:
    async with world.db.transaction(write=False) as session:
        return (
            await session.execute(select(Connection.id).where(Connection.client_id == listener.client_id))
        ).scalar_one()


async def test_the_post_is_the_event_body_signed_with_the_client_secret(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, world: World, receiver: Receiver, worker: DeliveryWorker
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]})  # passive: read the body first
    await touch_location(client, shop, 60)
    [event] = await listed(client, listener)
    expected = (await client.get(f"/v1/callback/events/{event['id']}", headers=listener.headers())).content
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    [request] = await received(receiver, "/hook", 1)
    assert request.body == expected
    assert request.headers["Content-Type"] == "application/json"
    assert request.headers["X-Event-Id"] == event["id"]
    signature = hmac.new(await secret_of(world, listener), request.body, hashlib.sha256).hexdigest()
    assert request.headers["X-Service-Hmac-SHA256"] == signature
    await wait_until_listed(client, listener, 0)  # acknowledged: deleted at once


async def test_the_post_is_the_event_body_byte_for_byte_with_free_form_content(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, receiver: Receiver, worker: DeliveryWorker
) -> None:
    """The change's states go into the POST as stored (not decoded and written again): the
    same bytes as `GET /callback/events/:id`, exact numbers, unicode and escapes included."""
    await subscribe(client, listener.token, {"order": ["create"]})  # passive: read the body first
    raw = dumps(ORDER)[:-1] + b', "custom_fields": ' + FREE_FORM + b"}"
    created = await client.post(
        "/v1/location/orders", content=raw, headers=shop.headers() | {"Content-Type": "application/json"}
    )
    assert created.status_code == 200, created.text
    [event] = await listed(client, listener)
    expected = (await client.get(f"/v1/callback/events/{event['id']}", headers=listener.headers())).content
    await subscribe(client, listener.token, {"order": ["create"]}, receiver.url("/hook"))
    [request] = await received(receiver, "/hook", 1)
    assert request.body == expected
    assert b'"ratio":1.50,"big":123456789012345678901234567890,"exp":1E+5,"zero":-0.0,' in request.body


BASE = 0.25  # the schedule test's retry base: its whole schedule is 63 x BASE
TIMEOUT = 2.0  # the schedule test's: a receiver answering at once is far within it, even on a loaded machine


@pytest.fixture
async def schedule_worker(fast_retries: Settings, database: Database) -> AsyncIterator[DeliveryWorker]:
    """A worker on a 0.25 s base and a 2 s timeout: the whole schedule in 16 s, 30 s with timeouts."""
    quick = fast_retries.model_copy(update={"callback_retry_base_seconds": BASE, "callback_timeout_seconds": TIMEOUT})
    delivery = DeliveryWorker(quick, database, quick.server_key(), poll_interval=0.05)
    task = asyncio.create_task(delivery.run())
    yield delivery
    delivery.stop()
    await asyncio.wait_for(task, PATIENCE)


@pytest.fixture
async def quick_worker(fast_retries: Settings, database: Database) -> AsyncIterator[DeliveryWorker]:
    """A worker on a 0.25 s base and fast_retries' timeout."""
    quick = fast_retries.model_copy(update={"callback_retry_base_seconds": BASE})
    delivery = DeliveryWorker(quick, database, quick.server_key(), poll_interval=0.05)
    task = asyncio.create_task(delivery.run())
    yield delivery
    delivery.stop()
    await asyncio.wait_for(task, PATIENCE)


@pytest.mark.parametrize("status", [200, 201, 204, 302, 400, 404, 410, 499])
async def test_any_status_from_200_to_499_acknowledges(
    client: httpx.AsyncClient,
    shop: Shop,
    listener: Listener,
    receiver: Receiver,
    quick_worker: DeliveryWorker,
    status: int,
    world: World,
) -> None:
    receiver.answer(
        "/hook", Answer(status=status, headers={"Location": receiver.url("/elsewhere")} if status == 302 else {})
    )
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    await touch_location(client, shop, 61)
    await received(receiver, "/hook", 1)
    await wait_until_listed(client, listener, 0)
    past_every_resend(BASE)
    await looked_again(quick_worker)  # a resend, were one due, has been sent: none comes
    assert len(receiver.requests_to("/hook")) == 1
    assert receiver.requests_to("/elsewhere") == []  # redirects are not followed
    async with world.db.transaction(write=False) as session:
        [attempt] = await render_delivery_log(session, await connection_id(world, listener), 10)
    assert (attempt["attempt"], attempt["status_code"], attempt["outcome"]) == (1, status, "acknowledged")


@pytest.mark.parametrize("db_kind", ["postgresql"], indirect=True)
async def test_5xx_and_timeouts_resend_on_the_schedule_then_drop(
    client: httpx.AsyncClient, shop: Shop, world: World, receiver: Receiver, schedule_worker: DeliveryWorker
) -> None:
    """The whole schedule once, on PostgreSQL (the suite stays under its 15 minutes); resends
    are stored and found on SQLite as well: the tests below resend on both."""
    failing = await new_listener(world, shop, "5xx")
    slow = await new_listener(world, shop, "Slow")
    receiver.answer("/fail", Answer(status=503, body=b"unavailable"))
    unanswered = threading.Event()  # set at the end: the slow receiver answers only after every timeout
    receiver.answer("/slow", Answer(status=200, hold=unanswered))
    await subscribe(client, failing.token, {"location": ["update"]}, receiver.url("/fail"))
    await subscribe(client, slow.token, {"location": ["update"]}, receiver.url("/slow"))
    await touch_location(client, shop, 62)
    early = await received(receiver, "/fail", 3)
    assert len(await listed(client, failing)) == 1  # listed while resends are pending (spec 6.4 item 3)
    fails = await received(receiver, "/fail", 7)
    slows = await received(receiver, "/slow", 7)
    assert early[0].at == fails[0].at
    waits = [BASE * 2**n for n in range(6)]  # doubling from the base, capped at 32 x base
    for attempts, extra in ((fails, 0.0), (slows, TIMEOUT)):  # the timeout runs before the wait
        gaps = [b.at - a.at for a, b in pairwise(attempts)]
        for gap, wait in zip(gaps, waits, strict=True):
            # never before its time; late by what a loaded machine may add (QUICKLY), which
            # is less than another schedule makes the last waits (twice the base: 16 s, not 8)
            assert wait + extra - 0.05 <= gap <= wait + extra + QUICKLY, (gaps, extra)
    await wait_until_listed(client, failing, 0)  # after the sixth failed resend: deleted
    await wait_until_listed(client, slow, 0)
    past_every_resend(BASE)
    await looked_again(schedule_worker)
    unanswered.set()
    assert len(receiver.requests_to("/fail")) == len(receiver.requests_to("/slow")) == 7
    async with world.db.transaction(write=False) as session:
        fail_log = await render_delivery_log(session, await connection_id(world, failing), 10)
        slow_log = await render_delivery_log(session, await connection_id(world, slow), 10)
    assert [(a["attempt"], a["status_code"], a["outcome"]) for a in reversed(fail_log)] == [
        *((n, 503, "retry") for n in range(1, 7)),
        (7, 503, "dropped"),
    ]
    assert {a["response_excerpt"] for a in fail_log} == {"unavailable"}
    assert [(a["attempt"], a["error"], a["outcome"]) for a in reversed(slow_log)] == [
        *((n, "timeout", "retry") for n in range(1, 7)),
        (7, "timeout", "dropped"),
    ]


async def test_first_attempts_go_oldest_first_and_a_failure_holds_nothing_back(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, receiver: Receiver, worker: DeliveryWorker
) -> None:
    receiver.answer("/hook", lambda n: Answer(status=500 if n == 0 else 200))
    await subscribe(client, listener.token, {"location": ["update"]})
    for minutes in range(70, 75):
        await touch_location(client, shop, minutes)
    ids = [e["id"] for e in await listed(client, listener)]
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    requests = await received(receiver, "/hook", 6)
    assert [r.headers["X-Event-Id"] for r in requests] == [*ids, ids[0]]
    assert requests[5].at - requests[0].at >= 0.95  # the failed one came back after its wait
    await wait_until_listed(client, listener, 0)


async def test_a_passive_callback_gets_no_post(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, receiver: Receiver, worker: DeliveryWorker
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]})
    await touch_location(client, shop, 63)
    await looked_again(worker)
    assert receiver.received == []
    assert len(await listed(client, listener)) == 1


async def test_becoming_passive_or_deleting_the_callback_stops_the_calls(
    client: httpx.AsyncClient, shop: Shop, world: World, receiver: Receiver, worker: DeliveryWorker
) -> None:
    passive, deleted = [await new_listener(world, shop, f"Stopper {i}") for i in range(2)]
    receiver.answer("/p", Answer(status=500))
    receiver.answer("/d", Answer(status=500))
    await subscribe(client, passive.token, {"location": ["update"]}, receiver.url("/p"))
    await subscribe(client, deleted.token, {"location": ["update"]}, receiver.url("/d"))
    await touch_location(client, shop, 64)
    await received(receiver, "/p", 1)
    await received(receiver, "/d", 1)
    await subscribe(client, passive.token, {"location": ["update"]}, None)
    await client.delete("/v1/callback", headers=deleted.headers())
    past_every_resend(worker.base)
    await looked_again(worker)
    assert len(receiver.requests_to("/p")) == 1
    assert len(receiver.requests_to("/d")) == 1
    assert len(await listed(client, passive)) == 1  # still there for polling
    assert await listed(client, deleted) == []


@pytest.mark.parametrize("db_kind", ["postgresql"])  # SQLite has one writer at a time: no lock order
async def test_a_first_failure_recorded_while_the_callback_is_deleted_is_no_deadlock(
    client: httpx.AsyncClient, shop: Shop, world: World, receiver: Receiver, worker: DeliveryWorker, db_kind: str
) -> None:
    """DELETE /callback takes the callback's row, then its events'. The worker recording a
    first failure (which also marks the callback failing) takes them in the same order, so a
    deletion under way makes it wait rather than deadlock, and the deletion answers 200."""
    listener = await new_listener(world, shop, "Deleted mid-record")
    answered = threading.Event()
    receiver.answer("/d", Answer(status=500, hold=answered))
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/d"))
    await touch_location(client, shop, 66)
    await received(receiver, "/d", 1)  # the attempt is in flight, its answer held
    cid = await connection_id(world, listener)
    with structlog.testing.capture_logs() as lines:
        async with world.db.transaction() as session:
            assert await repository.callback_of(session, cid, lock=True) is not None  # as DELETE /callback does first
            answered.set()  # the 500 reaches the worker, which records it
            await wait_for_a_lock_waiter(world.db)
            await asyncio.wait_for(repository.delete_events_of(session, cid), QUICKLY)  # then the events
        await looked_again(worker)
    # PostgreSQL ends a deadlock by failing one side: here the worker's write, which it makes
    # again without its log; in a request, a 500
    assert [line["event"] for line in lines if line["log_level"] in ("error", "warning")] == []
    response = await client.delete("/v1/callback", headers=listener.headers())
    assert response.status_code == 200
    assert await listed(client, listener) == []


async def wait_for_a_lock_waiter(db: Database) -> None:
    """Until a transaction of this database waits for a row another holds (a transaction
    reads the server's activity once: a new one each look)."""

    async def waiting() -> int:
        async with db.transaction(write=False) as session:
            query = (
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            return int(await session.scalar(text(query)) or 0)

    await eventually(waiting, "a transaction waiting for a lock")


async def test_a_blocked_connection_gets_no_post_until_unblocked(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, world: World, receiver: Receiver, worker: DeliveryWorker
) -> None:
    async with world.db.transaction() as session:
        await session.execute(update(Connection).where(Connection.client_id == listener.client_id).values(blocked=True))
    await world.subscribe(listener.token, receiver.url("/hook"), {"location": ["update"]})  # blocked: no API
    await touch_location(client, shop, 65)
    await looked_again(worker)
    assert receiver.received == []
    async with world.db.transaction() as session:
        await session.execute(
            update(Connection).where(Connection.client_id == listener.client_id).values(blocked=False)
        )
    worker.poke()
    await received(receiver, "/hook", 1)


async def test_the_log_keeps_the_answers_size_and_its_first_200_characters(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, world: World, receiver: Receiver, worker: DeliveryWorker
) -> None:
    receiver.answer("/hook", Answer(status=200, body=b"x" * 5000))
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    await touch_location(client, shop, 66)
    await received(receiver, "/hook", 1)
    await wait_until_listed(client, listener, 0)
    async with world.db.transaction(write=False) as session:
        [attempt] = await render_delivery_log(session, await connection_id(world, listener), 10)
    assert attempt["response_excerpt"] == "x" * 200 + "…"
    assert attempt["response_bytes"] == 5000
    assert attempt["url"] == receiver.url("/hook")
    assert attempt["duration_ms"] >= 0


async def test_different_receivers_are_served_concurrently(
    client: httpx.AsyncClient, shop: Shop, world: World, receiver: Receiver, worker: DeliveryWorker
) -> None:
    """Each receiver holds its POST unanswered until all three have one: one after the other,
    the second would not come while the first is held (the worker waits for its answer longer
    than the test waits for the three)."""
    listeners = [await new_listener(world, shop, f"Receiver {i}") for i in range(3)]
    all_arrived = threading.Event()
    for i, listener in enumerate(listeners):
        receiver.answer(f"/slow/{i}", Answer(status=200, hold=all_arrived))
        await subscribe(client, listener.token, {"location": ["update"]}, receiver.url(f"/slow/{i}"))
    await touch_location(client, shop, 67)
    try:
        for i in range(3):
            await received(receiver, f"/slow/{i}", 1, PATIENCE / 2)  # the holds last PATIENCE
    finally:
        all_arrived.set()
    await wait_until_listed(client, listeners[0], 0)


async def queue_events(client: httpx.AsyncClient, shop: Shop, listener: Listener, count: int) -> list[str]:
    """`count` pending events for a passive callback, their ids oldest first."""
    await subscribe(client, listener.token, {"location": ["update"]})
    for minutes in range(count):
        await touch_location(client, shop, 80 + minutes)
    return [e["id"] for e in await listed(client, listener)]  # type: ignore[misc]


async def test_no_call_after_delete_callback_returns(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, receiver: Receiver, worker: DeliveryWorker
) -> None:
    receiver.answer("/hook", Answer(status=200, delay=0.3))
    await queue_events(client, shop, listener, 6)
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    await received(receiver, "/hook", 1)
    assert (await client.delete("/v1/callback", headers=listener.headers())).status_code == 200
    sent_by_then = len(receiver.requests_to("/hook"))
    await looked_again(worker)
    assert len(receiver.requests_to("/hook")) == sent_by_then  # only POSTs already under way
    assert await listed(client, listener) == []


async def made_passive_while_sending(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, receiver: Receiver, worker: DeliveryWorker
) -> None:
    """Six events queued, the callback made active, then passive once the first POST
    arrived: no POST after that but those already under way, and the rest stays listed."""
    receiver.answer("/hook", Answer(status=200, delay=0.3))
    ids = await queue_events(client, shop, listener, 6)
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    await received(receiver, "/hook", 1)
    await subscribe(client, listener.token, {"location": ["update"]}, None)
    sent_by_then = len(receiver.requests_to("/hook"))
    await looked_again(worker)
    assert len(receiver.requests_to("/hook")) == sent_by_then
    still = [e["id"] for e in await listed(client, listener)]
    delivered = {r.headers["X-Event-Id"] for r in receiver.requests_to("/hook")}
    assert still == [i for i in ids if i not in delivered]
    assert len(still) >= 6 - sent_by_then


async def test_no_call_after_the_callback_becomes_passive_and_events_stay_listed(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, receiver: Receiver, worker: DeliveryWorker
) -> None:
    await made_passive_while_sending(client, shop, listener, receiver, worker)


async def test_an_acknowledged_event_is_not_posted(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, receiver: Receiver, worker: DeliveryWorker
) -> None:
    receiver.answer("/hook", Answer(status=200, delay=0.3))
    ids = await queue_events(client, shop, listener, 4)
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    await received(receiver, "/hook", 1)
    assert (await client.delete(f"/v1/callback/events/{ids[-1]}", headers=listener.headers())).status_code == 200
    await received(receiver, "/hook", 3)
    await looked_again(worker)
    assert [r.headers["X-Event-Id"] for r in receiver.requests_to("/hook")] == ids[:3]


async def test_re_registering_never_sends_an_event_twice(
    client: httpx.AsyncClient,
    shop: Shop,
    world: World,
    listener: Listener,
    receiver: Receiver,
    worker: DeliveryWorker,
) -> None:
    receiver.answer("/hook", Answer(status=200, delay=0.05))
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    await touch_location(client, shop, 90)
    await received(receiver, "/hook", 1)
    await client.delete("/v1/callback", headers=listener.headers())
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    for minutes in range(20):
        await touch_location(client, shop, 100 + minutes)
    await received(receiver, "/hook", 21)
    await wait_until_listed(client, listener, 0)
    await looked_again(worker)
    ids = [r.headers["X-Event-Id"] for r in receiver.requests_to("/hook")]
    # no POST is cut short (the worker's timeout is longer than the test waits): no event is
    # sent again, by a resend or by the re-registration
    async with world.db.transaction(write=False) as session:
        log = await render_delivery_log(session, await connection_id(world, listener), 100)
    assert {(a["attempt"], a["outcome"]) for a in log} == {(1, "acknowledged")}
    assert len(ids) == len(set(ids)) == 21


async def test_any_send_failure_is_a_recorded_failed_attempt(
    client: httpx.AsyncClient,
    shop: Shop,
    listener: Listener,
    world: World,
    receiver: Receiver,
    worker: DeliveryWorker,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert worker._http is not None
    original = worker._http.post
    calls = {"n": 0}

    def flaky_post(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 1:
            raise ValueError("unexpected")
        return original(*args, **kwargs)

    monkeypatch.setattr(worker._http, "post", flaky_post)
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    await touch_location(client, shop, 91)
    await received(receiver, "/hook", 1)  # the resend, a second later
    await wait_until_listed(client, listener, 0)
    async with world.db.transaction(write=False) as session:
        log = await render_delivery_log(session, await connection_id(world, listener), 10)
    assert [(a["attempt"], a["error"], a["status_code"], a["outcome"]) for a in reversed(log)] == [
        (1, "ValueError", None, "retry"),
        (2, None, 200, "acknowledged"),
    ]


async def test_the_excerpt_is_the_first_200_characters_however_the_body_arrives(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, world: World, receiver: Receiver, worker: DeliveryWorker
) -> None:
    receiver.answer("/hook", Answer(status=200, body=b"y" * 3000, pause_after=100))
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    await touch_location(client, shop, 92)
    await received(receiver, "/hook", 1)
    await wait_until_listed(client, listener, 0)
    async with world.db.transaction(write=False) as session:
        [attempt] = await render_delivery_log(session, await connection_id(world, listener), 10)
    assert attempt["response_excerpt"] == "y" * 200 + "…"
    assert attempt["response_bytes"] == 3000


async def test_without_a_working_listen_every_send_is_checked(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, receiver: Receiver, worker: DeliveryWorker
) -> None:
    worker._on_listener_lost(None)  # as if PostgreSQL's LISTEN connection dropped (SQLite: always checked)
    receiver.answer("/hook", Answer(status=200, delay=0.3))
    await queue_events(client, shop, listener, 5)
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    await received(receiver, "/hook", 1)
    await client.delete("/v1/callback", headers=listener.headers())
    sent_by_then = len(receiver.requests_to("/hook"))
    await looked_again(worker)
    assert len(receiver.requests_to("/hook")) == sent_by_then


async def test_a_lanes_posts_share_one_kept_alive_connection(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, receiver: Receiver, worker: DeliveryWorker
) -> None:
    ids = await queue_events(client, shop, listener, 5)
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    requests = await received(receiver, "/hook", 5)
    assert [r.headers["X-Event-Id"] for r in requests] == ids
    await wait_until_listed(client, listener, 0)
    assert worker._http is not None
    assert worker._http.opened == 1


async def test_a_lanes_turn_ends_mid_batch_and_the_rest_goes_out_next_turn(
    fast_retries: Settings,
    database: Database,
    client: httpx.AsyncClient,
    shop: Shop,
    listener: Listener,
    world: World,
    receiver: Receiver,
) -> None:
    """A turn of 0 s: each claim sends one event of its batch, records it alone, and the
    next claim sends the next one; every event once, oldest first."""
    ids = await queue_events(client, shop, listener, 3)
    turns = DeliveryWorker(fast_retries, database, fast_retries.server_key(), poll_interval=0.05, lane_seconds=0.0)
    recorded: list[int] = []
    record = turns._record

    async def counted(lane, batch, outcomes):  # type: ignore[no-untyped-def]
        recorded.append(len(outcomes))
        return await record(lane, batch, outcomes)

    turns._record = counted  # type: ignore[method-assign]
    task = asyncio.create_task(turns.run())
    try:
        await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
        requests = await received(receiver, "/hook", 3)
        await wait_until_listed(client, listener, 0)
        await looked_again(turns)
    finally:
        turns.stop()
        await asyncio.wait_for(task, PATIENCE)
    assert [r.headers["X-Event-Id"] for r in receiver.requests_to("/hook")] == ids
    assert [r.headers["X-Event-Id"] for r in requests] == ids
    assert recorded == [1, 1, 1]
    async with world.db.transaction(write=False) as session:
        log = await render_delivery_log(session, await connection_id(world, listener), 10)
    assert [(a["attempt"], a["outcome"]) for a in log] == [(1, "acknowledged")] * 3


@pytest.mark.parametrize("db_kind", ["postgresql"], indirect=True)
async def test_a_batch_settled_in_one_statement_writes_what_a_session_writes(
    client: httpx.AsyncClient, shop: Shop, world: World, receiver: Receiver, settings: Settings
) -> None:
    """On PostgreSQL the worker settles a usual batch (outcomes, delivery log, lease) in one
    statement, `repository.settle`; the session's `write_outcomes` and `extend_lease` stay for
    the rest (and SQLite). Both write the same rows for the same batch."""
    fast, slow = await new_listener(world, shop, "Fast"), await new_listener(world, shop, "Session")
    for listener in (fast, slow):
        await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    for minutes in (61, 62, 63):
        await touch_location(client, shop, minutes)
    at = clock.now()
    written: dict[str, tuple[bool, list[tuple[object, ...]], list[tuple[object, ...]]]] = {}
    reader = FastReader(settings)
    try:
        for name, listener in (("fast", fast), ("session", slow)):
            cid = await connection_id(world, listener)
            async with world.db.transaction() as session:
                await session.execute(
                    update(Callback).where(Callback.connection_id == cid).values(lease_owner=name, leased_until=at)
                )
                events = (
                    await session.execute(
                        select(Event.id, Event.next_attempt_at).where(Event.connection_id == cid).order_by(Event.id)
                    )
                ).all()
            (done_id, done_due), (retry_id, retry_due), (dropped_id, dropped_due) = events
            done: list[repository.Done] = [
                {"b_id": done_id, "b_due": done_due},
                {"b_id": dropped_id, "b_due": dropped_due},
            ]
            retries: list[repository.Retry] = [
                {"b_id": retry_id, "b_due": retry_due, "b_attempts": 1, "b_next": at + timedelta(seconds=5)}
            ]
            log_rows: list[repository.AttemptRow] = [
                {
                    "connection_id": cid,
                    "event_id": event_id,
                    "attempt": 1,
                    "attempted_at": at,
                    "duration_ms": 3,
                    "url": receiver.url("/hook"),
                    "status_code": status,
                    "error": error,
                    "response_bytes": size,
                    "response_excerpt": excerpt,
                    "outcome": outcome,
                }
                for event_id, status, error, size, excerpt, outcome in (
                    (done_id, 200, None, 2, "ok", "acknowledged"),
                    (retry_id, None, "timeout", None, None, "retry"),
                    (dropped_id, 503, None, 4, "busy", "dropped"),
                )
            ]
            until = at + timedelta(seconds=30)
            if name == "fast":
                kept = await repository.settle(reader, cid, name, done, retries, log_rows, at, until)
            else:
                async with world.db.transaction() as session:
                    await repository.write_outcomes(session, done, retries, log_rows, at)
                    kept = await repository.extend_lease(session, cid, name, until)
            async with world.db.transaction(write=False) as session:
                states = (
                    await session.execute(
                        select(Event.attempts, Event.next_attempt_at, Event.done_at, Event.redelivery)
                        .where(Event.connection_id == cid)
                        .order_by(Event.id)
                    )
                ).all()
                logged = (
                    await session.execute(
                        select(
                            DeliveryAttempt.attempt,
                            DeliveryAttempt.attempted_at,
                            DeliveryAttempt.duration_ms,
                            DeliveryAttempt.url,
                            DeliveryAttempt.status_code,
                            DeliveryAttempt.error,
                            DeliveryAttempt.response_bytes,
                            DeliveryAttempt.response_excerpt,
                            DeliveryAttempt.outcome,
                        )
                        .where(DeliveryAttempt.connection_id == cid)
                        .order_by(DeliveryAttempt.event_id)
                    )
                ).all()
                lease = (
                    await session.execute(select(Callback.leased_until).where(Callback.connection_id == cid))
                ).scalar_one()
            assert lease == until
            written[name] = (kept, [tuple(s) for s in states], [tuple(row) for row in logged])
        # a lease no longer held: the outcomes are written, and the worker is told
        cid = await connection_id(world, fast)
        assert not await repository.settle(reader, cid, "another worker's", [], [], [], at, at)
    finally:
        await reader.close()
    assert written["fast"] == written["session"]
    kept, states, logged = written["fast"]
    assert kept is True
    assert states == [(0, None, at, False), (1, at + timedelta(seconds=5), None, False), (0, None, at, False)]
    assert [(row[0], row[4], row[5], row[8]) for row in logged] == [
        (1, 200, None, "acknowledged"),
        (1, None, "timeout", "retry"),
        (1, 503, None, "dropped"),
    ]


@pytest.fixture
async def batches_of_two(fast_retries: Settings, database: Database) -> AsyncIterator[DeliveryWorker]:
    """A worker whose lanes read their due events two at a time."""
    delivery = DeliveryWorker(fast_retries, database, fast_retries.server_key(), poll_interval=0.05, batch=2)
    task = asyncio.create_task(delivery.run())
    yield delivery
    delivery.stop()
    await asyncio.wait_for(task, PATIENCE)


def written_when(worker: DeliveryWorker, receiver: Receiver, hold: Callable[[int], Awaitable[None]]) -> list[int]:
    """Each batch's write waits for `hold(n)` (n: the write's number, from 0), then notes how
    many POSTs the receiver had when it ended."""
    ended: list[int] = []
    record = worker._record

    async def held(lane, batch, outcomes):  # type: ignore[no-untyped-def]
        await hold(len(ended))
        try:
            return await record(lane, batch, outcomes)
        finally:
            ended.append(len(receiver.requests_to("/hook")))

    worker._record = held  # type: ignore[method-assign]
    return ended


async def test_the_next_batch_goes_out_while_the_last_ones_outcomes_are_written(
    client: httpx.AsyncClient,
    shop: Shop,
    listener: Listener,
    world: World,
    receiver: Receiver,
    batches_of_two: DeliveryWorker,
) -> None:
    """A batch all acknowledged is written while the next one's POSTs go out: the first write
    is held until the third event has arrived. Every event goes out once, oldest first."""
    ids = await queue_events(client, shop, listener, 5)

    async def until_the_third_arrived(n: int) -> None:
        if n == 0:
            await received(receiver, "/hook", 3)

    ended = written_when(batches_of_two, receiver, until_the_third_arrived)
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    await received(receiver, "/hook", 5)
    await wait_until_listed(client, listener, 0)
    await looked_again(batches_of_two)
    assert [r.headers["X-Event-Id"] for r in receiver.requests_to("/hook")] == ids
    assert ended[0] >= 3
    async with world.db.transaction(write=False) as session:
        log = await render_delivery_log(session, await connection_id(world, listener), 10)
    assert sorted((a["event_id"], a["attempt"], a["outcome"]) for a in log) == sorted(
        (i, 1, "acknowledged") for i in ids
    )


async def test_after_a_failed_attempt_the_next_batch_waits_for_the_outcomes_to_be_written(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, receiver: Receiver, batches_of_two: DeliveryWorker
) -> None:
    """A batch with a failure may change the callback's health (and disable it): the next
    POST waits for its write."""
    receiver.answer("/hook", lambda n: Answer(status=500 if n == 0 else 200))
    await queue_events(client, shop, listener, 4)

    async def a_while(n: int) -> None:
        if n == 0:
            await asyncio.sleep(0.3)

    ended = written_when(batches_of_two, receiver, a_while)
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    await received(receiver, "/hook", 4)
    assert ended[0] == 2


async def test_no_call_for_events_read_before_the_callback_became_passive(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, receiver: Receiver, batches_of_two: DeliveryWorker
) -> None:
    """The next batch is read while the last one goes out; a change to the callback after
    that read is checked before each of its POSTs, as within the batch."""
    await made_passive_while_sending(client, shop, listener, receiver, batches_of_two)
