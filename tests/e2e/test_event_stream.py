"""docs/api/callbacks-events.md "Stream": two real `serve` processes on one PostgreSQL. An
event recorded by one reaches a stream held by the other (its one LISTEN connection), and a
stream ends cleanly when its process shuts down (SIGTERM), so that its client reconnects to
another process."""

from __future__ import annotations

import json
import queue
import signal
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
import redis

from tests.conftest import TEST_REDIS_URL
from tests.e2e.conftest import END, Server, in_world, run_cli, sse_messages
from tests.factories import World
from tests.waiting import PATIENCE, wait_until

pytestmark = pytest.mark.e2e
KEY = "e2e-stream-key-at-least-32-bytes-long"


def setup_shop(database_url: str) -> tuple[str, str]:
    """A location, a writer token and a listener token of another client, whose passive
    callback subscribes to location updates."""

    async def build(world: World) -> tuple[str, str]:
        location = await world.location(name="Streaming kitchen")
        pos = await world.client(name="POS")
        writer = await world.token("location[orders.write]", location=location, client=pos)
        tablet = await world.client(name="Tablet")
        listener = await world.token("location[orders.read]", location=location, client=tablet)
        await world.subscribe(listener, None, {"location": ["update"]})
        return writer, listener

    return in_world(database_url, KEY, build)


def read_stream(server: Server, token: str) -> Iterator[queue.Queue[dict[str, str] | None]]:
    """The event stream of `token` from `server`, read by a thread (`sse_messages`)."""
    with httpx.Client(base_url=server.base_url, timeout=PATIENCE) as http:
        yield from sse_messages(http, "/v1/callback/stream", {"X-Access-Token": token})


def next_event(messages: queue.Queue[dict[str, str] | None]) -> dict[str, str] | None:
    while True:
        found = messages.get(timeout=PATIENCE)
        if found is None or "id" in found or "broken" in found:
            return found


def test_an_event_recorded_by_one_process_reaches_a_stream_held_by_another_which_ends_at_its_shutdown(
    start_server: Callable[..., Server], fresh_postgres: str, tmp_path: Path
) -> None:
    env = {"COMPTOIR_DATABASE_URL": fresh_postgres, "COMPTOIR_SECRET_KEY": KEY, "COMPTOIR_RATE_LIMITS": "off"}
    run_cli("migrate", env=env, cwd=tmp_path)
    writer, listener = setup_shop(fresh_postgres)
    holder, recorder = start_server(env=env), start_server(env=env)
    stream = read_stream(holder, listener)
    messages = next(stream)
    with recorder.http() as http:
        for minutes in (17, 18):
            response = http.patch(
                "/v1/location", json={"preparation_time": minutes}, headers={"X-Access-Token": writer}
            )
            assert response.status_code == 200
        received = [next_event(messages), next_event(messages)]
        listed = http.get("/v1/callback/events", headers={"X-Access-Token": listener}).json()
        assert [event["id"] for event in listed] == [message["id"] for message in received if message]
        for message in received:
            assert message is not None
            assert message["event"] == "location.update"
            read = http.get(f"/v1/callback/events/{message['id']}", headers={"X-Access-Token": listener})
            assert json.loads(message["data"]) == read.json()

    holder.process.send_signal(signal.SIGTERM)
    assert next_event(messages) is END  # the answer ended cleanly, no error in the reader
    holder.process.wait(PATIENCE)  # the server did not wait for the stream to be closed by its client
    assert "stream_closed" in holder.logs()
    assert "reason=shutdown" in holder.logs()
    next(stream, None)


def stream_status(server: Server, token: str) -> int:
    """The status of a stream opened on `server` (and closed at once)."""
    with (
        httpx.Client(base_url=server.base_url, timeout=PATIENCE) as http,
        http.stream("GET", "/v1/callback/stream", headers={"X-Access-Token": token}) as response,
    ):
        return response.status_code


def test_a_connection_holds_three_streams_across_processes_and_a_killed_process_frees_its_own(
    start_server: Callable[..., Server], fresh_postgres: str, tmp_path: Path
) -> None:
    prefix = f"comptoir-e2e-streams:{uuid.uuid4().hex}:"
    env = {
        "COMPTOIR_DATABASE_URL": fresh_postgres,
        "COMPTOIR_SECRET_KEY": KEY,
        "COMPTOIR_RATE_LIMITS": "off",
        "COMPTOIR_REDIS_URL": TEST_REDIS_URL,
        "COMPTOIR_REDIS_PREFIX": prefix,
    }
    run_cli("migrate", env=env, cwd=tmp_path)
    _, listener = setup_shop(fresh_postgres)
    first, second = start_server(env=env), start_server(env=env)
    held = [read_stream(first, listener), read_stream(first, listener), read_stream(second, listener)]
    for stream in held:
        next(stream)
    try:
        assert stream_status(second, listener) == 429
        assert stream_status(first, listener) == 429
        first.process.kill()  # no goodbye: its two holds end when they are not renewed
        wait_until(lambda: stream_status(second, listener) == 200, "the killed process's holds to end")
    finally:
        second.process.send_signal(signal.SIGTERM)  # its stream ends: the readers end
        for stream in held:
            next(stream, None)
        client = redis.Redis.from_url(TEST_REDIS_URL)
        for key in client.scan_iter(match=f"{prefix}*"):
            client.delete(key)
        client.close()
