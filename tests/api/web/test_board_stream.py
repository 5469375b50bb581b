"""docs/back-office.md "Orders": the live board's stream (GET /locations/:id/today/stream)
says `changed` as soon as an order of its location, or the location, changed, nothing for
another location; it pings, ends when the session ends and at a shutdown. On both databases."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import update

from comptoir.callbacks.stream import streams_of
from comptoir.events import signals
from comptoir.http import sse
from comptoir.http.protocol import drain
from comptoir.kit import metrics
from comptoir.models import Account
from comptoir.web import board_stream
from comptoir.web.board_stream import boards_of
from tests.api.callbacks.conftest import touch_location
from tests.api.callbacks.streaming import OpenStream, Sse
from tests.api.conftest import Shop
from tests.api.orders.conftest import created
from tests.api.web.test_back_office_login import csrf_of, log_in
from tests.factories import World

SOON = 1.0  # seconds: a change reaches an open board within this
NEW = {"status": "new", "items": [{"product_name": "Croque", "price": "6.50 EUR", "quantity": "1"}]}


@pytest.fixture
async def boards_end(app: FastAPI) -> AsyncIterator[None]:
    """Whatever a test leaves open is closed with its app."""
    yield
    await boards_of(app.state.comptoir).close()


pytestmark = pytest.mark.usefixtures("boards_end")


def cookie_of(client: httpx.AsyncClient) -> str:
    return "; ".join(f"{name}={value}" for name, value in client.cookies.items())


async def open_board(app: FastAPI, client: httpx.AsyncClient, location_id: str) -> OpenStream:
    """The board stream of a location, opened by the browser session of `client`; its first
    message (the reconnection delay) read."""
    stream = await OpenStream(app, cookie=cookie_of(client), path=f"/locations/{location_id}/today/stream").open()
    assert stream.status == 200
    opening = await stream.next_message()
    assert (opening.retry, opening.comments) == ("3000", ["open"])
    return stream


async def news(stream: OpenStream, within: float = SOON) -> Sse:
    """The next message that is not a comment, within `within` seconds."""
    while True:
        found = await asyncio.wait_for(stream.next_message(), within)
        if found.event is not None:
            return found


async def test_the_board_hears_of_an_order_of_its_location_created_then_changed_within_a_second(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop
) -> None:
    await log_in(client, "owner@example.com")
    stream = await open_board(app, client, shop.location.public_id)
    assert stream.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert stream.headers["x-accel-buffering"] == "no"
    assert stream.headers["cache-control"] == "no-store"
    assert metrics.BOARD_STREAMS_OPEN._value.get() == 1

    order = await created(client, shop, NEW)
    message = await news(stream)
    assert (message.event, message.data) == ("changed", "changed")

    accepted = await client.patch(
        f"/v1/location/orders/{order['id']}", json={"status": "accepted"}, headers=shop.headers()
    )
    assert accepted.status_code == 200, accepted.text
    assert (await news(stream)).event == "changed"
    await stream.leave()
    assert metrics.BOARD_STREAMS_OPEN._value.get() == 0


async def test_the_board_hears_of_a_change_of_its_location(app: FastAPI, client: httpx.AsyncClient, shop: Shop) -> None:
    await log_in(client, "owner@example.com")
    stream = await open_board(app, client, shop.location.public_id)
    await touch_location(client, shop, 25)  # due times move with the preparation time
    assert (await news(stream)).event == "changed"
    await stream.leave()


async def test_another_locations_order_sends_nothing(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    stream = await open_board(app, client, shop.location.public_id)
    lyon = await world.token("location[orders.write]", location=shop.other_location)
    await created(client, shop, NEW, lyon)
    with pytest.raises(TimeoutError):
        await news(stream, 1.5)
    await created(client, shop, NEW)  # the stream was listening all along
    assert (await news(stream)).event == "changed"
    await stream.leave()


async def test_changes_in_a_row_while_a_message_waits_make_one_message(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop
) -> None:
    await log_in(client, "owner@example.com")
    stream = await open_board(app, client, shop.location.public_id)
    watcher = boards_of(app.state.comptoir).watchers()[0]
    for _ in range(3):
        watcher.changed()  # as three commits heard before the stream's task runs
    assert (await news(stream)).event == "changed"
    with pytest.raises(TimeoutError):
        await news(stream, 0.5)
    await stream.leave()


async def test_a_change_no_signal_told_of_is_read_from_the_changes_within_a_second(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as a commit of another process that made no events: no NOTIFY, no in-process signal
    await log_in(client, "owner@example.com")
    stream = await open_board(app, client, shop.location.public_id)
    monkeypatch.setattr(signals, "_listeners", set())  # this process's commits tell no one
    await created(client, shop, NEW)
    assert (await news(stream, SOON + board_stream.READ_SECONDS)).event == "changed"
    await stream.leave()


async def test_a_change_committed_below_a_key_already_read_still_reaches_the_board(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop
) -> None:
    # Keys are taken at insert and seen at commit: the read may already have seen a later
    # key when an earlier one commits. So the read has no "last key read" cut-off: it reads
    # every key above the floor of a few seconds ago, but those it read already.
    await log_in(client, "owner@example.com")
    stream = await open_board(app, client, shop.location.public_id)
    boards = boards_of(app.state.comptoir)
    await created(client, shop, NEW)
    assert (await news(stream)).event == "changed"
    later = max(boards._seen) + 1_000_000  # as if a much later key had been read
    boards._seen[later] = time.monotonic()
    await created(client, shop, NEW)
    assert (await news(stream)).event == "changed"
    await stream.leave()


async def test_a_quiet_board_stream_sends_a_comment_line_at_each_ping(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sse, "PING_SECONDS", 0.05)  # 15 s in service
    await log_in(client, "owner@example.com")
    stream = await open_board(app, client, shop.location.public_id)
    assert (await stream.next_message()).comments == ["ping"]
    await stream.leave()


async def test_signing_out_ends_the_board_stream_within_seconds(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop
) -> None:
    await log_in(client, "owner@example.com")
    stream = await open_board(app, client, shop.location.public_id)
    home = await client.get("/")
    await client.post("/logout", data={"csrf": csrf_of(home.text)})
    ended = await asyncio.wait_for(stream.until_end(), board_stream.CHECK_SECONDS + 2)
    assert [m for m in ended if m.event is not None] == []
    assert stream.ended
    await stream.finished()
    assert metrics.BOARD_STREAMS_OPEN._value.get() == 0


async def test_a_shutdown_ends_open_board_streams_cleanly(app: FastAPI, client: httpx.AsyncClient, shop: Shop) -> None:
    await log_in(client, "owner@example.com")
    stream = await open_board(app, client, shop.location.public_id)
    drain()  # what the server protocol calls at SIGTERM
    assert await stream.until_end() == []
    assert stream.ended
    await stream.finished()


async def test_the_event_stream_and_the_board_share_the_processs_one_wake_up(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, db_kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from comptoir.db import failures

    connects: list[object] = []
    real_connect = failures.connect

    async def counted(options: dict[str, object]) -> object:
        connects.append(options)
        return await real_connect(options)

    monkeypatch.setattr(failures, "connect", counted)
    hooks = len(signals._listeners)
    await log_in(client, "owner@example.com")
    board = await open_board(app, client, shop.location.public_id)
    events = await OpenStream(app, shop.location_token).open()
    assert events.status == 200
    assert len(signals._listeners) == hooks + 1  # one hook on the in-process signal
    assert len(connects) == (1 if db_kind == "postgresql" else 0)  # one LISTEN connection
    await created(client, shop, NEW)
    assert (await news(board)).event == "changed"
    await board.leave()
    await events.leave()
    await streams_of(app.state.comptoir).close()
    await boards_of(app.state.comptoir).close()  # both done: the last to leave stopped the wake-up
    assert len(signals._listeners) == hooks
    assert not app.state.comptoir.wakeup.listening


async def test_a_board_whose_account_changed_hands_ends_within_seconds(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    stream = await open_board(app, client, shop.location.public_id)
    other = await world.user(email="buyer@example.com")
    async with world.db.transaction() as session:
        await session.execute(update(Account).where(Account.id == shop.account.id).values(owner_id=other.id))
    ended = await asyncio.wait_for(stream.until_end(), board_stream.CHECK_SECONDS + 2)
    assert [m for m in ended if m.event is not None] == []
    await stream.finished()
    again = await client.get(f"/locations/{shop.location.public_id}/today/stream")
    assert again.status_code == 404  # as the board page now answers
