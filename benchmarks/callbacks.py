"""Callback delivery: throughput of one worker process, and delay from commit to receipt.

The callbacks benchmark, on PostgreSQL:
1. 10,000 events wait for one connection whose callback points at a local receiver that
   answers at once; one `comptoir worker` process starts; the figure is events delivered per
   second (first to last receipt, and worker start to last receipt), and the worker's CPU per
   delivery (user and system, from /proc: on a loaded machine the rate follows the load, the
   CPU much less).
2. With the worker running, changes are committed at a steady 100 per second for `--seconds`;
   each event's delay from its commit to its receipt is measured (median and p99).

The receiver is its own process (aiohttp), so it does not compete with the worker's event
loop. Run by hand, not in CI:

    uv run python benchmarks/callbacks.py --database postgresql://postgres@127.0.0.1:5432/comptoir_cb_bench

With `--compare-signatures N`, only part 1 runs, 2 x N times in one run, alternating a worker
that sends the Standard Webhooks headers and one that does not (`callbacks.signing.
STANDARD_WEBHOOKS`, switched off in that worker process only): the cost of those headers, as
the ratio of the medians. `--header-cost` only times, in this process, the headers of one
POST (`callbacks.signing.headers`, a 1 KB body, one signing secret) with and without the
Standard Webhooks ones: the CPU each delivery spends on them, free of the machine's noise.

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

from _common import cpu_seconds, free_port

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


# `comptoir worker` without the Standard Webhooks headers (--compare-signatures)
UNSIGNED_WORKER = (
    "import sys; import comptoir.callbacks.signing as signing; signing.STANDARD_WEBHOOKS = False; "
    "from comptoir.cli import main; main(['worker'])"
)


def start_worker(database_url: str, log: Path, *, standard_webhooks: bool = True) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")}
    env |= {"COMPTOIR_DATABASE_URL": database_url, "COMPTOIR_SECRET_KEY": KEY, "COMPTOIR_LOG_LEVEL": "warning"}
    env["COMPTOIR_CALLBACK_ALLOWED_NETWORKS"] = "127.0.0.0/8"  # the receiver runs on this machine
    command = [COMPTOIR, "worker"] if standard_webhooks else [sys.executable, "-c", UNSIGNED_WORKER]
    return subprocess.Popen(command, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)


def compare_signatures(args: argparse.Namespace, ids: tuple[int, int, int, int], stats_url: str, workdir: Path) -> None:
    """Part 1, 2 x `args.compare_signatures` times, alternating headers on and off."""
    rates: dict[bool, list[float]] = {True: [], False: []}
    done = 0
    for n in range(2 * args.compare_signatures):
        on = n % 2 == 0
        asyncio.run(produce(args.database, ids, args.events, None))
        worker = start_worker(args.database, workdir / f"worker-{n}.log", standard_webhooks=on)
        try:
            got = wait_for(stats_url, done + args.events, 600)
        finally:
            worker.send_signal(signal.SIGTERM)
            worker.wait(timeout=30)
        times = sorted(t for _, t in got[done : done + args.events])
        done += args.events
        rates[on].append(args.events / (times[-1] - times[0]))
        print(f"  round {n + 1}: headers {'on ' if on else 'off'} {rates[on][-1]:.0f} deliveries/s", flush=True)
    on, off = statistics.median(rates[True]), statistics.median(rates[False])
    print(f"Standard Webhooks headers, {args.compare_signatures} rounds each of {args.events} events: median "
          f"{on:.0f}/s on, {off:.0f}/s off; cost {100 * (off - on) / off:+.1f}% of throughput")  # fmt: skip


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


def header_cost() -> None:
    import timeit

    from comptoir.callbacks import signing

    body, keys = b"x" * 1024, [signing.new_secret()]

    def one() -> None:
        signing.headers(b"0" * 32, keys, "abcdef", 1_700_000_000, body, redelivery=False)

    per_call: dict[bool, float] = {}
    for on in (True, False, True, False):
        signing.STANDARD_WEBHOOKS = on
        runs = timeit.repeat(one, number=20_000, repeat=7)
        per_call[on] = min(per_call.get(on, float("inf")), statistics.median(runs) / 20_000)
    signing.STANDARD_WEBHOOKS = True
    on, off = per_call[True] * 1e6, per_call[False] * 1e6
    print(f"headers of one POST: {on:.2f} us with Standard Webhooks, {off:.2f} us without: +{on - off:.2f} us each")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", help="an empty PostgreSQL database URL")
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--rate", type=float, default=100.0, help="events per second in part 2")
    parser.add_argument("--seconds", type=float, default=30.0, help="duration of part 2")
    parser.add_argument("--compare-signatures", type=int, default=0, metavar="N", help="see above")
    parser.add_argument("--header-cost", action="store_true", help="see above")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    if args.header_cost:
        header_cost()
        return
    if not args.database:
        parser.error("--database is required")

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
        if args.compare_signatures:
            compare_signatures(args, ids, stats_url, workdir)
            return

        # 1. throughput: a backlog of events, then one worker process
        asyncio.run(produce(args.database, ids, args.events, None))
        worker_started = time.time()
        worker = start_worker(args.database, workdir / "worker.log")
        # the worker's CPU per delivery, past its start-up: from the first receipts to the last
        first = len(wait_for(stats_url, 1, 120))
        cpu_first = cpu_seconds(worker.pid)
        got = wait_for(stats_url, args.events, 600)
        cpu_per_delivery = (cpu_seconds(worker.pid) - cpu_first) / max(1, args.events - first)
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
          f"{start_to_last:.0f}/s counting worker start-up; {duplicates} duplicates; "
          f"worker CPU {cpu_per_delivery * 1e6:.0f} us per delivery")  # fmt: skip
    p99 = delays[max(0, int(len(delays) * 0.99) - 1)]
    print(f"2. {count} events at {args.rate:.0f}/s: commit to receipt median {statistics.median(delays):.1f} ms, "
          f"p99 {p99:.1f} ms, max {delays[-1]:.1f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
