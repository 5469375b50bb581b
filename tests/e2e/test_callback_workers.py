"""docs/api/callbacks-events.md "Delivery": the delivery worker is durable and shared. Real
`comptoir worker` and `comptoir serve` processes on one PostgreSQL deliver to a real
receiver on 127.0.0.1."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import httpx
import pytest

from comptoir.config import Settings
from comptoir.db.engine import create_database
from tests.e2e.conftest import COMPTOIR, LOOPBACK, Server, in_world
from tests.factories import World
from tests.receiver import Answer, Receiver, running_receiver
from tests.waiting import PATIENCE, wait_until

pytestmark = pytest.mark.e2e
KEY = "e2e-worker-key-at-least-32-bytes-long"


def setup_shop(database_url: str, receiver: Receiver, listeners: int) -> tuple[str, list[str]]:
    """An account with a location, a writer token, and `listeners` connections of other
    clients whose active callbacks subscribe to location updates. Returns the tokens."""

    async def build(world: World) -> tuple[str, list[str]]:
        location = await world.location(name="Busy kitchen")
        writer = await world.token("location[orders.write]", location=location, client=await world.client(name="POS"))
        tokens = []
        for i in range(listeners):
            app = await world.client(name=f"Listener {i}")
            token = await world.token("location[orders.read]", location=location, client=app)
            tokens.append(token)
            await world.subscribe(token, receiver.url(f"/hook/{i}"), {"location": ["update"]})
        return writer, tokens

    return in_world(database_url, KEY, build)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver() as running:
        yield running


@pytest.fixture
def start_worker(tmp_path: Path) -> Iterator[Callable[[dict[str, str]], subprocess.Popen[bytes]]]:
    processes: list[subprocess.Popen[bytes]] = []
    logs: list[IO[bytes]] = []

    def start(env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
        log = (tmp_path / f"worker-{len(processes)}.log").open("wb")
        logs.append(log)
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")} | LOOPBACK | env
        process = subprocess.Popen([COMPTOIR, "worker", *args], env=full_env, cwd=tmp_path, stdout=log, stderr=log)
        processes.append(process)
        return process

    yield start
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    for log in logs:
        log.close()


def environment(database_url: str, **extra: str) -> dict[str, str]:
    return {"COMPTOIR_DATABASE_URL": database_url, "COMPTOIR_SECRET_KEY": KEY, "COMPTOIR_RATE_LIMITS": "off", **extra}


def patch_location(server: Server, token: str, minutes: int) -> None:
    response = httpx.patch(
        f"{server.base_url}/v1/location", json={"preparation_time": minutes}, headers={"X-Access-Token": token}
    )
    assert response.status_code == 200, response.text


def test_a_worker_killed_mid_flight_loses_nothing(
    start_server: Callable[..., Server],
    start_worker: Callable[..., subprocess.Popen[bytes]],
    fresh_postgres: str,
    receiver: Receiver,
) -> None:
    env = environment(fresh_postgres, COMPTOIR_CALLBACK_TIMEOUT_SECONDS="3", COMPTOIR_CALLBACK_RETRY_BASE_SECONDS="1")
    writer, [listener] = setup_shop(fresh_postgres, receiver, listeners=1)
    killed = threading.Event()
    # the first POST is answered only once its worker is dead
    receiver.per_event = lambda n: Answer(status=200, hold=killed if n == 0 else None)
    server = start_server("--no-worker", env=env)
    doomed = start_worker(env)
    for minutes in (30, 31, 32):
        patch_location(server, writer, minutes)
    wait_until(lambda: len(receiver.received) >= 1, "the first POST")
    doomed.send_signal(signal.SIGKILL)  # while the receiver is still answering it
    doomed.wait()
    killed.set()
    start_worker(env)
    interrupted = receiver.received[0].headers["X-Event-Id"]
    # the dead worker's lease runs out (timeout 3 s + 15 s), then every event arrives; the
    # interrupted one is sent again with the same X-Event-Id
    wait_until(
        lambda: len(receiver.by_event()) == 3 and len(receiver.by_event()[interrupted]) == 2,
        "all events",
        within=2 * PATIENCE,
    )

    def pending() -> list[object]:
        return httpx.get(f"{server.base_url}/v1/callback/events", headers={"X-Access-Token": listener}).json()

    wait_until(lambda: pending() == [], "every event acknowledged")


def test_several_workers_never_send_an_attempt_twice(
    start_server: Callable[..., Server],
    start_worker: Callable[..., subprocess.Popen[bytes]],
    fresh_postgres: str,
    receiver: Receiver,
) -> None:
    retry_base = 1
    env = environment(fresh_postgres, COMPTOIR_CALLBACK_RETRY_BASE_SECONDS=str(retry_base))
    writer, _listeners = setup_shop(fresh_postgres, receiver, listeners=10)
    receiver.per_event = lambda n: Answer(status=500 if n == 0 else 200)  # one failure, then acknowledged
    servers = [start_server(env=env), start_server(env=env)]  # each runs a worker in-process
    for _ in range(3):
        start_worker(env)
    for minutes in range(40, 70):
        patch_location(servers[minutes % 2], writer, minutes)
    expected = 30 * 10
    wait_until(lambda: sum(len(v) for v in receiver.by_event().values()) >= 2 * expected, "600 POSTs", 2 * PATIENCE)
    # A duplicate is sent beside the attempt it repeats, or at the latest once its resend is
    # due again: two retry bases after the last expected POST, it would have arrived. (A
    # correct run sends nothing more, however long this waits.)
    time.sleep(2 * retry_base)
    counts = [len(v) for v in receiver.by_event().values()]
    assert len(counts) == expected
    assert counts == [2] * expected  # each event: one failed attempt, one resend, never a duplicate
    for i in range(10):
        assert len({r.headers["X-Event-Id"] for r in receiver.requests_to(f"/hook/{i}")}) == 30


def test_serve_delivers_unless_no_worker(
    start_server: Callable[..., Server], fresh_postgres: str, receiver: Receiver
) -> None:
    env = environment(fresh_postgres)
    writer, _listeners = setup_shop(fresh_postgres, receiver, listeners=1)
    quiet = start_server("--no-worker", env=env)
    patch_location(quiet, writer, 20)
    time.sleep(1.5)  # a worker, were one running, is told of the event at once
    assert receiver.received == []
    quiet.process.send_signal(signal.SIGTERM)
    quiet.process.wait(timeout=PATIENCE)
    assert "callback_worker_started" not in quiet.logs()
    delivering = start_server(env=env)
    wait_until(lambda: len(receiver.received) == 1, "the delivery")
    assert "callback_worker_started" in delivering.logs()


def test_a_worker_alone_runs_the_timed_jobs(
    start_worker: Callable[..., subprocess.Popen[bytes]], fresh_postgres: str
) -> None:
    """docs/api/locations-accounts.md "Resuming": resume_at reversions are run by every
    worker loop."""
    from datetime import timedelta

    from comptoir.kit import clock
    from comptoir.models import Location

    async def pause() -> int:
        settings = Settings(database_url=fresh_postgres, secret_key=KEY)
        db = create_database(settings, pool_size=1)
        try:
            location = await World(db, settings.server_key()).location(name="Paused")
            async with db.transaction() as session:
                row = await session.get(Location, location.id)
                assert row is not None
                row.acceptance_mode = "paused"
                row.acceptance_resume_at = clock.now() + timedelta(seconds=1)
            return location.id
        finally:
            await db.dispose()

    async def mode(location_id: int) -> str:
        db = create_database(Settings(database_url=fresh_postgres, secret_key=KEY), pool_size=1)
        try:
            async with db.transaction(write=False) as session:
                row = await session.get(Location, location_id)
                assert row is not None
                return row.acceptance_mode
        finally:
            await db.dispose()

    location_id = asyncio.run(pause())
    start_worker(environment(fresh_postgres))
    wait_until(lambda: asyncio.run(mode(location_id)) == "normal", "the reversion")
