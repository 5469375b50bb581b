"""The request log's cost: order creation with request logging on
and off, in the same run, on PostgreSQL with 2 `serve` processes each, Redis, rate limits
off.

Two servers run side by side on one database, one with COMPTOIR_REQUEST_LOGS=on (the
default) and one with it off; wrk posts the realistic 2 KB order of benchmarks/orders.py
to one of them at a time, alternating (on, off, off, on, ...), so drift of the machine or
of the growing tables falls on both alike. Prints requests/s, p50 and p99 per run, the
medians and the cost of logging: 1 - median(on) / median(off) (target: under 5%). Then
checks that the log holds one line per request made to the logging server.

Needs wrk (`apt-get install -y wrk`). Run by hand, not in CI:

    uv run python benchmarks/request_log.py --runs 5 --duration 10
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import signal
import statistics
import subprocess
import time
from pathlib import Path

import asyncpg

from _common import free_port, run_wrk, wait_until_up
from orders import COMPTOIR, POST_SCRIPT, URL, prepare


def start(env: dict[str, str], logging: str, workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    log = (workdir / f"server-{logging}.log").open("w")
    server = subprocess.Popen(
        [COMPTOIR, "serve", "--port", str(port), "--workers", "2", "--no-worker"],
        env=env | {"COMPTOIR_REQUEST_LOGS": logging},
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    base = f"http://127.0.0.1:{port}"
    wait_until_up(base)
    return server, base


async def count_logged() -> int:
    connection = await asyncpg.connect(URL)
    try:
        return await connection.fetchval("SELECT count(*) FROM request_logs")
    finally:
        await connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--runs", type=int, default=5, help="runs of each setting")
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=32)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is required: apt-get install -y wrk")

    workdir, env, demo, order_file = prepare(args.redis)
    token = demo["tokens"]["location"]
    script = workdir / "create.lua"
    script.write_text(POST_SCRIPT)
    servers = {logging: start(env, logging, workdir) for logging in ("on", "off")}
    try:
        for _, base in servers.values():  # warm-up
            run_wrk(base, script, [str(order_file), token], 3, args.connections)
        time.sleep(2)  # the warm-up's log lines are written
        logged_before = asyncio.run(count_logged())
        results: dict[str, list[dict[str, float]]] = {"on": [], "off": []}
        requests_on = 0.0
        for run in range(args.runs):
            for logging in ("on", "off") if run % 2 == 0 else ("off", "on"):
                base = servers[logging][1]
                figures = run_wrk(base, script, [str(order_file), token], args.duration, args.connections)
                results[logging].append(figures)
                if logging == "on":
                    requests_on += figures["rps"] * args.duration
        time.sleep(2)
        logged = asyncio.run(count_logged()) - logged_before

        print(
            "\nRequest log: order creation (POST /v1/location/orders, 2 KB), PostgreSQL, 2 serve processes"
            " per setting, Redis, rate limits off"
        )
        print(f"wrk -t2 -c{args.connections}, {args.runs} alternating runs of {args.duration}s per setting")
        print(f"{'request log':<14}{'req/s per run':<44}{'median':>9}{'p50 ms':>9}{'p99 ms':>9}")
        medians = {}
        for logging, runs in results.items():
            medians[logging] = statistics.median(r["rps"] for r in runs)
            print(
                f"{logging:<14}{' '.join(format(r['rps'], '.0f') for r in runs):<44}{medians[logging]:>9.0f}"
                f"{statistics.median(r['p50'] for r in runs):>9.2f}{statistics.median(r['p99'] for r in runs):>9.2f}"
            )
        print(f"cost of logging: {1 - medians['on'] / medians['off']:.1%} of order-creation throughput (target < 5%)")
        print(f"log lines written during the runs: {logged:,} (about {requests_on:,.0f} requests made with logging on)")
    finally:
        for server, _ in servers.values():
            server.send_signal(signal.SIGINT)
            server.wait(timeout=30)
    print(f"(server logs in {workdir})")


if __name__ == "__main__":
    main()
