"""docs/back-office.md "Orders": two real `serve` processes on one PostgreSQL. An order
created, then changed, through the API of one reaches, within a second, the live board's stream held by
the other (its one LISTEN connection: no application subscribes, so no event is made, and
the location's own notification carries it); the stream ends cleanly at its process's
shutdown (SIGTERM), so that the board reconnects to another process."""

from __future__ import annotations

import queue
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from html import unescape
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import Server, in_world, run_cli
from tests.factories import World
from tests.waiting import PATIENCE

pytestmark = pytest.mark.e2e
KEY = "e2e-board-key-at-least-32-bytes-long"
EMAIL, PASSWORD = "counter@example.com", "password123"
END = None  # what the reader puts once the stream ended


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


def read_board(http: httpx.Client, location_id: str) -> Iterator[queue.Queue[str | None]]:
    """A thread reading the board stream: the `event` of each message (comments left out),
    then END."""
    messages: queue.Queue[str | None] = queue.Queue()
    opened = threading.Event()

    def read() -> None:
        with http.stream("GET", f"/locations/{location_id}/today/stream") as response:
            assert response.status_code == 200
            opened.set()
            for line in response.iter_lines():
                if line.startswith("event:"):
                    messages.put(line.partition(":")[2].strip())
        messages.put(END)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    assert opened.wait(PATIENCE)
    yield messages
    thread.join(PATIENCE)


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
        assert messages.get(timeout=PATIENCE) == "changed"
        assert time.monotonic() - sent < 1.0
        order_id = created.json()["id"]  # then changed (its change written in a session)
        accepted = http.patch(
            f"/v1/location/orders/{order_id}", json={"status": "accepted"}, headers={"X-Access-Token": writer}
        )
        assert accepted.status_code == 200, accepted.text
        sent = time.monotonic()
        assert messages.get(timeout=PATIENCE) == "changed"
        assert time.monotonic() - sent < 1.0

    holder.process.send_signal(signal.SIGTERM)
    assert messages.get(timeout=PATIENCE) is END  # the answer ended cleanly, no error in the reader
    holder.process.wait(PATIENCE)
    assert "board_stream_closed" in holder.logs()
    assert "reason=shutdown" in holder.logs()
    next(board, None)
    browser.close()
