"""Attacks on GET /v1/callback/stream (docs/api/callbacks-events.md "Stream"): more streams
than allowed, another connection's Last-Event-ID, a stream kept by a token that no longer
works, a reader that never reads."""

# ruff: noqa: F811 - the API's fixtures are imported, then named as parameters
from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.accounts.service import set_suspended
from comptoir.callbacks import stream as stream_module
from comptoir.callbacks.stream import streams_of
from comptoir.connections.service import revoke, set_blocked
from comptoir.db.engine import Database
from comptoir.kit import metrics
from comptoir.models import Account, Connection
from tests.api.callbacks.conftest import Listener, listener, new_listener, subscribe, touch_location  # noqa: F401
from tests.api.callbacks.streaming import OpenStream
from tests.api.conftest import Shop, app, client, shop, world  # noqa: F401 - the API's fixtures
from tests.factories import World

LOCATION_UPDATES = {"location": ["update"]}


@pytest.fixture(autouse=True)
async def streams_end(app: FastAPI) -> AsyncIterator[None]:
    yield
    await streams_of(app.state.comptoir).close()


async def connection_of(session: AsyncSession, listener: Listener) -> Connection:
    found = await session.execute(select(Connection).where(Connection.client_id == listener.client_id))
    return found.scalar_one()


async def test_a_fourth_stream_is_refused_and_the_three_open_ones_go_on(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, listener: Listener
) -> None:
    await subscribe(client, listener.token, LOCATION_UPDATES)
    held = [await OpenStream(app, listener.token).open() for _ in range(3)]
    refused = [await OpenStream(app, listener.token).open() for _ in range(5)]
    assert [stream.status for stream in refused] == [429] * 5
    assert refused[0].headers["retry-after"] == "3"
    assert metrics.STREAMS_OPEN._value.get() == 3
    await touch_location(client, shop, 61)
    for stream in held:
        [message] = await stream.events(1)
        assert json.loads(message.data or "")["new_state"]["preparation_time"] == 61
    for stream in held:
        await stream.leave()


async def test_another_connections_last_event_id_shows_nothing_of_its_events(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    victim = await new_listener(world, shop, "Victim app")
    attacker = await new_listener(world, shop, "Attacker app")
    await subscribe(client, victim.token, LOCATION_UPDATES)
    await subscribe(client, attacker.token, LOCATION_UPDATES)
    await touch_location(client, shop, 71)
    victims = (await client.get("/v1/callback/events", headers=victim.headers())).json()
    mine = (await client.get("/v1/callback/events", headers=attacker.headers())).json()

    # the victim's id is only a position among ids: the attacker gets its own events after it
    probing = await OpenStream(app, attacker.token, last_event_id=victims[0]["id"]).open()
    assert probing.status == 200
    await touch_location(client, shop, 72)
    sent = [await probing.next_event()]
    while json.loads(sent[-1].data or "")["new_state"]["preparation_time"] != 72:
        sent.append(await probing.next_event())
    own_ids = {event["id"] for event in (await client.get("/v1/callback/events", headers=attacker.headers())).json()}
    victim_ids = {event["id"] for event in (await client.get("/v1/callback/events", headers=victim.headers())).json()}
    assert {message.id for message in sent} <= own_ids
    assert {message.id for message in sent} & victim_ids == set()
    assert len(mine) == 1
    await probing.leave()


@pytest.mark.parametrize("how", ["revoked", "blocked", "suspended"])
async def test_a_stream_held_by_a_token_that_stopped_working_is_closed(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, listener: Listener, database: Database, how: str
) -> None:
    await subscribe(client, listener.token, LOCATION_UPDATES)
    stream = await OpenStream(app, listener.token).open()
    changes: dict[str, Callable[[AsyncSession, Connection], Awaitable[object]]] = {
        "revoked": revoke,
        "blocked": lambda session, connection: set_blocked(session, connection, True),
        "suspended": lambda session, _connection: _suspend(session, shop.account.id),
    }
    async with database.transaction() as session:
        connection = await connection_of(session, listener)
        await changes[how](session, connection)
    await stream.until_end()
    await stream.finished()
    assert streams_of(app.state.comptoir).count(connection.id) == 0
    again = await client.get("/v1/callback/stream", headers=listener.headers())
    assert again.status_code == 401


async def _suspend(session: AsyncSession, account_id: int) -> None:
    account = await session.get(Account, account_id)
    assert account is not None
    await set_suspended(session, account, True)


async def test_a_reader_that_never_reads_is_dropped_and_frees_its_place(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, listener: Listener, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a send that is never taken holds one message; the others wait in its queue until there
    # are more than the stream may hold: it is closed, its queue let go at once, and its
    # request ends at the send timeout
    monkeypatch.setattr(stream_module, "MAX_QUEUED", 2)
    app.state.comptoir.settings = app.state.comptoir.settings.model_copy(
        update={"callback_stream_send_timeout_seconds": 1.0}
    )
    await subscribe(client, listener.token, LOCATION_UPDATES)
    dead = [await OpenStream(app, listener.token).open() for _ in range(3)]
    for stream in dead:
        await stream.next_message()
        stream.stall()
    for minutes in (81, 82, 83, 84):
        await touch_location(client, shop, minutes)
    for stream in dead:
        await stream.finished()
    assert metrics.STREAMS_OPEN._value.get() == 0
    fresh = await OpenStream(app, listener.token).open()
    assert fresh.status == 200
    await fresh.leave()


async def test_a_stream_without_a_token_is_a_401(client: httpx.AsyncClient) -> None:
    response = await client.get("/v1/callback/stream")
    assert response.status_code == 401
