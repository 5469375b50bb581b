"""Callback delivery: throughput of one worker process, and delay from commit to receipt.

The callbacks benchmark, on PostgreSQL:
1. 10,000 events wait for one connection whose callback points at a local receiver that
   answers at once; one `comptoir worker` process starts; the figure is events delivered per
   second (first to last receipt, and worker start to last receipt).
2. With the worker running, changes are committed at a steady 100 per second for `--seconds`;
   each event's delay from its commit to its receipt is measured (median and p99).

The receiver is its own process (aiohttp), so it does not compete with the worker's event
loop. Run by hand, not in CI:

    uv run python benchmarks/callbacks.py --database postgresql://postgres@127.0.0.1:5432/comptoir_cb_bench

The database must exist (it is migrated and filled by the script; use an empty one).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import httpx

from _common import free_port

COMPTOIR = str(Path(sys.executable).parent / "comptoir")
KEY = "callback-benchmark-key-at-least-32-bytes-long"

RECEIVER = textwrap.dedent(
    """
    import sys, time
    from aiohttp import web
    received = []
    async def hook(request):
        await request.read()
        received.append((request.headers.get("X-Event-Id"), time.time()))
        return web.Response(status=200)
    async def stats(request):
        return web.json_response(received)
    app = web.Application()
    app.router.add_post("/hook", hook)
    app.router.add_get("/stats", stats)
    web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None, access_log=None)
    """
)


async def prepare(database_url: str, hook: str) -> tuple[int, int, int, int]:
    """Migrate; a location, a writer connection and a listener connection whose active
    callback subscribes to location updates. Returns the ids of the account, the location,
    the writer's client and connection."""
    os.environ["COMPTOIR_DATABASE_URL"] = database_url
    os.environ["COMPTOIR_SECRET_KEY"] = KEY
    from tests.factories import World

    from comptoir.config import Settings
    from comptoir.connections.service import find_connection_by_token
    from comptoir.db.engine import create_database
    from comptoir.db.migrate import upgrade

    settings = Settings()
    db = create_database(settings)
    await upgrade(db)
    world = World(db, settings.server_key())
    location = await world.location(name="Benchmark kitchen")
    writer = await world.client(name="Writer")
    writer_token = await world.token("location[orders.write]", location=location, client=writer)
    listener_app = await world.client(name="Listener")
    token = await world.token("location[orders.read]", location=location, client=listener_app)
    await world.subscribe(token, hook, {"location": ["update"]})
    async with db.transaction() as session:
        writer_connection = await find_connection_by_token(session, world.key, writer_token)
        assert writer_connection is not None
    await db.dispose()
    return location.account_id, location.id, writer.id, writer_connection.id


async def produce(
    database_url: str, ids: tuple[int, int, int, int], count: int, rate: float | None
) -> dict[str, float]:
    """Commit `count` location changes (one event each), at `rate` per second or at once;
    returns {event id: commit time}."""
    from sqlalchemy import select

    from comptoir import events
    from comptoir.auth.context import Ctx
    from comptoir.auth.scopes import parse_scope
    from comptoir.config import Settings
    from comptoir.db.engine import create_database
    from comptoir.kit import ids as public_ids
    from comptoir.models import Event

    account_id, location_id, writer_client, writer_connection = ids
    db = create_database(Settings(database_url=database_url, secret_key=KEY))
    ctx = Ctx(
        writer_connection,
        "",
        writer_client,
        "Writer",
        0,
        "location",
        account_id,
        location_id,
        None,
        None,
        parse_scope("profile"),
    )
    state = {"preparation_time": 15, "padding": "x" * 400}
    committed: dict[str, float] = {}
    started = time.perf_counter()
    batch = 1 if rate else 200
    for n in range(0, count, batch):
        if rate:
            delay = started + n / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
        async with db.transaction() as session:
            change_ids = []
            for i in range(n, min(n + batch, count)):
                change = await events.record(
                    session,
                    resource_type="location",
                    event_type="update",
                    ids={"location_id": "bench-1", "account_id": "bench"},
                    account_id=account_id,
                    location_id=location_id,
                    previous_state=state,
                    new_state={**state, "preparation_time": i},
                    ctx=ctx,
                )
                change_ids.append(change.id)
            event_ids = (await session.scalars(select(Event.id).where(Event.change_id.in_(change_ids)))).all()
        now = time.time()
        for event_id in event_ids:
            committed[public_ids.encode("event", event_id)] = now
    await db.dispose()
    return committed


def start_worker(database_url: str, log: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")}
    env |= {"COMPTOIR_DATABASE_URL": database_url, "COMPTOIR_SECRET_KEY": KEY, "COMPTOIR_LOG_LEVEL": "warning"}
    env["COMPTOIR_CALLBACK_ALLOWED_NETWORKS"] = "127.0.0.0/8"  # the receiver runs on this machine
    return subprocess.Popen([COMPTOIR, "worker"], env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)


def received(stats_url: str) -> list[tuple[str, float]]:
    return [tuple(item) for item in httpx.get(stats_url, timeout=30).json()]


def wait_for(stats_url: str, count: int, timeout: float) -> list[tuple[str, float]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = received(stats_url)
        if len(got) >= count:
            return got
        time.sleep(0.2)
    raise SystemExit(f"only {len(received(stats_url))} of {count} events arrived")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", required=True, help="an empty PostgreSQL database URL")
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--rate", type=float, default=100.0, help="events per second in part 2")
    parser.add_argument("--seconds", type=float, default=30.0, help="duration of part 2")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

    workdir = Path(tempfile.mkdtemp(prefix="comptoir-cb-bench-"))
    port = free_port()
    receiver = subprocess.Popen([sys.executable, "-c", RECEIVER, str(port)])
    stats_url = f"http://127.0.0.1:{port}/stats"
    worker = None
    try:
        for _ in range(100):
            try:
                httpx.get(stats_url)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        ids = asyncio.run(prepare(args.database, f"http://127.0.0.1:{port}/hook"))

        # 1. throughput: a backlog of events, then one worker process
        asyncio.run(produce(args.database, ids, args.events, None))
        worker_started = time.time()
        worker = start_worker(args.database, workdir / "worker.log")
        got = wait_for(stats_url, args.events, 600)
        times = sorted(t for _, t in got[: args.events])
        duplicates = args.events - len({event for event, _ in got[: args.events]})
        first_to_last = args.events / (times[-1] - times[0])
        start_to_last = args.events / (times[-1] - worker_started)

        # 2. latency at a steady rate, worker running
        count = int(args.rate * args.seconds)
        committed = asyncio.run(produce(args.database, ids, count, args.rate))
        got = wait_for(stats_url, args.events + count, 120)
        arrival = dict(got[args.events :])
        delays = sorted((arrival[event] - at) * 1000 for event, at in committed.items())
    finally:
        if worker is not None:
            worker.send_signal(signal.SIGTERM)
            worker.wait(timeout=30)
        receiver.terminate()
        receiver.wait()

    print(f"Callback delivery on PostgreSQL, 1 worker process, 1 receiver on 127.0.0.1 ({workdir})")
    print(f"1. {args.events} queued events: {first_to_last:.0f} deliveries/s (first to last receipt), "
          f"{start_to_last:.0f}/s counting worker start-up; {duplicates} duplicates")  # fmt: skip
    p99 = delays[max(0, int(len(delays) * 0.99) - 1)]
    print(f"2. {count} events at {args.rate:.0f}/s: commit to receipt median {statistics.median(delays):.1f} ms, "
          f"p99 {p99:.1f} ms, max {delays[-1]:.1f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
