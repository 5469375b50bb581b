"""Callbacks cannot be aimed inside the network (SSRF), and what a stranger sends cannot break
the callback worker or the request log.

A callback URL may reach only public addresses, unless the operator allows a network with
COMPTOIR_CALLBACK_ALLOWED_NETWORKS: refused at registration (an address literal in any
spelling, a localhost name, a name resolving to a refused address, a name that does not
resolve, a URL hiding characters) with a 422 naming `url`, and again at delivery after DNS
resolution, where the connection goes to the address checked. These tests run with no
network allowed unless they say so, and resolve names only through `fake_dns`.
"""

# ruff: noqa: F811 - the API's fixtures are imported, then named as parameters
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from comptoir.callbacks.service import render_delivery_log
from comptoir.callbacks.worker import DeliveryWorker
from comptoir.config import Settings
from comptoir.db.engine import Database
from comptoir.kit import clock
from comptoir.models import Callback, Connection, Event, RequestLog
from comptoir.request_logs.buffer import Record
from tests.api.callbacks.conftest import PUBLIC, Listener, fake_dns, looked_again, new_listener, touch_location
from tests.api.conftest import Shop, app, client, shop, world  # noqa: F401 - the API's fixtures
from tests.api.web.test_back_office_login import log_in
from tests.factories import World
from tests.receiver import Answer, Receiver, running_receiver
from tests.waiting import PATIENCE, eventually

LOOPBACK = "127.0.0.0/8,::1/128"

# Every spelling of an internal address an HTTP client or the system resolver accepts.
SSRF_URLS = [
    "http://127.0.0.1/",
    "http://127.0.0.1:5432/",
    "http://0x7f000001/",
    "http://2130706433/",
    "http://017700000001/",
    "http://0177.0.0.1/",
    "http://0x7f.0.0.1/",
    "http://127.1/",
    "http://127.0.0.1./",
    "http://[::1]/",
    "http://[0:0:0:0:0:0:0:1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[::127.0.0.1]/",
    "http://[2002:7f00:1::1]/",
    "http://[64:ff9b::10.0.0.1]/",
    "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fe80::1%25eth0]/",
    "http://[fd00::1]/",
    "http://[fec0::1]/",
    "http://0.0.0.0/",
    "http://0/",
    "http://[::]/",
    "http://10.0.0.1/",
    "http://172.16.0.1/",
    "http://192.168.1.1/",
    "http://100.64.0.1/",
    "http://224.0.0.1/",
    "http://[ff02::1]/",
    "http://240.0.0.1/",
    "http://255.255.255.255/",
    "http://192.0.2.1/",
    "http://localhost/",
    "http://LOCALHOST./",
    "http://api.localhost:8080/",
    "HTTP://127.0.0.1/",
    "http://１２７．０．０．１/",
    "https://user:pw@127.0.0.1:8443/hook",
]

ENABLED = {"disabled_at": None, "disabled_reason": None}


RETRY_BASE = 3.0


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """No network allowed (the operator's default), a 3 s retry base and a 1.5 s timeout (the
    stalling receiver stalls longer)."""
    return settings.model_copy(
        update={
            "callback_allowed_networks": "",
            "callback_retry_base_seconds": RETRY_BASE,
            "callback_timeout_seconds": 1.5,
        }
    )


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver() as running:
        yield running


@pytest.fixture
async def listener(world: World, shop: Shop) -> Listener:
    return await new_listener(world, shop, "Listening app")


StartWorker = Callable[..., Awaitable[DeliveryWorker]]


@pytest.fixture
async def start_worker(settings: Settings, database: Database) -> AsyncIterator[StartWorker]:
    running: list[tuple[DeliveryWorker, asyncio.Task[None]]] = []

    async def start(allowed: str = "") -> DeliveryWorker:
        worker_settings = settings.model_copy(update={"callback_allowed_networks": allowed})
        worker = DeliveryWorker(worker_settings, database, settings.server_key(), poll_interval=0.05)
        running.append((worker, asyncio.create_task(worker.run())))
        return worker

    yield start
    for worker, task in running:
        worker.stop()
        await asyncio.wait_for(task, PATIENCE)


async def post_callback(client: httpx.AsyncClient, listener: Listener, url: str | None) -> httpx.Response:
    return await client.post(
        "/v1/callback", json={"url": url, "events": {"location": ["update"]}}, headers=listener.headers()
    )


async def connection_of(world: World, listener: Listener) -> int:
    async with world.db.transaction(write=False) as session:
        return (
            await session.execute(select(Connection.id).where(Connection.client_id == listener.client_id))
        ).scalar_one()


async def attempts_logged(world: World, listener: Listener, count: int) -> list[dict[str, Any]]:
    connection_id = await connection_of(world, listener)
    log: list[dict[str, Any]] = []

    async def logged() -> bool:
        nonlocal log
        async with world.db.transaction(write=False) as session:
            log = await render_delivery_log(session, connection_id, 50)
        return len(log) >= count

    await eventually(logged, f"{count} attempts logged")
    return log


async def pending_events(world: World, listener: Listener) -> list[tuple[int, datetime]]:
    connection_id = await connection_of(world, listener)
    async with world.db.transaction(write=False) as session:
        rows = await session.execute(
            select(Event.attempts, Event.next_attempt_at).where(
                Event.connection_id == connection_id, Event.done_at.is_(None)
            )
        )
        return [(attempts, next_at) for attempts, next_at in rows]


async def counted(world: World, listener: Listener) -> list[tuple[int, datetime]]:
    """The pending events once the first attempt is counted."""
    events: list[tuple[int, datetime]] = []

    async def first_counted() -> bool:
        nonlocal events
        events = await pending_events(world, listener)
        return not events or events[0][0] > 0

    await eventually(first_counted, "the first attempt counted")
    return events


@dataclass
class Delivery:
    """A listener whose events a worker delivers: the steps the delivery tests share."""

    client: httpx.AsyncClient
    shop: Shop
    listener: Listener
    world: World
    receiver: Receiver
    start_worker: StartWorker
    worker: DeliveryWorker | None = None  # the one `touch` started

    def receiver_port(self) -> str:
        return self.receiver.url("/").split(":")[2].rstrip("/")

    async def subscribe(self) -> None:
        """Subscribes the listener to the receiver's /hook (stored as it is, unchecked)."""
        await self.world.subscribe(self.listener.token, self.receiver.url("/hook"), {"location": ["update"]})

    async def touch(self, number: int, allowed: str = "") -> datetime:
        """Starts a worker allowing `allowed`, then updates the location: when it was updated."""
        self.worker = await self.start_worker(allowed=allowed)
        started = clock.now()
        await touch_location(self.client, self.shop, number)
        return started

    async def attempts(self, count: int) -> list[dict[str, Any]]:
        return await attempts_logged(self.world, self.listener, count)

    async def pending(self) -> list[tuple[int, datetime]]:
        return await pending_events(self.world, self.listener)

    async def none_resent_within_the_backoff(self) -> None:
        """Once the worker has looked again (a resend due at once would have been sent by
        then), no POST followed the first before the retry base had passed."""
        assert self.worker is not None
        await looked_again(self.worker)
        first, *others = self.receiver.requests_to("/hook")
        assert [r for r in others if r.at - first.at < RETRY_BASE] == []

    async def connection_public_id(self) -> str:
        async with self.world.db.transaction(write=False) as session:
            row = await session.get(Connection, await connection_of(self.world, self.listener))
            assert row is not None
            return row.public_id


@pytest.fixture
def delivery(
    client: httpx.AsyncClient,
    shop: Shop,
    listener: Listener,
    world: World,
    receiver: Receiver,
    start_worker: StartWorker,
) -> Delivery:
    return Delivery(client, shop, listener, world, receiver, start_worker)


def assert_counted_once_with_a_backoff(events: list[tuple[int, datetime]], started: datetime) -> None:
    [(attempts, next_at)] = events
    assert attempts == 1
    assert (next_at - started).total_seconds() >= RETRY_BASE


# --- at registration ------------------------------------------------------------------------


def test_allowed_networks_are_cidr_networks_or_the_settings_are_refused() -> None:
    assert [str(n) for n in Settings(callback_allowed_networks=" 127.0.0.0/8, ::1 ,10.1.2.3/8").callback_networks] == [
        "127.0.0.0/8",
        "::1/128",
        "10.0.0.0/8",
    ]
    assert Settings().callback_networks == ()
    with pytest.raises(ValueError, match="'localhost' is not a CIDR network"):
        Settings(callback_allowed_networks="127.0.0.0/8,localhost")


@pytest.mark.parametrize("url", SSRF_URLS)
async def test_ssrf_callback_url_aimed_inside_the_network_is_refused_with_422_naming_url(
    client: httpx.AsyncClient, listener: Listener, url: str
) -> None:
    answer = await post_callback(client, listener, url)
    assert answer.status_code == 422, answer.text
    body = answer.json()
    assert body["error_type"] == "unprocessable_entity"
    assert [error["field"] for error in body["errors"]] == ["url"]
    assert "callbacks reach only public addresses" in body["errors"][0]["message"]
    stored = await client.get("/v1/callback", headers=listener.headers())
    assert stored.json() == {"url": None, "events": {}, **ENABLED}


async def test_ssrf_refused_url_leaves_the_callback_before_it_unchanged(
    client: httpx.AsyncClient, listener: Listener, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_dns(monkeypatch, {"pos.example": PUBLIC})
    assert (await post_callback(client, listener, "https://pos.example/hook")).status_code == 200
    assert (await post_callback(client, listener, "http://[::ffff:169.254.169.254]/")).status_code == 422
    stored = await client.get("/v1/callback", headers=listener.headers())
    assert stored.json() == {"url": "https://pos.example/hook", "events": {"location": ["update"]}, **ENABLED}


@pytest.mark.parametrize("url", ["https://pos.example/hook", "http://8.8.8.8/", "http://[2606:4700:4700::1111]/"])
async def test_public_callback_urls_are_accepted(
    client: httpx.AsyncClient, listener: Listener, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_dns(monkeypatch, {"pos.example": PUBLIC})
    answer = await post_callback(client, listener, url)
    assert answer.status_code == 200, answer.text
    assert answer.json()["url"] == url


async def test_an_allowed_network_may_be_registered(
    app: FastAPI, client: httpx.AsyncClient, listener: Listener
) -> None:
    state = app.state.comptoir
    state.settings = state.settings.model_copy(update={"callback_allowed_networks": LOOPBACK})
    for url in ("http://127.0.0.1:9000/hook", "http://[::1]:9000/hook", "http://localhost:9000/hook"):
        answer = await post_callback(client, listener, url)
        assert answer.status_code == 200, answer.text
    assert (await post_callback(client, listener, "http://10.0.0.1/hook")).status_code == 422


HIDDEN = "must not contain control characters, line breaks or invisible formatting marks"
NUL = "must not contain a NUL character"

# URL spellings whose called URL would differ from the one shown (or which would split a header).
HIDDEN_URLS = [
    ("http://8.8.8.8/hook\r\nX-Injected: 1", 0x0D, 20),
    ("http://8.8.8.8/hook\nrest", 0x0A, 20),
    ("http://8.8.8.8/hook\x00", 0x00, 20),  # refused as every NUL of a body is
    ("http://8.8.8.8/ho\tok", 0x09, 18),
    ("http://8.8.8.8/hook\x7f", 0x7F, 20),
    ("http://8.8.8.8/hook\x85", 0x85, 20),
    ("http://8.8.8.8/hook\x9b2J", 0x9B, 20),
    ("http://8.8.8.8/\u202ekooh", 0x202E, 16),
    ("http://8.8.8.8/\u202ahook", 0x202A, 16),
    ("http://8.8.8.8/\u200ehook", 0x200E, 16),
    ("http://8.8.8.8/\u200fhook", 0x200F, 16),
    ("http://8.8.8.8/\u2066hook\u2069", 0x2066, 16),
    ("http://8.8.8.8/\u2067hook", 0x2067, 16),
    ("http://8.8.8.8/\u2068hook", 0x2068, 16),
    ("http://8.8.8.8/ho\u200bok", 0x200B, 18),
    ("http://8.8.8.8/ho\u200dok", 0x200D, 18),
    ("http://8.8.8.8/\ufeffhook", 0xFEFF, 16),
    ("http://8.8.8.8/ho\u00adok", 0x00AD, 18),
    ("http://8.8.8.8/hook\u2028", 0x2028, 20),
    ("https://pos\u200b.example/hook", 0x200B, 12),
    ("https://pos.example\u202e/kooh", 0x202E, 20),
]


@pytest.mark.parametrize(("url", "code_point", "position"), HIDDEN_URLS)
async def test_callback_url_hiding_characters_is_refused_with_422_naming_url(
    client: httpx.AsyncClient,
    listener: Listener,
    monkeypatch: pytest.MonkeyPatch,
    url: str,
    code_point: int,
    position: int,
) -> None:
    fake_dns(monkeypatch, {"pos.example": PUBLIC})
    assert (await post_callback(client, listener, "http://8.8.8.8/hook")).status_code == 200
    answer = await post_callback(client, listener, url)
    assert answer.status_code == 422, answer.text
    message = f"{HIDDEN} (U+{code_point:04X} at position {position})" if code_point else NUL
    assert answer.json() == {
        "error_type": "unprocessable_entity",
        "message": f"url: {message}",
        "errors": [{"field": "url", "message": message}],
    }
    stored = await client.get("/v1/callback", headers=listener.headers())
    assert stored.json() == {"url": "http://8.8.8.8/hook", "events": {"location": ["update"]}, **ENABLED}


async def test_ssrf_via_dns_a_name_resolving_to_a_loopback_address_is_refused_at_registration(
    client: httpx.AsyncClient, listener: Listener, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_dns(monkeypatch, {"internal.example": "127.0.0.1", "pos.example": PUBLIC})
    assert (await post_callback(client, listener, "https://pos.example/hook")).status_code == 200
    answer = await post_callback(client, listener, "http://internal.example:8080/hook")
    assert answer.status_code == 422, answer.text
    message = (
        "'http://internal.example:8080/hook' cannot be a callback: 127.0.0.1 is a loopback address "
        "(internal.example resolves to it); callbacks reach only public addresses unless the operator "
        "allows the network"
    )
    assert answer.json() == {
        "error_type": "unprocessable_entity",
        "message": f"url: {message}",
        "errors": [{"field": "url", "message": message}],
    }
    stored = await client.get("/v1/callback", headers=listener.headers())
    assert stored.json() == {"url": "https://pos.example/hook", "events": {"location": ["update"]}, **ENABLED}


async def test_ssrf_via_dns_any_refused_address_of_a_name_refuses_it_at_registration(
    client: httpx.AsyncClient, listener: Listener, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_dns(monkeypatch, {"metadata.example": "169.254.169.254", "db.example": "10.1.2.3"})
    for url, reason in [
        ("http://metadata.example/latest", "169.254.169.254 is a link-local address"),
        ("http://db.example:5432/", "10.1.2.3 is a private address"),
    ]:
        answer = await post_callback(client, listener, url)
        assert answer.status_code == 422, answer.text
        assert reason in answer.json()["errors"][0]["message"]
    async with world.db.transaction(write=False) as session:
        assert list(await session.scalars(select(Callback))) == []


async def test_a_name_resolving_to_an_allowed_network_may_be_registered(
    app: FastAPI, client: httpx.AsyncClient, listener: Listener, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_dns(monkeypatch, {"internal.example": "127.0.0.1"})
    state = app.state.comptoir
    state.settings = state.settings.model_copy(update={"callback_allowed_networks": LOOPBACK})
    answer = await post_callback(client, listener, "http://internal.example:8080/hook")
    assert answer.status_code == 200, answer.text
    assert answer.json()["url"] == "http://internal.example:8080/hook"


async def test_a_name_that_does_not_resolve_is_refused_at_registration(
    client: httpx.AsyncClient, listener: Listener, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_dns(monkeypatch, {"nowhere.example": None})
    answer = await post_callback(client, listener, "https://nowhere.example/hook")
    message = "'https://nowhere.example/hook' cannot be a callback: nowhere.example does not resolve to an address"
    assert (answer.status_code, answer.json()) == (
        422,
        {
            "error_type": "unprocessable_entity",
            "message": f"url: {message}",
            "errors": [{"field": "url", "message": message}],
        },
    )
    async with world.db.transaction(write=False) as session:
        assert list(await session.scalars(select(Callback))) == []


# --- at delivery ----------------------------------------------------------------------------


async def test_ssrf_via_dns_a_name_rebound_to_a_loopback_address_is_refused_at_delivery(
    delivery: Delivery, monkeypatch: pytest.MonkeyPatch
) -> None:
    dns = fake_dns(monkeypatch, {"internal.example": PUBLIC})
    url = f"http://internal.example:{delivery.receiver_port()}/hook"
    assert (await post_callback(delivery.client, delivery.listener, url)).status_code == 200  # public then
    dns["internal.example"] = "127.0.0.1"  # the record changes after registration
    await delivery.touch(41)
    [attempt] = await delivery.attempts(1)
    assert attempt["error"] == "refused: 127.0.0.1 is a loopback address"
    assert (attempt["attempt"], attempt["status_code"], attempt["outcome"]) == (1, None, "retry")
    [(attempts, next_at)] = await delivery.pending()
    assert attempts == 1
    assert next_at > clock.now()  # the normal backoff
    assert delivery.receiver.received == []


async def test_ssrf_via_dns_a_name_rebound_to_a_private_address_is_refused_at_delivery(
    delivery: Delivery, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, listener = delivery.client, delivery.listener
    dns = fake_dns(monkeypatch, {"metadata.example": PUBLIC, "db.example": PUBLIC})
    assert (await post_callback(client, listener, "http://metadata.example/latest")).status_code == 200
    dns.update({"metadata.example": "169.254.169.254", "db.example": "10.1.2.3"})
    await delivery.touch(42)
    [attempt] = await delivery.attempts(1)
    assert attempt["error"] == "refused: 169.254.169.254 is a link-local address"
    dns["db.example"] = PUBLIC
    assert (await post_callback(client, listener, "http://db.example:5432/")).status_code == 200
    dns["db.example"] = "10.1.2.3"
    await touch_location(client, delivery.shop, 43)
    log = await delivery.attempts(2)
    assert "refused: 10.1.2.3 is a private address" in {a["error"] for a in log}


async def test_ssrf_address_stored_before_the_operator_refused_it_is_not_reached(delivery: Delivery) -> None:
    await delivery.subscribe()  # allowed then
    await delivery.touch(44)  # not any more
    [attempt] = await delivery.attempts(1)
    assert attempt["error"] == "refused: 127.0.0.1 is a loopback address"
    assert attempt["outcome"] == "retry"
    assert delivery.worker is not None
    await looked_again(delivery.worker)
    assert delivery.receiver.received == []


async def test_the_back_office_explains_a_refused_delivery(delivery: Delivery) -> None:
    await delivery.subscribe()
    await delivery.touch(45)
    await delivery.attempts(1)
    await log_in(delivery.client, "owner@example.com")
    page = (await delivery.client.get(f"/connections/{await delivery.connection_public_id()}")).text
    assert "<p>Failed: refused: 127.0.0.1 is a loopback address</p>" in page
    assert "COMPTOIR_CALLBACK_ALLOWED_NETWORKS" in page


async def test_an_allowed_network_is_reached_through_the_checked_address_with_its_host_name(
    app: FastAPI, delivery: Delivery, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = delivery.receiver_port()
    fake_dns(monkeypatch, {"receiver.example": "127.0.0.1"})
    state = app.state.comptoir
    state.settings = state.settings.model_copy(update={"callback_allowed_networks": "127.0.0.0/8"})
    url = f"http://receiver.example:{port}/hook"
    assert (await post_callback(delivery.client, delivery.listener, url)).status_code == 200
    await delivery.touch(46, allowed="127.0.0.0/8")
    [request] = await asyncio.to_thread(delivery.receiver.wait_for, "/hook", 1)
    assert request.headers["Host"] == f"receiver.example:{port}"


async def test_ssrf_redirect_to_an_internal_address_is_not_followed(delivery: Delivery) -> None:
    receiver = delivery.receiver
    receiver.answer("/hook", Answer(status=302, body=b"", headers={"Location": receiver.url("/internal")}))
    await delivery.subscribe()
    await delivery.touch(47, allowed=LOOPBACK)
    [attempt] = await delivery.attempts(1)
    assert (attempt["status_code"], attempt["outcome"]) == (302, "acknowledged")
    assert delivery.worker is not None
    await looked_again(delivery.worker)
    assert receiver.requests_to("/internal") == []


# --- what a receiver answers ------------------------------------------------------------------


@pytest.mark.parametrize("status", [200, 503])
async def test_a_receiver_answering_nul_bytes_is_logged_as_safe_text_and_counted(
    delivery: Delivery, status: int
) -> None:
    delivery.receiver.answer("/hook", Answer(status=status, body=b"ok\x00\xff\xed\xa0\x80"))
    clock.freeze()  # a resend on the schedule is never due while the test looks for one
    await delivery.subscribe()
    started = await delivery.touch(48, allowed=LOOPBACK)
    [attempt] = await delivery.attempts(1)
    assert attempt["response_excerpt"] == "ok" + "\ufffd" * 5  # NUL, then 4 bytes of bad UTF-8
    assert attempt["response_bytes"] == 7
    assert attempt["status_code"] == status
    await delivery.none_resent_within_the_backoff()  # (not 830 POSTs in 10 s)
    if status == 200:
        assert attempt["outcome"] == "acknowledged"
        assert await delivery.pending() == []
    else:
        assert attempt["outcome"] == "retry"
        assert_counted_once_with_a_backoff(await delivery.pending(), started)


async def test_a_log_line_that_cannot_be_written_never_skips_the_count_or_the_backoff(
    delivery: Delivery, monkeypatch: pytest.MonkeyPatch
) -> None:
    write = DeliveryWorker._write

    async def failing_log(self: DeliveryWorker, lane: Any, done: Any, retries: Any, log_rows: Any, health: Any) -> bool:
        if log_rows:
            raise RuntimeError("the delivery log cannot be written")
        return await write(self, lane, done, retries, log_rows, health)

    monkeypatch.setattr(DeliveryWorker, "_write", failing_log)
    delivery.receiver.answer("/hook", Answer(status=503, body=b"busy"))
    clock.freeze()  # a resend on the schedule is never due while the test looks for one
    await delivery.subscribe()
    started = await delivery.touch(49, allowed=LOOPBACK)
    await asyncio.to_thread(delivery.receiver.wait_for, "/hook", 1)
    assert_counted_once_with_a_backoff(await counted(delivery.world, delivery.listener), started)
    await delivery.none_resent_within_the_backoff()


async def test_back_office_shows_a_reply_only_as_status_size_and_a_short_escaped_excerpt(
    delivery: Delivery,
) -> None:
    reply = b"<script>alert(1)</script>\x1b[2J\x00" + b"A" * 5000
    delivery.receiver.answer("/hook", Answer(status=200, body=reply))
    await delivery.subscribe()
    await delivery.touch(50, allowed=LOOPBACK)
    await delivery.attempts(1)
    public_id = await delivery.connection_public_id()
    await log_in(delivery.client, "owner@example.com")
    page = (await delivery.client.get(f"/connections/{public_id}")).text
    assert f"<p>Reply: status 200, {len(reply)} bytes</p>" in page
    shown = "&lt;script&gt;alert(1)&lt;/script&gt;\ufffd[2J\ufffd" + "A" * 170 + "…"
    assert f"<pre>{shown}</pre>" in page
    assert "<script>alert" not in page
    assert "A" * 171 not in page
    assert "\x1b" not in page
    assert "\x00" not in page


async def test_slow_reply_body_stalling_past_the_timeout_is_a_failed_attempt_and_resent(delivery: Delivery) -> None:
    """A receiver answering 200 then stalling its body past the timeout (1.5 s here) has not
    acknowledged: the attempt is logged failed and the event is resent on the schedule."""
    # past the first 800 bytes (the excerpt kept), with a Content-Length: the body is still read
    stalled = Answer(status=200, body=b"ok" + b"." * 2000, pause_after=1000, stall=4)
    delivery.receiver.per_event = lambda n: stalled if n == 0 else Answer(status=200)
    await delivery.subscribe()
    started = await delivery.touch(51, allowed=LOOPBACK)
    [attempt] = await delivery.attempts(1)
    assert (attempt["attempt"], attempt["status_code"], attempt["error"], attempt["outcome"]) == (
        1,
        200,
        "timeout",
        "retry",
    )
    assert_counted_once_with_a_backoff(await delivery.pending(), started)
    await asyncio.to_thread(delivery.receiver.wait_for, "/hook", 2)
    log = await delivery.attempts(2)
    assert [(a["attempt"], a["status_code"], a["error"], a["outcome"]) for a in log] == [
        (2, 200, None, "acknowledged"),
        (1, 200, "timeout", "retry"),
    ]
    assert await delivery.pending() == []


# --- the request log --------------------------------------------------------------------------


async def test_a_path_with_nul_is_logged_and_other_connections_lines_are_saved(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    odd = await client.get("/v1/locations/abc%00%ff", headers=shop.headers())
    assert odd.status_code == 404
    fine = await client.get("/v1/location", headers=shop.headers())
    assert fine.status_code == 200
    assert await app.state.comptoir.request_log.flush() == 2
    async with world.db.transaction(write=False) as session:
        paths = set(await session.scalars(select(RequestLog.path)))
    assert "/v1/location" in paths
    [logged] = [path for path in paths if path.startswith("/v1/locations/")]
    assert "\x00" not in logged
    assert logged.startswith("/v1/locations/abc\ufffd")


async def test_a_request_log_line_that_cannot_be_written_never_loses_the_others(
    app: FastAPI, shop: Shop, world: World
) -> None:
    async with world.db.transaction(write=False) as session:
        ids = list(await session.scalars(select(Connection.id).order_by(Connection.id)))
    buffer = app.state.comptoir.request_log
    for n, connection_id in enumerate([*ids, ids[0]]):
        status: Any = None if n == len(ids) else 200  # the last line cannot be written
        buffer.add(
            Record(
                connection_id, clock.now(), f"r{n}", "GET", "/v1/location", status, 1,
                b"", 0, "", b"{}", 2, "application/json",
            )
        )  # fmt: skip
    assert await buffer.flush() == len(ids)
    async with world.db.transaction(write=False) as session:
        saved = sorted(await session.scalars(select(RequestLog.request_id)))
    assert saved == sorted(f"r{n}" for n in range(len(ids)))


async def test_ssrf_refused_registration_stores_no_callback_row(
    client: httpx.AsyncClient, listener: Listener, world: World
) -> None:
    assert (await post_callback(client, listener, "http://0x7f000001/")).status_code == 422
    async with world.db.transaction(write=False) as session:
        assert list(await session.scalars(select(Callback))) == []
