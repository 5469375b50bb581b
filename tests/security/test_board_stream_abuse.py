"""Attacks on the live board's stream (GET /locations/:id/today/stream, docs/back-office.md
"Orders"): watching another owner's board, watching signed out, holding many streams open
at once, a client that stops reading. Refused as the board page refuses."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from comptoir.kit import metrics
from comptoir.web.board_stream import MAX_PER_PERSON, boards_of
from tests.api import conftest as api
from tests.api.callbacks.streaming import OpenStream
from tests.api.conftest import Shop
from tests.api.orders.conftest import created
from tests.api.web.test_back_office_login import log_in
from tests.api.web.test_board_stream import NEW, open_board
from tests.factories import World

app, client, shop, world = api.app, api.client, api.shop, api.world  # the API's fixtures, here too


@pytest.fixture
async def boards_end(app: FastAPI) -> AsyncIterator[None]:
    yield
    await boards_of(app.state.comptoir).close()


pytestmark = pytest.mark.usefixtures("boards_end")


async def test_watching_another_owners_board_is_not_found(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    other = await world.user(email="mallory@example.com", first_name="Mal")
    account = await world.account(owner=other, name="Not yours", currency="EUR")
    location = await world.location(account, name="Not yours either")
    await log_in(client, "owner@example.com")
    page = await client.get(f"/locations/{location.public_id}/today")
    stream = await client.get(f"/locations/{location.public_id}/today/stream")
    assert (stream.status_code, page.status_code) == (404, 404)
    assert "No location of yours has this id." in stream.text
    assert "Not yours" not in stream.text
    assert metrics.BOARD_STREAMS_OPEN._value.get() == 0


async def test_watching_an_unknown_board_is_not_found(client: httpx.AsyncClient, shop: Shop) -> None:
    await log_in(client, "owner@example.com")
    for location_id in ("nope", "x" * 5000, "<script>"):
        answer = await client.get(f"/locations/{location_id}/today/stream")
        assert answer.status_code == 404, location_id
        assert "<script>" not in answer.text


async def test_watching_a_board_signed_out_is_sent_to_login(client: httpx.AsyncClient, shop: Shop) -> None:
    answer = await client.get(f"/locations/{shop.location.public_id}/today/stream")
    assert (answer.status_code, answer.headers["location"]) == (303, "/login")
    assert metrics.BOARD_STREAMS_OPEN._value.get() == 0


async def test_watching_with_a_forged_session_cookie_is_sent_to_login(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop
) -> None:
    await log_in(client, "owner@example.com")
    forged = "; ".join(f"{name}={value[:-4]}AAAA" for name, value in client.cookies.items())
    stream = await OpenStream(app, cookie=forged, path=f"/locations/{shop.location.public_id}/today/stream").open()
    assert stream.status == 303
    await stream.body()
    assert metrics.BOARD_STREAMS_OPEN._value.get() == 0


async def test_holding_many_board_streams_at_once_is_refused_beyond_the_limit(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop
) -> None:
    await log_in(client, "owner@example.com")
    held = [await open_board(app, client, shop.location.public_id) for _ in range(MAX_PER_PERSON)]
    refused = await client.get(f"/locations/{shop.location.public_id}/today/stream")
    assert (refused.status_code, refused.headers["retry-after"]) == (429, "3")
    assert f"At most {MAX_PER_PERSON} boards may be live at once for one person" in refused.text
    assert metrics.BOARD_STREAMS_OPEN._value.get() == MAX_PER_PERSON
    for stream in held:
        await stream.leave()
    assert metrics.BOARD_STREAMS_OPEN._value.get() == 0
    again = await open_board(app, client, shop.location.public_id)  # the holds were given back
    await again.leave()


async def test_a_board_that_stops_reading_is_dropped(app: FastAPI, client: httpx.AsyncClient, shop: Shop) -> None:
    app.state.comptoir.settings = app.state.comptoir.settings.model_copy(
        update={"callback_stream_send_timeout_seconds": 0.2}
    )
    await log_in(client, "owner@example.com")
    stream = await open_board(app, client, shop.location.public_id)
    stream.stall()  # its next send never completes
    await created(client, shop, NEW)
    await asyncio.wait_for(stream.finished(), 5)
    assert metrics.BOARD_STREAMS_OPEN._value.get() == 0
