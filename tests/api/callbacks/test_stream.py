"""GET /v1/callback/stream (docs/api/callbacks-events.md "Stream"), on both databases."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from comptoir.callbacks import service
from comptoir.callbacks.stream import streams_of
from comptoir.connections.service import revoke
from comptoir.db.engine import Database
from comptoir.http import sse
from comptoir.http.protocol import drain
from comptoir.kit import metrics
from comptoir.kit.jsonutil import dumps
from comptoir.models import Connection
from tests.api.callbacks.conftest import FREE_FORM, PUBLIC, Listener, fake_dns, subscribe, touch_location
from tests.api.callbacks.streaming import OpenStream
from tests.api.conftest import Shop
from tests.api.orders.conftest import ORDER
from tests.factories import World

LOCATION_UPDATES = {"location": ["update"]}


@pytest.fixture
async def streams_end(app: FastAPI) -> AsyncIterator[None]:
    """Whatever a test leaves open is closed with its app (the shared read's LISTEN too)."""
    yield
    await streams_of(app.state.comptoir).close()


pytestmark = pytest.mark.usefixtures("streams_end")


async def listed_ids(client: httpx.AsyncClient, listener: Listener) -> list[str]:
    response = await client.get("/v1/callback/events", headers=listener.headers())
    assert response.status_code == 200, response.text
    return [event["id"] for event in response.json()]


async def event_body(client: httpx.AsyncClient, listener: Listener, event_id: str) -> object:
    response = await client.get(f"/v1/callback/events/{event_id}", headers=listener.headers())
    assert response.status_code == 200, response.text
    return response.json()


async def test_the_stream_sends_the_backlog_then_live_events_in_order(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, listener: Listener
) -> None:
    await subscribe(client, listener.token, LOCATION_UPDATES)
    for minutes in (11, 12):
        await touch_location(client, shop, minutes)
    stream = await OpenStream(app, listener.token).open()
    assert stream.status == 200
    assert stream.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert stream.headers["x-accel-buffering"] == "no"
    assert "content-encoding" not in stream.headers
    first = await stream.next_message()
    assert (first.retry, first.id) == ("3000", None)
    backlog = await stream.events(2)
    for minutes in (13, 14):
        await touch_location(client, shop, minutes)
    live = await stream.events(2)

    ids = await listed_ids(client, listener)
    assert [message.id for message in backlog + live] == ids
    assert {message.event for message in backlog + live} == {"location.update"}
    for message in backlog + live:
        assert message.id is not None
        assert message.data is not None
        assert json.loads(message.data) == await event_body(client, listener, message.id)
    assert [json.loads(m.data or "")["new_state"]["preparation_time"] for m in live] == [13, 14]
    await stream.leave()


async def test_a_messages_data_is_the_events_body_byte_for_byte(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, listener: Listener
) -> None:
    await subscribe(client, listener.token, {"order": ["create", "update"]})
    body = ORDER | {"customer_notes": 'Sonnez deux fois\nporte B \u2014 \U0001f355 "vite" \\'}
    raw = dumps(body)[:-1] + b', "custom_fields": ' + FREE_FORM + b"}"
    created = await client.post(
        "/v1/location/orders", content=raw, headers=shop.headers() | {"Content-Type": "application/json"}
    )
    assert created.status_code == 200, created.text
    backlog = await OpenStream(app, listener.token).open()
    changed = (
        '{"seller_notes": "\u00e0 la\\nligne", "custom_fields": '.encode() + FREE_FORM.replace(b"1.50", b"2.5") + b"}"
    )
    updated = await client.patch(
        f"/v1/location/orders/{created.json()['id']}",
        content=changed,
        headers=shop.headers() | {"Content-Type": "application/json"},
    )
    assert updated.status_code == 200, updated.text
    messages = await backlog.events(2)  # the creation from the backlog, the update live
    resumed = await OpenStream(app, listener.token, last_event_id=messages[0].id).open()
    [again] = await resumed.events(1)  # the update from a backlog

    assert [m.event for m in messages] == ["order.create", "order.update"]
    for message in [*messages, again]:
        response = await client.get(f"/v1/callback/events/{message.id}", headers=listener.headers())
        assert response.status_code == 200, response.text
        assert (message.data or "").encode() == response.content
    exact = b'"ratio":1.50,"big":123456789012345678901234567890,"exp":1E+5,"zero":-0.0,'
    assert exact in (messages[0].data or "").encode()
    await backlog.leave()
    await resumed.leave()


async def test_a_resumed_stream_sends_what_came_after_its_last_event_id_and_nothing_twice(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, listener: Listener
) -> None:
    await subscribe(client, listener.token, LOCATION_UPDATES)
    first = await OpenStream(app, listener.token).open()
    await touch_location(client, shop, 21)
    [received] = await first.events(1)
    await first.leave()  # the connection drops
    for minutes in (22, 23):  # while the client is away
        await touch_location(client, shop, minutes)

    resumed = await OpenStream(app, listener.token, last_event_id=received.id).open()
    after = await resumed.events(2)
    await touch_location(client, shop, 24)
    [live] = await resumed.events(1)

    assert [received.id] + [m.id for m in after] + [live.id] == await listed_ids(client, listener)
    await resumed.leave()


async def test_a_browser_resumes_with_the_last_event_id_query_parameter(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, listener: Listener
) -> None:
    await subscribe(client, listener.token, LOCATION_UPDATES)
    for minutes in (31, 32):
        await touch_location(client, shop, minutes)
    older, newer = await listed_ids(client, listener)
    stream = await OpenStream(app, listener.token, query={"last_event_id": older}).open()
    [message] = await stream.events(1)
    assert message.id == newer
    await stream.leave()


async def test_a_malformed_last_event_id_is_a_400(client: httpx.AsyncClient, listener: Listener) -> None:
    response = await client.get("/v1/callback/stream", headers={**listener.headers(), "Last-Event-ID": "no such"})
    assert response.status_code == 400
    assert response.json()["message"] == (
        "Last-Event-ID must be the id of an event, as a stream gives it, not 'no such'"
    )


async def test_the_stream_never_sends_the_clients_own_changes(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    # the shop's own token streams: the location updates it makes are its own client's
    await subscribe(client, shop.location_token, LOCATION_UPDATES)
    writer = await world.client(name="Other app")
    other = await world.token("location[orders.write]", location=shop.location, client=writer)
    stream = await OpenStream(app, shop.location_token).open()
    await touch_location(client, shop, 41)  # its own change
    response = await client.patch("/v1/location", json={"preparation_time": 42}, headers={"X-Access-Token": other})
    assert response.status_code == 200, response.text
    [message] = await stream.events(1)
    assert json.loads(message.data or "")["new_state"]["preparation_time"] == 42
    await stream.leave()


async def test_the_stream_is_refused_while_the_callback_has_a_url(
    client: httpx.AsyncClient, listener: Listener, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_dns(monkeypatch, {"hooks.example": PUBLIC})
    await subscribe(client, listener.token, LOCATION_UPDATES, url="https://hooks.example/events")
    response = await client.get("/v1/callback/stream", headers=listener.headers())
    assert response.status_code == 409
    assert response.json() == {
        "error_type": "conflict",
        "message": "The callback delivers its events to its URL: a stream needs a passive callback "
        "(POST /callback with url null)",
    }


async def test_a_stream_ends_when_its_callback_is_given_a_url(
    app: FastAPI, client: httpx.AsyncClient, listener: Listener, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_dns(monkeypatch, {"hooks.example": PUBLIC})
    await subscribe(client, listener.token, LOCATION_UPDATES)
    stream = await OpenStream(app, listener.token).open()
    await subscribe(client, listener.token, LOCATION_UPDATES, url="https://hooks.example/events")
    await stream.until_end()
    await stream.finished()


async def test_the_fourth_stream_of_a_connection_is_a_429(
    app: FastAPI, client: httpx.AsyncClient, listener: Listener
) -> None:
    await subscribe(client, listener.token, LOCATION_UPDATES)
    open_streams = [await OpenStream(app, listener.token).open() for _ in range(3)]
    assert [s.status for s in open_streams] == [200, 200, 200]
    fourth = await OpenStream(app, listener.token).open()
    assert fourth.status == 429
    assert json.loads(await fourth.body()) == {
        "error_type": "too_many_requests",
        "message": "At most 3 streams may be open per connection; close one first",
    }
    assert metrics.STREAMS_OPEN._value.get() == 3
    await open_streams[0].leave()
    again = await OpenStream(app, listener.token).open()
    assert again.status == 200
    for stream in [*open_streams[1:], again]:
        await stream.leave()
    assert metrics.STREAMS_OPEN._value.get() == 0


async def test_revoking_the_connection_closes_its_stream(
    app: FastAPI, client: httpx.AsyncClient, listener: Listener, database: Database
) -> None:
    await subscribe(client, listener.token, LOCATION_UPDATES)
    stream = await OpenStream(app, listener.token).open()
    async with database.transaction() as session:
        connection = (
            await session.execute(select(Connection).where(Connection.client_id == listener.client_id))
        ).scalar_one()
        await revoke(session, connection)
    await stream.until_end()  # ended by the server (its checks run every second)
    await stream.finished()
    assert streams_of(app.state.comptoir).count(connection.id) == 0


async def test_a_shutdown_ends_open_streams_cleanly(
    app: FastAPI, client: httpx.AsyncClient, listener: Listener
) -> None:
    await subscribe(client, listener.token, LOCATION_UPDATES)
    stream = await OpenStream(app, listener.token).open()
    await stream.next_message()
    drain()  # what the server protocol calls at SIGTERM
    await stream.until_end()
    await stream.finished()
    assert stream.ended


async def test_a_client_that_stops_reading_is_dropped(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, listener: Listener
) -> None:
    app.state.comptoir.settings = app.state.comptoir.settings.model_copy(
        update={"callback_stream_send_timeout_seconds": 0.2}
    )
    await subscribe(client, listener.token, LOCATION_UPDATES)
    stream = await OpenStream(app, listener.token).open()
    await stream.next_message()
    stream.stall()
    await touch_location(client, shop, 51)
    await stream.finished()  # without the client ever leaving
    assert metrics.STREAMS_OPEN._value.get() == 0


def remaining(ratelimit: str) -> list[int]:
    """The `r=` of each window of a RateLimit header."""
    return [int(part.split(";r=")[1].split(";")[0]) for part in ratelimit.split(", ")]


async def test_opening_a_stream_counts_as_one_request_however_much_it_sends(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, listener: Listener
) -> None:
    await subscribe(client, listener.token, LOCATION_UPDATES)
    stream = await OpenStream(app, listener.token).open()
    at_open = remaining(stream.headers["ratelimit"])
    for minutes in (61, 62, 63):
        await touch_location(client, shop, minutes)
    await stream.events(3)
    response = await client.get("/v1/callback", headers=listener.headers())
    assert remaining(response.headers["ratelimit"]) == [left - 1 for left in at_open]
    await stream.leave()


async def test_a_quiet_stream_sends_a_comment_line_at_each_ping(
    app: FastAPI, client: httpx.AsyncClient, listener: Listener, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sse, "PING_SECONDS", 0.05)  # 15 s in service
    await subscribe(client, listener.token, LOCATION_UPDATES)
    stream = await OpenStream(app, listener.token).open()
    assert (await stream.next_message()).comments == ["open"]
    assert [(await stream.next_message()).comments for _ in range(2)] == [["ping"], ["ping"]]
    await stream.leave()


async def test_an_event_committed_after_a_later_key_was_read_still_reaches_the_stream(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, listener: Listener
) -> None:
    # Keys are taken at insert and seen at commit: the shared read may already have read a
    # later key (another connection's) when an earlier one commits. It looks again at the
    # keys of the last seconds, once a second.
    await subscribe(client, listener.token, LOCATION_UPDATES)
    stream = await OpenStream(app, listener.token).open()
    await stream.next_message()
    streams = streams_of(app.state.comptoir)
    streams._top += 1_000_000  # as if a much later key had been read
    await touch_location(client, shop, 91)
    [message] = await stream.events(1)
    assert json.loads(message.data or "")["new_state"]["preparation_time"] == 91
    await stream.leave()


async def test_the_settle_window_is_read_again_by_its_keys_alone(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, listener: Listener
) -> None:
    await subscribe(client, listener.token, LOCATION_UPDATES)
    for minutes in (21, 22, 23):
        await touch_location(client, shop, minutes)
    db: Database = app.state.comptoir.db
    async with db.transaction(write=False) as session:
        connection = await session.scalar(select(Connection).where(Connection.client_id == listener.client_id))
        assert connection is not None
    reader = app.state.comptoir.fast
    rows = await service.pending_after(reader, [connection.id, connection.id + 1000], 0, 10)
    keys = [key for key, _, _ in rows]
    assert len(keys) == 3
    assert sorted(await service.pending_keys(reader, [connection.id], keys[0], keys[2])) == keys[1:]
    assert await service.pending_keys(reader, [connection.id + 1000], 0, keys[2]) == []
    missed = await service.pending_of(reader, [keys[2], keys[0]])
    assert [key for key, _, _ in missed] == [keys[0], keys[2]]
    assert [json.loads(dumps(body))["new_state"]["preparation_time"] for _, _, body in missed] == [21, 23]


async def test_a_head_of_the_stream_answers_its_headers_at_once_and_holds_no_stream(
    app: FastAPI, client: httpx.AsyncClient, listener: Listener
) -> None:
    """HEAD answers what GET would without its body (docs/api/conventions.md "Methods"): for a
    stream, its headers, at once, and no place among the connection's 3."""
    await subscribe(client, listener.token, LOCATION_UPDATES)
    for _ in range(4):
        head = await client.head("/v1/callback/stream", headers={"X-Access-Token": listener.token})
        assert (head.status_code, head.headers["content-type"], head.content) == (
            200,
            "text/event-stream; charset=utf-8",
            b"",
        )
    open_streams = [await OpenStream(app, listener.token).open() for _ in range(3)]
    assert [s.status for s in open_streams] == [200, 200, 200]
    for stream in open_streams:
        await stream.leave()
    assert metrics.STREAMS_OPEN._value.get() == 0
