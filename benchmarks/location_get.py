"""Throughput and latency of `GET /v1/location` against a bare endpoint of the same app.

The location benchmark: one `comptoir serve` process; the authenticated,
rate-limited `GET /v1/location` (token lookup, rate-limit count, location read, ETag) against
`GET /v1/health`, which goes through the same middleware but touches no token and no
database. Requests rotate over many connections' tokens, as real traffic does, so the rate
limits stay on without refusing anything (500/min per connection). Runs alternate between the
two endpoints; the medians of the runs and their ratio are printed.

Needs wrk (Debian: `apt-get install -y wrk`). Run by hand, not in CI:

    uv run python benchmarks/location_get.py                      # SQLite
    uv run python benchmarks/location_get.py --database postgresql://postgres@127.0.0.1:5432/bench --redis redis://127.0.0.1:6379/0

With a PostgreSQL URL the database must exist and be empty or hold an earlier run's data.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from _common import free_port, run_wrk

ROOT = Path(__file__).resolve().parent.parent
COMPTOIR = str(Path(sys.executable).parent / "comptoir")
SECRET_KEY = "benchmark-secret-key-at-least-32-bytes-long"

WRK_SCRIPT = """
local tokens = {}
local i = 0
init = function(args)
  for line in io.lines(args[1]) do tokens[#tokens + 1] = line end
end
request = function()
  i = i + 1
  return wrk.format("GET", args_path, {["X-Access-Token"] = tokens[(i % #tokens) + 1]})
end
"""


async def make_tokens(env: dict[str, str], count: int) -> list[str]:
    """`count` location-level connections of the demo location, each with its own token."""
    os.environ.update(env)
    from sqlalchemy import select

    from comptoir.applications.service import create_client
    from comptoir.auth.scopes import parse_scope
    from comptoir.cli.demo import EMAIL, LOCATION_SCOPE
    from comptoir.config import Settings
    from comptoir.connections.service import authorise
    from comptoir.db.engine import create_database
    from comptoir.db.server_key import load_data_key
    from comptoir.models import Catalog, CustomerList, Location
    from comptoir.users.service import find_user_by_email

    settings = Settings()
    db = create_database(settings)
    tokens = []
    try:
        key = await load_data_key(db, settings.server_key())  # tokens derive from the data key
        async with db.transaction() as session:
            user = await find_user_by_email(session, EMAIL)
            assert user is not None
            catalog = await session.scalar(select(Catalog).limit(1))
            customer_list = await session.scalar(select(CustomerList).limit(1))
            assert catalog is not None
            assert customer_list is not None
            location = await session.get(Location, catalog.location_id)
            assert location is not None
            client = await create_client(session, name="Benchmark client", redirect_uris=[])
            scope = parse_scope(LOCATION_SCOPE)
            for i in range(count):
                grant = await authorise(
                    session,
                    key,
                    client=client,
                    user=user,
                    scope=scope,
                    location=location,
                    catalog=catalog,
                    customer_list=customer_list,
                    name=f"bench-{i}",
                )
                tokens.append(grant["access_token"])
    finally:
        await db.dispose()
    return tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", help="COMPTOIR_DATABASE_URL (default: a fresh SQLite file)")
    parser.add_argument("--redis", help="COMPTOIR_REDIS_URL (default: in-process rate-limit counters)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=32, help="concurrent wrk connections")
    parser.add_argument("--tokens", type=int, default=1000, help="connections to rotate over")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is required: apt-get install -y wrk")

    workdir = Path(tempfile.mkdtemp(prefix="comptoir-bench-"))
    env = {
        "COMPTOIR_DATABASE_URL": args.database or f"sqlite:///{workdir / 'comptoir.db'}",
        "COMPTOIR_SECRET_KEY": SECRET_KEY,
        "COMPTOIR_RATE_LIMITS": "on",
    }
    if args.redis:
        env["COMPTOIR_REDIS_URL"] = args.redis
        env["COMPTOIR_REDIS_PREFIX"] = f"comptoir-bench:{os.getpid()}:"
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")} | env
    subprocess.run([COMPTOIR, "demo"], env=full_env, check=True, capture_output=True)
    tokens = asyncio.run(make_tokens(env, args.tokens))
    tokens_file = workdir / "tokens.txt"
    tokens_file.write_text("\n".join(tokens) + "\n")

    port = free_port()
    log = (workdir / "server.log").open("w")
    server = subprocess.Popen(
        [COMPTOIR, "serve", "--port", str(port)], env=full_env, stdout=subprocess.DEVNULL, stderr=log
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                if httpx.get(f"{base}/v1/health").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        check = httpx.get(f"{base}/v1/location", headers={"X-Access-Token": tokens[0]})
        assert check.status_code == 200, check.text
        assert "RateLimit" in check.headers

        scripts = {}
        for name, path in (("bare", "/v1/health"), ("location", "/v1/location")):
            script = workdir / f"{name}.lua"
            script.write_text(f'args_path = "{path}"\n' + WRK_SCRIPT)
            scripts[name] = script
        for name in scripts:  # warm-up
            run_wrk(base, scripts[name], [str(tokens_file)], 3, args.connections, threads=1)
        results: dict[str, list[dict[str, float]]] = {"bare": [], "location": []}
        for run in range(args.runs):
            order = ("bare", "location") if run % 2 == 0 else ("location", "bare")
            for name in order:
                results[name].append(
                    run_wrk(base, scripts[name], [str(tokens_file)], args.duration, args.connections, threads=1)
                )
        ratios = [loc["rps"] / bare["rps"] for loc, bare in zip(results["location"], results["bare"], strict=True)]
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=15)
        log.close()

    database = "PostgreSQL" if env["COMPTOIR_DATABASE_URL"].startswith("postgres") else "SQLite"
    limits = "Redis" if args.redis else "in-process"
    print(f"GET /v1/location vs bare endpoint: 1 serve process, {database}, {limits} rate-limit counters,")
    print(f"wrk -t1 -c{args.connections}, {args.runs} alternating runs of {args.duration}s, {len(tokens)} tokens")
    print(f"{'endpoint':<22}{'req/s (runs)':<48}{'median':>10}{'p50 ms':>10}{'p99 ms':>10}")
    for name, label in (("bare", "GET /v1/health (bare)"), ("location", "GET /v1/location")):
        runs = results[name]
        rps = [r["rps"] for r in runs]
        print(
            f"{label:<22}{' '.join(f'{x:.0f}' for x in rps):<48}{statistics.median(rps):>10.0f}"
            f"{statistics.median(r['p50'] for r in runs):>10.2f}{statistics.median(r['p99'] for r in runs):>10.2f}"
        )
    median_ratio = statistics.median(r["rps"] for r in results["location"]) / statistics.median(
        r["rps"] for r in results["bare"]
    )
    print(f"ratio of medians: {median_ratio:.1%}; per-run ratios: {', '.join(f'{r:.1%}' for r in ratios)}")
    print(f"(server log and tokens in {workdir})")


if __name__ == "__main__":
    main()
