"""The back office's order pages at scale, on SQLite and PostgreSQL (docs/back-office.md "Orders").

For each database: a fresh demo (`comptoir migrate`, `comptoir demo`), one `comptoir serve`
(rate limits and the request log off), one realistic order created through the API, then
copied by one SQL statement into N orders of the demo's first location (default 100,000):
the newest 200 today and open (the board's, with the template), the others over the past months, mostly
completed. Signed in as the demo user, it times sequential requests (HTTP on 127.0.0.1
included) and prints p50/p99/max of each:

- the location's orders page (first page of 50, newest first) and filtered by status;
- the account's orders page (every location);
- the live board's first paint (its whole page: 200 open orders) and the part its script polls;
- optionally (`--paints`), Chromium's first-contentful-paint of the board at 768 px.

Each as the client saw it and as the server's request log timed it (without the transfer, and
without the client's share of a machine other work keeps busy).

Targets: orders page p99 under 100 ms, board page p99 under 150 ms. Run by hand:

    uv run python benchmarks/back_office_orders.py
    uv run python benchmarks/back_office_orders.py --orders 100000 --requests 200 --databases sqlite

The PostgreSQL database `comptoir_bench_back_office` is (re)created by each run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import asyncpg
import httpx

from _common import free_port, percentile, recreate_database, wait_until_up
from comptoir.models import Order
from orders import realistic_order

COMPTOIR = str(Path(sys.executable).parent / "comptoir")
ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
NAME = "comptoir_bench_back_office"
PG_URL = f"postgresql://postgres@127.0.0.1:5432/{NAME}"
KEY = "benchmark-secret-key-at-least-32-bytes-long"
OPEN_TODAY = 200
# every column but the id (each database gives it) and those the copy computes
DURATION = re.compile(r"method=GET path=/(?:locations|accounts)/\S+ status=200 duration_ms=([\d.]+)")
COPIED = [c.key for c in Order.__table__.columns if c.key not in ("id", "status", "created_at", "updated_at")]


def _copy_sql(dialect: str, count: int) -> str:
    """The statement copying order :template into `count` more: the newest OPEN_TODAY of them
    "new", 10 s apart (today), the others "completed", a minute apart before them."""
    columns = ", ".join(COPIED)
    status = f"CASE WHEN g.n < {OPEN_TODAY} THEN 'new' ELSE 'completed' END"
    seconds = f"(CASE WHEN g.n < {OPEN_TODAY} THEN g.n * 10 ELSE 2000 + g.n * 60 END)"
    if dialect == "postgresql":
        moment = f"o.created_at - make_interval(secs => {seconds})"
        series = f"generate_series(1, {count}) AS g(n)"
        return (
            f"INSERT INTO orders ({columns}, status, created_at, updated_at) "
            f"SELECT {', '.join('o.' + c for c in COPIED)}, {status}, {moment}, {moment} "
            f"FROM orders o, {series} WHERE o.id = $1"
        )
    moment = f"strftime('%Y-%m-%d %H:%M:%S', o.created_at, '-' || {seconds} || ' seconds') || '.000000'"
    return (
        f"WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < {count}) "
        f"INSERT INTO orders ({columns}, status, created_at, updated_at) "
        f"SELECT {', '.join('o.' + c for c in COPIED)}, {status}, {moment}, {moment} "
        "FROM orders o, g WHERE o.id = ?"
    )


async def _fill_postgresql(count: int) -> None:
    connection = await asyncpg.connect(PG_URL)
    try:
        template = await connection.fetchval("SELECT max(id) FROM orders")
        await connection.execute(_copy_sql("postgresql", count), template)
        await connection.execute("VACUUM ANALYZE orders")
    finally:
        await connection.close()


def _fill_sqlite(path: Path, count: int) -> None:
    connection = sqlite3.connect(path, timeout=60)
    try:
        template = connection.execute("SELECT max(id) FROM orders").fetchone()[0]
        connection.execute(_copy_sql("sqlite", count), (template,))
        connection.commit()
        connection.execute("ANALYZE")
        connection.commit()
    finally:
        connection.close()


def _log_in(http: httpx.Client, demo: dict) -> None:
    form = http.get("/login")
    csrf = re.search(r'name="csrf" value="([^"]+)"', form.text)
    if csrf is None:
        raise SystemExit("no login form")
    done = http.post(
        "/login", data={"csrf": csrf.group(1), "email": demo["user"]["email"], "password": demo["user"]["password"]}
    )
    if done.status_code != 303:
        raise SystemExit(f"the demo user could not log in: {done.status_code}")


def _time(http: httpx.Client, url: str, requests: int, expect: str, log: Path) -> tuple[list[float], list[float]]:
    """The client's timings of `requests` GETs of `url`, and the server's own (its request
    log's durations: without the transfer and the client's share of a busy machine)."""
    http.get(url)  # warm
    start = log.stat().st_size
    timings = []
    for _ in range(requests):
        started = time.perf_counter()
        answer = http.get(url)
        timings.append((time.perf_counter() - started) * 1000)
        if answer.status_code != 200 or expect not in answer.text:
            raise SystemExit(f"{url}: {answer.status_code}, not the page expected, figures invalid")
    time.sleep(0.5)  # the server's last lines written
    with log.open() as lines:
        lines.seek(start)
        served = [float(found.group(1)) for found in DURATION.finditer(lines.read())]
    return timings, served[-requests:]  # the warm-up's line may come after `start`


def _paints(base: str, demo: dict, path: str, count: int) -> list[float]:
    """Chromium's first-contentful-paint of `path` (ms from navigation), `count` loads, at 768 px."""
    from playwright.sync_api import sync_playwright

    found = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 768, "height": 1024})
        page.goto(f"{base}/login")
        page.get_by_label("Email").fill(demo["user"]["email"])
        page.get_by_label("Password").fill(demo["user"]["password"])
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{base}/")
        for _ in range(count):
            page.goto(f"{base}{path}")
            found.append(
                page.evaluate(
                    "new Promise(done => { const seen = () => {"
                    " const paint = performance.getEntriesByName('first-contentful-paint')[0];"
                    " paint ? done(paint.startTime) : setTimeout(seen, 10); }; seen(); })"
                )
            )
        browser.close()
    return found


def run(database: str, count: int, requests: int, paints: int) -> list[tuple[str, list[float], list[float]]]:
    workdir = Path(tempfile.mkdtemp(prefix="comptoir-bench-bo-"))
    if database == "postgresql":
        asyncio.run(recreate_database(ADMIN_URL, NAME))
        url = PG_URL
    else:
        url = f"sqlite:///{workdir / 'comptoir.db'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")} | {
        "COMPTOIR_DATABASE_URL": url,
        "COMPTOIR_SECRET_KEY": KEY,
        "COMPTOIR_RATE_LIMITS": "off",
        "COMPTOIR_REQUEST_LOGS": "off",
        "COMPTOIR_LOG_LEVEL": "info",  # a line per request, with its duration
    }
    subprocess.run([COMPTOIR, "migrate"], env=env, check=True, capture_output=True, cwd=workdir)
    demo = json.loads(subprocess.run([COMPTOIR, "demo"], env=env, check=True, capture_output=True, text=True).stdout)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = (workdir / "server.log").open("w")
    server = subprocess.Popen([COMPTOIR, "serve", "--port", str(port)], env=env, cwd=workdir, stdout=log, stderr=log)
    try:
        wait_until_up(base)
        token = {"X-Access-Token": demo["tokens"]["location"]}
        made = httpx.post(f"{base}/v1/location/orders", json=realistic_order(), headers=token)
        if made.status_code != 200:
            raise SystemExit(f"the template order was refused: {made.text}")
        started = time.perf_counter()
        if database == "postgresql":
            asyncio.run(_fill_postgresql(count - 1))
        else:
            _fill_sqlite(workdir / "comptoir.db", count - 1)
        print(f"{database}: {count:,} orders written in {time.perf_counter() - started:.0f} s")
        location = demo["location_ids"][0]
        with httpx.Client(base_url=base, timeout=30) as http:
            _log_in(http, demo)
            pages = [
                ("orders page", f"/locations/{location}/orders", "Next</a>"),
                ("orders, status=new", f"/locations/{location}/orders?status=new", "Next</a>"),
                ("account's orders", f"/accounts/{demo['account_id']}/orders", "Next</a>"),
                ("board (200 open)", f"/locations/{location}/today", "200 open orders"),
                ("board's polled part", f"/locations/{location}/today/orders", "200 open orders"),
            ]
            log_file = workdir / "server.log"
            results = [(label, *_time(http, url, requests, expect, log_file)) for label, url, expect in pages]
        if paints:
            results.append(("board, Chromium's FCP", _paints(base, demo, f"/locations/{location}/today", paints), []))
            # the same browser's floor: a short page of the back office (no list)
            results.append(("new account, Chromium's FCP", _paints(base, demo, "/accounts/new", paints), []))
        return results
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
        log.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=100_000)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--databases", default="sqlite,postgresql")
    parser.add_argument("--paints", type=int, default=20, help="board loads in Chromium (0: none)")
    args = parser.parse_args()
    for database in args.databases.split(","):
        results = run(database, args.orders, args.requests, args.paints)
        print(f"{'':<24}{'':>9}{'client (HTTP on 127.0.0.1)':^27}{'server (its request log)':^27}")
        print(f"{'page':<24}{'requests':>9}" + f"{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}" * 2)
        for label, timings, served in results:
            print(
                f"{label:<24}{len(timings):>9}"
                + "".join(
                    f"{statistics.median(t):>9.1f}{percentile(t, 99):>9.1f}{max(t):>9.1f}"
                    for t in (timings, served)
                    if t
                )
            )


if __name__ == "__main__":
    main()
