"""Event streams under load: 1,000 open streams on one process, orders created by another.

On PostgreSQL (the streams' process learns of another process's commits by LISTEN/NOTIFY),
with two `comptoir serve` processes on one database: S holds the streams, C takes the
orders. As kitchens would use it: `--locations` locations (334 by default), each with a
listening application whose passive callback subscribes to order creations, and 3 streams
open per listening connection (the most one connection may hold): 1,002 streams.

1. Delay: orders are created on C at `--rate` per second (50), round-robin over the
   locations, for `--seconds`; each reaches the 3 streams of its location's listener. The
   delay of each receipt is measured from the moment the order's POST was sent (an upper
   bound of commit to receipt: it includes C's work before the commit) and from the moment
   its answer arrived (a lower bound, negative when the stream was faster than the answer);
   median and p99 of both; and the CPU time S spent per 1,000 events delivered (one event
   reaching one stream).
2. Memory: S's resident memory with 3 streams open, then with all of them: the difference per
   open stream.
3. Creation rate: wrk creating orders on C (one location, whose listener has its streams
   open when the others are) for `--duration` seconds, `--runs` times with every stream
   closed and as many with all of them open, alternated; the medians and their ratio, and
   the CPU time S spent per 1,000 events delivered during the runs with streams open (from
   each run's start until its events have all arrived).

The client side (every stream, the paced creations) is this process, on asyncio; each stream
is a plain socket reading the Server-Sent Events, resumed with `Last-Event-ID` after a close.
Needs wrk (`apt-get install -y wrk`). Run by hand, not in CI:

    uv run python benchmarks/streams.py
    uv run python benchmarks/streams.py --locations 34 --seconds 10 --runs 1   # a quick look

The PostgreSQL database `comptoir_bench_streams` (or `--database`) is (re)created by each run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from _common import cpu_seconds, free_port, percentile, recreate_database, run_wrk, wait_until_up
from orders import POST_SCRIPT, realistic_order

COMPTOIR = str(Path(sys.executable).parent / "comptoir")
ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
KEY = "benchmark-secret-key-at-least-32-bytes-long"
STREAMS_PER_CONNECTION = 3
ORDER_ID = re.compile(rb'"order_id":"([^"]+)"')
EVENT_ID = re.compile(rb"(?m)^id: (\S+)")


async def prepare(database_url: str, locations: int) -> list[tuple[str, str]]:
    """Migrate; `locations` locations, each with a writer token and a listener token whose
    passive callback subscribes to order creations. Returns (writer, listener) per location."""
    os.environ["COMPTOIR_DATABASE_URL"] = database_url
    os.environ["COMPTOIR_SECRET_KEY"] = KEY
    from tests.factories import World

    from comptoir.config import Settings
    from comptoir.db.engine import create_database
    from comptoir.db.migrate import upgrade

    settings = Settings()
    db = create_database(settings)
    await upgrade(db)
    world = World(db, settings.server_key())
    account = await world.account(name="Benchmark group")
    writer = await world.client(name="Ordering site")
    listener = await world.client(name="Kitchen display")
    tokens = []
    for n in range(locations):
        location = await world.location(account=account, name=f"Kitchen {n}")
        writer_token = await world.token("location[orders.write]", location=location, client=writer)
        listener_token = await world.token("location[orders.read]", location=location, client=listener)
        await world.subscribe(listener_token, None, {"order": ["create"]})
        tokens.append((writer_token, listener_token))
        if (n + 1) % 50 == 0:
            print(f"  {n + 1} locations", flush=True)
    await db.dispose()
    return tokens


class Streams:
    """The client side: every stream, each a socket, and when each order reached each."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.tasks: list[asyncio.Task[None]] = []
        self.last: dict[int, str] = {}  # stream number: the last event id it received
        self.received: list[tuple[bytes, float]] = []  # (order id, when)
        self.opened = 0
        self.latest = 0.0  # when the last message arrived

    async def open(self, tokens: list[str]) -> None:
        """Open one stream per token (resuming after each one's last event), 50 at a time."""
        ready: list[asyncio.Future[None]] = []
        loop = asyncio.get_running_loop()
        for number, token in enumerate(tokens):
            future: asyncio.Future[None] = loop.create_future()
            ready.append(future)
            self.tasks.append(asyncio.create_task(self._hold(number, token, future)))
            if len(ready) % 50 == 0:
                await asyncio.gather(*ready[-50:])
        await asyncio.gather(*ready)
        self.opened = len(tokens)

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        self.tasks.clear()
        self.opened = 0

    async def settle(self, quiet: float = 1.0) -> None:
        """Wait until no event has arrived for `quiet` seconds (a backlog sent on resuming)."""
        # a wait for no event (an Event tells of one, not of quiet)
        while (left := self.latest + quiet - time.monotonic()) > 0:  # noqa: ASYNC110
            await asyncio.sleep(left)

    async def _hold(self, number: int, token: str, ready: asyncio.Future[None]) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        try:
            resume = f"Last-Event-ID: {self.last[number]}\r\n" if number in self.last else ""
            writer.write(
                f"GET /v1/callback/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Access-Token: {token}\r\n"
                f"Accept: text/event-stream\r\n{resume}\r\n".encode()
            )
            head = await reader.readuntil(b"\r\n\r\n")
            if not head.startswith(b"HTTP/1.1 200"):
                raise SystemExit(f"a stream was refused: {head.decode(errors='replace')}")
            ready.set_result(None)
            buffer = b""
            while True:
                chunk = await reader.read(65536)
                if not chunk:
                    return
                now = time.monotonic()
                buffer += chunk
                *messages, buffer = buffer.split(b"\n\n")
                for each in messages:
                    order = ORDER_ID.search(each)
                    if order is not None:
                        self.received.append((order.group(1), now))
                    event = EVENT_ID.search(each)
                    if event is not None:
                        self.last[number] = event.group(1).decode()
                        self.latest = now  # pings are no news: 1,002 streams' pings may never leave a quiet second
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc)
            raise
        finally:
            writer.close()


async def paced_orders(base: str, writers: list[str], rate: float, seconds: float) -> dict[bytes, tuple[float, float]]:
    """Create orders at `rate` per second, round-robin over the writers' locations; returns
    {order id: (sent, answered)} on the monotonic clock."""
    body = json.dumps(realistic_order()).encode()
    times: dict[bytes, tuple[float, float]] = {}
    pending: set[asyncio.Task[None]] = set()

    async def create(http: httpx.AsyncClient, token: str) -> None:
        sent = time.monotonic()
        response = await http.post(
            "/v1/location/orders",
            content=body,
            headers={"X-Access-Token": token, "Content-Type": "application/json"},
        )
        answered = time.monotonic()
        if response.status_code != 200:
            raise SystemExit(f"an order was refused: {response.status_code} {response.text}")
        times[response.json()["id"].encode()] = (sent, answered)

    limits = httpx.Limits(max_connections=64)
    async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as http:
        started = time.monotonic()
        for n in range(int(rate * seconds)):
            delay = started + n / rate - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            task = asyncio.create_task(create(http, writers[n % len(writers)]))
            pending.add(task)
            task.add_done_callback(pending.discard)
        await asyncio.gather(*pending)
    return times


def resident_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def start(port: int, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """One `comptoir serve` process (no callback worker: every callback here is passive)."""
    with log.open("w") as out:
        return subprocess.Popen(
            [COMPTOIR, "serve", "--port", str(port), "--workers", "1", "--no-worker"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=out,
        )


async def run(args: argparse.Namespace, tokens: list[tuple[str, str]], workdir: Path, env: dict[str, str]) -> None:
    s_port, c_port = free_port(), free_port()
    s_server = start(s_port, env, workdir / "streams.log")
    c_server = start(c_port, env, workdir / "orders.log")
    streams = Streams(s_port)
    try:
        wait_until_up(f"http://127.0.0.1:{s_port}", 120)
        wait_until_up(f"http://127.0.0.1:{c_port}", 120)
        listeners = [listener for _, listener in tokens for _ in range(STREAMS_PER_CONNECTION)]
        writers = [writer for writer, _ in tokens]
        c_base = f"http://127.0.0.1:{c_port}"

        # 2. memory (3 streams, then all), with a warm-up of both processes first
        await paced_orders(c_base, writers[:1], 20, 1)
        await streams.open(listeners[:STREAMS_PER_CONNECTION])
        await streams.settle()
        await asyncio.sleep(1)
        few = resident_kb(s_server.pid)
        await streams.close()
        started = time.monotonic()
        await streams.open(listeners)
        opening = time.monotonic() - started
        await streams.settle()
        await asyncio.sleep(2)
        many = resident_kb(s_server.pid)
        per_stream = (many - few) / (len(listeners) - STREAMS_PER_CONNECTION)

        # 1. delay at a steady rate
        print(f"part 1: streams' process {s_server.pid}, orders' process {c_server.pid}", flush=True)
        streams.received.clear()
        cpu_started = cpu_seconds(s_server.pid)
        times = await paced_orders(c_base, writers, args.rate, args.seconds)
        await asyncio.sleep(2)
        paced_cpu = cpu_seconds(s_server.pid) - cpu_started
        paced_delivered = len(streams.received)
        upper = [(when - times[order][0]) * 1000 for order, when in streams.received if order in times]
        lower = [(when - times[order][1]) * 1000 for order, when in streams.received if order in times]
        expected = len(times) * STREAMS_PER_CONNECTION

        # 3. creation rate with every stream closed, then open, alternated
        script = workdir / "create.lua"
        script.write_text(POST_SCRIPT)
        order_file = workdir / "order.json"
        order_file.write_text(json.dumps(realistic_order()))
        wrk_args = [str(order_file), writers[0]]
        rates: dict[str, list[float]] = {"none": [], "open": []}
        loaded_cpu, loaded_delivered = 0.0, 0
        for _ in range(args.runs):
            await streams.close()
            await asyncio.sleep(1)
            rates["none"].append(
                (await asyncio.to_thread(run_wrk, c_base, script, wrk_args, args.duration, args.connections))["rps"]
            )
            await streams.open(listeners)
            await streams.settle()  # the backlog the closed streams missed, sent on resuming
            streams.received.clear()
            cpu_started = cpu_seconds(s_server.pid)
            rates["open"].append(
                (await asyncio.to_thread(run_wrk, c_base, script, wrk_args, args.duration, args.connections))["rps"]
            )
            await streams.settle()
            loaded_cpu += cpu_seconds(s_server.pid) - cpu_started
            loaded_delivered += len(streams.received)
    finally:
        await streams.close()
        for server in (s_server, c_server):
            server.send_signal(signal.SIGINT)
        for server in (s_server, c_server):
            server.wait(timeout=60)

    print(f"\nEvent streams: PostgreSQL, 2 serve processes (streams, orders), {len(tokens)} locations")
    print(f"{len(listeners)} streams opened in {opening:.1f} s")
    print(
        f"1. {len(times)} orders at {args.rate:.0f}/s for {args.seconds:.0f} s: {len(upper)} of {expected} receipts;"
        f" from the POST sent: median {statistics.median(upper):.1f} ms, p99 {percentile(upper, 99):.1f} ms;"
        f" from its answer: median {statistics.median(lower):.1f} ms, p99 {percentile(lower, 99):.1f} ms"
    )
    print(
        f"   streams' process CPU: {paced_cpu:.2f} s for {paced_delivered} events delivered:"
        f" {paced_cpu / max(1, paced_delivered) * 1000:.2f} s per 1,000"
    )
    print(
        f"2. memory of the streams' process: {few / 1024:.1f} MB with {STREAMS_PER_CONNECTION} streams,"
        f" {many / 1024:.1f} MB with {len(listeners)}: {per_stream:.1f} KB per open stream"
    )
    if not args.runs:
        print(f"(server logs in {workdir})")
        return
    none, opened = statistics.median(rates["none"]), statistics.median(rates["open"])
    print(
        f"3. order creation (wrk -c{args.connections}, {args.duration} s runs): streams closed"
        f" {' '.join(f'{r:.0f}' for r in rates['none'])} req/s (median {none:.0f}),"
        f" {len(listeners)} streams open {' '.join(f'{r:.0f}' for r in rates['open'])} (median {opened:.0f}):"
        f" {opened / none:.1%}"
    )
    print(
        f"   streams' process CPU during the open runs: {loaded_cpu:.2f} s for {loaded_delivered} events delivered:"
        f" {loaded_cpu / max(1, loaded_delivered) * 1000:.2f} s per 1,000"
    )
    print(f"(server logs in {workdir})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", default="comptoir_bench_streams")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--locations", type=int, default=334, help="3 streams each")
    parser.add_argument("--rate", type=float, default=50.0, help="orders per second (part 1)")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of part 1")
    parser.add_argument("--runs", type=int, default=3, help="wrk runs of each kind (part 3)")
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=32)
    args = parser.parse_args()
    database_url = f"postgresql://postgres@127.0.0.1:5432/{args.database}"
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.factories
    asyncio.run(recreate_database(ADMIN_URL, args.database))
    print("preparing", flush=True)
    tokens = asyncio.run(prepare(database_url, args.locations))
    workdir = Path(tempfile.mkdtemp(prefix="comptoir-bench-streams-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")} | {
        "COMPTOIR_DATABASE_URL": database_url,
        "COMPTOIR_SECRET_KEY": KEY,
        "COMPTOIR_RATE_LIMITS": "off",
        "COMPTOIR_REDIS_URL": args.redis,
        "COMPTOIR_REDIS_PREFIX": f"comptoir-bench-streams:{os.getpid()}:",
        "COMPTOIR_LOG_LEVEL": "warning",
    }
    asyncio.run(run(args, tokens, workdir, env))


if __name__ == "__main__":
    main()
