"""What the in-process profiles drive (benchmarks/order_instructions.py, benchmarks/order_cpu.py):
the kinds of work, their data, and the child process that does them.

Kinds (docs/performance.md):
- `post`: `POST /v1/location/orders` with the realistic order of benchmarks/orders.py;
- `get`: `GET /v1/location/orders/:id` over the orders the warm-up created;
- `location`: `GET /v1/location`;
- `delivery`: one callback delivery by `comptoir worker` to a local receiver (an aiohttp
  process of its own, as in benchmarks/callbacks.py), one location update event each;
- `idle`: the app of the request kinds with nothing to do, its timers on: `--requests`
  seconds (the delivery worker's polls, the timed jobs, the request log's flush).

The three request kinds run the app `comptoir serve` runs (`app_from_environment`: its
logging configured, uvloop), driven through its ASGI interface by a bare client in the same
process (`AsgiClient`), with the production defaults: rate limits on (in-process counters),
request log on, log level info (one access line per request, written to a file), metrics
on, the connection cache's LISTEN connection. The timers whose cost is per second (the
in-process delivery worker's poll, the timed jobs) are off (`QUIET`) and measured by `idle`.
Requests rotate over `TOKENS` connections of the demo location, so no rate limit refuses
any. A delivery runs `comptoir worker` itself (`comptoir.cli.main(["worker"])`), its timed
jobs and its idle poll off, stopped once it has delivered the events queued for it.

A child process (`python benchmarks/_drive.py --kind ...`) does its warm-up, then calls
`Hooks.warm` (start the clock, the sampler), does `--requests` of its kind, then calls
`Hooks.done`: what runs under callgrind, or is sampled (`CpuSampler`, or py-spy), is exactly
this. The ids the warm-up made are tabulated in between (`steady_ids`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import greenlet
import httpx

from _common import free_port, fresh_demo, recreate_database

ROOT = Path(__file__).resolve().parent.parent
COMPTOIR = str(Path(sys.executable).parent / "comptoir")
ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
KINDS = ("post", "get", "list", "location", "health", "delivery", "idle")
LABELS = {
    "post": "POST /v1/location/orders",
    "get": "GET /v1/location/orders/:id",
    "list": "GET /v1/location/orders (a page of 100)",
    "location": "GET /v1/location",
    "health": "GET /v1/health",
    "delivery": "callback delivery",
    "idle": "idle serve process, 1 s",
}
# The timers of a process, whose cost is per second, not per request: off for the request
# kinds and the deliveries (under callgrind, ~50x slower, they would fire ~50x as often per
# request), on for `idle`, which measures them.
QUIET = {"COMPTOIR_RUN_WORKER": "0", "COMPTOIR_TIMED_JOBS_INTERVAL_SECONDS": "3600"}
IDLE_POLL = 3600.0  # the delivery worker's poll interval in `delivery` (the default: 0.2 s)
TOKENS = 20  # connections the requests rotate over: 500/min and 2,500/h each
LOG_NAME = "drive.log"  # the child's stderr (its log lines), in the work directory


# --- the parent's side: data, receiver, one child run -----------------------------------------


@dataclass
class Setup:
    """The databases and processes the children need, made once per benchmark run."""

    work: Path
    env: dict[str, str]  # of the request kinds' children
    tokens: Path  # one access token a line
    delivery_env: dict[str, str] | None = None
    delivery_ids: tuple[int, int, int, int] | None = None

    def queue(self, count: int) -> None:
        """Commit `count` location updates, each one event for the receiver (delivery)."""
        import callbacks

        assert self.delivery_env is not None
        assert self.delivery_ids is not None
        url = self.delivery_env["COMPTOIR_DATABASE_URL"]
        asyncio.run(callbacks.produce(url, self.delivery_ids, count, None))

    def child(self, kind: str, requests: int, warm_up: int, *extra: str) -> list[str]:
        """The command line of one child run (prefix it with valgrind or not)."""
        return [
            sys.executable, str(Path(__file__)), "--kind", kind, "--requests", str(requests),
            "--warm-up", str(warm_up), "--tokens", str(self.tokens), *extra,
        ]  # fmt: skip

    def child_env(self, kind: str) -> dict[str, str]:
        if kind == "delivery":
            assert self.delivery_env is not None
            return self.delivery_env | QUIET
        return self.env if kind == "idle" else self.env | QUIET


def production_settings(database: str) -> dict[str, str]:
    """The environment of a child: PostgreSQL database `database`, everything else at the
    production defaults (no COMPTOIR_* variable inherited from the caller's shell)."""
    from _common import KEY

    return {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")} | {
        "COMPTOIR_DATABASE_URL": f"postgresql://postgres@127.0.0.1:5432/{database}",
        "COMPTOIR_SECRET_KEY": KEY,
        "PYTHONHASHSEED": "0",
        # the outage bounds (docs/operations.md "When a dependency fails") far above what
        # callgrind's 50-fold slowness makes of a pool wait or a statement: nothing measured
        # here may look like an outage
        **{f"COMPTOIR_DATABASE_{bound}_TIMEOUT_SECONDS": "120" for bound in ("CONNECT", "POOL", "STATEMENT")},
        "COMPTOIR_REDIS_TIMEOUT_SECONDS": "60",
    }


def lean(env: dict[str, str]) -> dict[str, str]:
    """`--lean`: rate limits, request log and info lines off, as the figures quoted in
    docs/operations.md "Benchmarks" before docs/performance.md were measured."""
    return env | {"COMPTOIR_RATE_LIMITS": "off", "COMPTOIR_REQUEST_LOGS": "off", "COMPTOIR_LOG_LEVEL": "warning"}


@contextlib.contextmanager
def prepared(database: str, kinds: list[str], work: Path, *, lean_settings: bool = False) -> Iterator[Setup]:
    """(Re)create `database` with the demo data and `TOKENS` connections; for `delivery`,
    `<database>_deliveries` with one subscribed callback pointing at a receiver started
    here (and stopped on exit)."""
    import callbacks
    from location_get import make_tokens

    env = production_settings(database)
    if lean_settings:
        env = lean(env)
    setup = Setup(work, env, work / "tokens.txt")
    fresh_demo(COMPTOIR, ADMIN_URL, database, env)
    setup.tokens.write_text("\n".join(asyncio.run(make_tokens(env, TOKENS))) + "\n")
    if "delivery" not in kinds:
        yield setup
        return
    name = f"{database}_deliveries"
    asyncio.run(recreate_database(ADMIN_URL, name))
    setup.delivery_env = production_settings(name) | {
        "COMPTOIR_SECRET_KEY": callbacks.KEY,
        "COMPTOIR_CALLBACK_ALLOWED_NETWORKS": "127.0.0.0/8",  # the receiver runs on this machine
    }
    if lean_settings:
        setup.delivery_env = lean(setup.delivery_env)
    port = free_port()
    receiver = subprocess.Popen([sys.executable, "-c", callbacks.RECEIVER, str(port)])
    try:
        for _ in range(100):
            with contextlib.suppress(httpx.TransportError):
                httpx.get(f"http://127.0.0.1:{port}/stats")
                break
            time.sleep(0.1)
        sys.path.insert(0, str(ROOT))  # tests.factories
        saved = dict(os.environ)
        setup.delivery_ids = asyncio.run(
            callbacks.prepare(setup.delivery_env["COMPTOIR_DATABASE_URL"], f"http://127.0.0.1:{port}/hook")
        )
        os.environ.clear()
        os.environ.update(saved)  # prepare() sets COMPTOIR_* in this process
        yield setup
    finally:
        receiver.terminate()
        receiver.wait()


# --- the child's side ----------------------------------------------------------------------------


def steady_ids() -> None:
    """Every kind of public id the warm-up made, tabulated (comptoir.kit.ids: a process does
    it by itself after TABULATE_AFTER ids of a kind, a few hundred orders), so that the
    measured requests run as in a process that has served for a while, and the one-off 0.1 s
    of a table is not in them."""
    from comptoir.kit import ids

    for kind in list(ids._uses):
        ids.tabulate(kind)


class AsgiClient:
    """The harness's client: one request at a time handed to the app's ASGI callable as
    `serve`'s protocol hands it over (the scope, the whole body in one message), and the
    answer collected; it costs a request a few microseconds, where httpx's ASGITransport cost
    a third of a GET's CPU (URL parsing, cookies, a failed `import trio` per request)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def request(self, method: str, path: str, token: str, body: bytes = b"") -> tuple[int, bytes]:
        headers = [(b"host", b"comptoir"), (b"accept", b"*/*")]
        if token:  # none for the bare endpoint, as wrk asks it
            headers.append((b"x-access-token", token.encode()))
        if body:
            headers += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        scope = {
            "type": "http", "asgi": {"version": "3.0", "spec_version": "2.4"}, "http_version": "1.1",
            "method": method, "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
            "root_path": "", "headers": headers, "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000),
        }  # fmt: skip
        answered = asyncio.Event()
        status, parts, sent = 0, [], False

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await answered.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                parts.append(message.get("body", b""))
                if not message.get("more_body", False):
                    answered.set()

        await self.app(scope, receive, send)
        return status, b"".join(parts)


async def drive_requests(kind: str, tokens: list[str], warm_up: int, requests: int, hooks: Hooks) -> None:
    """The warm-up (creations, order GETs, location GETs: plans, caches, id blocks, every
    token seen), then `requests` of `kind` (none for `none`)."""
    from comptoir.app import app_from_environment
    from orders import realistic_order

    app = app_from_environment()
    client = AsgiClient(app)
    body = json.dumps(realistic_order(), separators=(",", ":")).encode()  # 2.5 KB
    turn = iter(range(1 << 62))

    async def one(kind: str, i: int, created: list[str]) -> str:
        token = tokens[next(turn) % len(tokens)]
        if kind == "post":
            status, answer = await client.request("POST", "/v1/location/orders", token, body)
        elif kind == "get":
            status, answer = await client.request("GET", f"/v1/location/orders/{created[i % len(created)]}", token)
        elif kind == "list":  # the newest 100 of the warm-up's orders (at least 100 of them)
            status, answer = await client.request("GET", "/v1/location/orders", token)
        elif kind == "health":  # the bare endpoint: the middleware alone, no token read
            status, answer = await client.request("GET", "/v1/health", "")
        else:
            status, answer = await client.request("GET", "/v1/location", token)
        assert status == 200, answer
        return str(json.loads(answer)["id"]) if kind == "post" and i < warm_up else ""

    async with app.router.lifespan_context(app):
        created = [await one("post", i, []) for i in range(warm_up)]
        for i in range(warm_up):
            await one("get", i, created)
            await one("location", i, created)
        steady_ids()
        hooks.warm()
        if kind == "idle":
            await asyncio.sleep(requests)
        for i in range(requests if kind not in ("none", "idle") else 0):
            await one(kind, i + warm_up, created)
        hooks.done()


def drive_deliveries(warm_up: int, requests: int, hooks: Hooks) -> None:
    """`comptoir worker`, stopped (SIGTERM, as an operator would) once it has delivered
    `warm_up + requests` events; `hooks.warm` after the first `warm_up`."""
    import comptoir.callbacks.worker as worker
    from comptoir.cli import main

    deliver = worker.delivered
    count = 0

    def counted(connection_id: int, item: Any, outcome: Any, verdict: str) -> None:
        nonlocal count
        deliver(connection_id, item, outcome, verdict)
        assert verdict == "acknowledged", outcome
        count += 1
        if count == warm_up:
            steady_ids()
            hooks.warm()
        if count == warm_up + requests:
            hooks.done()
            os.kill(os.getpid(), signal.SIGTERM)

    worker.delivered = counted
    # no idle poll: it is a cost per second (see `idle`); the queued events are claimed at
    # start, and a lane that ends wakes the worker, which claims again
    assert worker.DeliveryWorker.__init__.__kwdefaults__ is not None
    worker.DeliveryWorker.__init__.__kwdefaults__["poll_interval"] = IDLE_POLL
    if requests == 0 and warm_up == 0:
        raise SystemExit("nothing to deliver")
    main(["worker"])
    if count != warm_up + requests:
        raise SystemExit(f"the worker stopped after {count} of {warm_up + requests} deliveries")


class CpuSampler:
    """A sampling profiler of this process's CPU time: every `interval` seconds of CPU (user
    and system, `ITIMER_PROF`), the Python stack running then is counted. Unlike a wall-clock
    sampler, time spent waiting for a CPU on a loaded machine is never sampled. C code shows as
    the Python function that called it (a signal is handled between two bytecodes); the
    output is py-spy's raw format (`function (file:first line)` frames, root first)."""

    def __init__(self, output: Path, interval: float) -> None:
        self.output, self.interval = output, interval
        self.counts: Counter[str] = Counter()

    def start(self) -> None:
        signal.signal(signal.SIGPROF, self._sample)
        signal.setitimer(signal.ITIMER_PROF, self.interval, self.interval)

    def _sample(self, _signal: int, frame: FrameType | None) -> None:
        stack = []
        runner = greenlet.getcurrent()
        while True:
            while frame is not None:
                code = frame.f_code
                stack.append(f"{code.co_qualname} ({code.co_filename}:{code.co_firstlineno})")
                frame = frame.f_back
            # SQLAlchemy runs a session's work in a greenlet: go on with the frames of the
            # coroutine that started it (`greenlet_spawn`), suspended in the parent greenlet
            runner = runner.parent
            if runner is None:
                break
            frame = runner.gr_frame
        self.counts[";".join(reversed(stack))] += 1

    def stop(self) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        self.output.write_text("".join(f"{stack} {count}\n" for stack, count in self.counts.items()))


class Hooks:
    """What happens at the end of the warm-up and at the end of the measured requests:
    the process CPU time is read, and with `spy`, this process is sampled in between, by
    py-spy (`--sampler py-spy`, wall-clock samples while the GIL is held, native frames
    included) or by `CpuSampler` (`--sampler cpu`)."""

    def __init__(self, spy: Path | None, sampler: str, rate: int, result: Path | None) -> None:
        self.spy, self.sampler, self.rate, self.result = spy, sampler, rate, result
        self.profiler: subprocess.Popen[bytes] | None = None
        self.cpu_sampler: CpuSampler | None = None
        self.cpu = self.wall = 0.0

    def warm(self) -> None:
        if self.spy is not None and self.sampler == "cpu":
            self.cpu_sampler = CpuSampler(self.spy, 1 / self.rate)
        elif self.spy is not None:
            command = [
                "py-spy", "record", "--pid", str(os.getpid()), "--rate", str(self.rate), "--format", "raw",
                "--function", "--full-filenames", "--native", "--gil", "--output", str(self.spy),
            ]  # fmt: skip
            self.profiler = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            time.sleep(1.0)  # attached before the first measured request
        self.cpu, self.wall = time.process_time(), time.perf_counter()
        if self.cpu_sampler is not None:
            self.cpu_sampler.start()

    def done(self) -> None:
        if self.cpu_sampler is not None:
            self.cpu_sampler.stop()
        cpu, wall = time.process_time() - self.cpu, time.perf_counter() - self.wall
        if self.profiler is not None:
            self.profiler.send_signal(signal.SIGINT)  # py-spy writes its file and exits
            _, errors = self.profiler.communicate(timeout=120)
            if not self.spy or not self.spy.exists():
                raise SystemExit(f"py-spy wrote nothing:\n{errors.decode()}")
        if self.result is not None:
            self.result.write_text(json.dumps({"cpu": cpu, "wall": wall}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kind", choices=[*KINDS, "none"], required=True)
    parser.add_argument("--requests", type=int, required=True)
    parser.add_argument("--warm-up", type=int, required=True)
    parser.add_argument("--tokens", type=Path, required=True)
    parser.add_argument("--spy", type=Path, help="py-spy's raw output (sampled between warm-up and end)")
    parser.add_argument("--sampler", choices=["py-spy", "cpu"], default="py-spy", help="see Hooks")
    parser.add_argument("--rate", type=int, default=200, help="samples per second (of wall time, of CPU time)")
    parser.add_argument("--result", type=Path, help="where to write the measured CPU and wall seconds (JSON)")
    args = parser.parse_args()
    hooks = Hooks(args.spy, args.sampler, args.rate, args.result)
    if args.kind == "delivery":
        drive_deliveries(args.warm_up, args.requests, hooks)
        return
    import uvloop

    tokens = args.tokens.read_text().split()
    uvloop.run(drive_requests(args.kind, tokens, args.warm_up, args.requests, hooks))  # as `serve` does


if __name__ == "__main__":
    main()
