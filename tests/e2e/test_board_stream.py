"""docs/back-office.md "Orders": two real `serve` processes on one PostgreSQL. An order
created, then changed, through the API of one reaches, within a second, the live board's stream held by
the other (its one LISTEN connection: no application subscribes, so no event is made, and
the location's own notification carries it); the stream ends cleanly at its process's
shutdown (SIGTERM), so that the board reconnects to another process."""

from __future__ import annotations

import queue
import re
import signal
import time
from collections.abc import Callable, Iterator
from html import unescape
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import END, Server, in_world, run_cli, sse_messages
from tests.factories import World
from tests.waiting import PATIENCE

pytestmark = pytest.mark.e2e
KEY = "e2e-board-key-at-least-32-bytes-long"
EMAIL, PASSWORD = "counter@example.com", "password123"


def setup_shop(database_url: str) -> tuple[str, str]:
    """A person's location (its public id) and a token that writes its orders."""

    async def build(world: World) -> tuple[str, str]:
        owner = await world.user(email=EMAIL, password=PASSWORD)
        account = await world.account(owner=owner, name="Board bistro")
        location = await world.location(account, name="Board kitchen")
        writer = await world.token("location[orders.write]", location=location)
        return location.public_id, writer

    return in_world(database_url, KEY, build)


def signed_in(server: Server) -> httpx.Client:
    http = httpx.Client(base_url=server.base_url, timeout=PATIENCE)
    form = http.get("/login").text
    found = re.search(r'name="csrf" value="([^"]+)"', form)
    assert found is not None
    answer = http.post("/login", data={"csrf": unescape(found.group(1)), "email": EMAIL, "password": PASSWORD})
    assert answer.status_code == 303, answer.text
    return http


def read_board(http: httpx.Client, location_id: str) -> Iterator[queue.Queue[dict[str, str] | None]]:
    """The board stream of a location, read by a thread (`sse_messages`)."""
    yield from sse_messages(http, f"/locations/{location_id}/today/stream")


def news(messages: queue.Queue[dict[str, str] | None]) -> str | None:
    """The `event` of the next message that has one (the opening has none), or END."""
    while True:
        found = messages.get(timeout=PATIENCE)
        if found is None:
            return END
        if "event" in found or "broken" in found:
            return found.get("event", f"broken: {found.get('broken')}")


def test_an_order_created_by_one_process_reaches_a_board_held_by_another_within_a_second(
    start_server: Callable[..., Server], fresh_postgres: str, tmp_path: Path
) -> None:
    env = {"COMPTOIR_DATABASE_URL": fresh_postgres, "COMPTOIR_SECRET_KEY": KEY, "COMPTOIR_RATE_LIMITS": "off"}
    run_cli("migrate", env=env, cwd=tmp_path)
    location_id, writer = setup_shop(fresh_postgres)
    holder, recorder = start_server(env=env), start_server(env=env)
    browser = signed_in(holder)
    board = read_board(browser, location_id)
    messages = next(board)
    with recorder.http() as http:
        body = {"status": "new", "items": [{"product_name": "Croque", "price": "6.50 EUR", "quantity": "1"}]}
        created = http.post("/v1/location/orders", json=body, headers={"X-Access-Token": writer})
        assert created.status_code == 200, created.text
        sent = time.monotonic()
        assert news(messages) == "changed"
        assert time.monotonic() - sent < 1.0
        order_id = created.json()["id"]  # then changed (its change written in a session)
        accepted = http.patch(
            f"/v1/location/orders/{order_id}", json={"status": "accepted"}, headers={"X-Access-Token": writer}
        )
        assert accepted.status_code == 200, accepted.text
        sent = time.monotonic()
        assert news(messages) == "changed"
        assert time.monotonic() - sent < 1.0

    holder.process.send_signal(signal.SIGTERM)
    assert news(messages) is END  # the answer ended cleanly, no error in the reader
    holder.process.wait(PATIENCE)
    assert "board_stream_closed" in holder.logs()
    assert "reason=shutdown" in holder.logs()
    next(board, None)
    browser.close()
