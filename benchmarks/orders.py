"""Orders under load: PostgreSQL, 2 `serve` processes, Redis, rate
limits off.

Runs wrk against, in alternation, the bare endpoint (`GET /v1/health`, same middleware, no
token, no database), order creation (`POST /v1/location/orders` with a realistic 2 KB order:
5 items with options, a charge, a discount, a payment, a guest customer) and order reads
(`GET /v1/location/orders/:id` over many orders); prints requests/s, p50 and p99 of each,
and the ratios to the bare endpoint (targets: creation at least 10%, reads at least 20%).
Then fills the location with 1,000,000 orders and times list pages of 100 (newest first,
walking the cursor, and filtered by status) sequentially: p50/p99 (target p99 under 50 ms).

Needs wrk (`apt-get install -y wrk`). Run by hand, not in CI:

    uv run python benchmarks/orders.py
    uv run python benchmarks/orders.py --runs 5 --duration 10 --list-orders 1000000
    uv run python benchmarks/orders.py --lists-only --database comptoir_bench_orders_mine --keep

The PostgreSQL database `comptoir_bench_orders` (or `--database`) is (re)created by each run;
`--lists-only` skips wrk and times the list pages alone; `--keep` reuses the database an
earlier run filled (migrated first), so that two checkouts can be timed alternately.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import asyncpg
import httpx

from _common import free_port, percentile, recreate_database, run_wrk, wait_until_up

COMPTOIR = str(Path(sys.executable).parent / "comptoir")
ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
NAME = "comptoir_bench_orders"
URL = f"postgresql://postgres@127.0.0.1:5432/{NAME}"  # main() points it at --database
SECRET_KEY = "benchmark-secret-key-at-least-32-bytes-long"


def realistic_order() -> dict:
    items = []
    for i, (name, price) in enumerate(
        [("Margherita", "10.50"), ("Regina", "12.90"), ("Tiramisu", "5.50"), ("Cola 33cl", "2.50"), ("Salad", "7.20")]
    ):
        items.append(
            {
                "product_name": name,
                "sku_name": "Large" if i < 2 else None,
                "sku_ref": f"SKU-{i}",
                "price": f"{price} EUR",
                "quantity": "1" if i != 3 else "3",
                "customer_notes": "No onions please" if i == 0 else None,
                "options": [
                    {
                        "option_list_name": "Extras",
                        "name": "Mozzarella",
                        "ref": "MOZ",
                        "price": "1.50 EUR",
                        "quantity": 1,
                    },
                    {"option_list_name": "Sauce", "name": "Tomato", "ref": "TOM", "quantity": 1},
                ],
            }
        )
    return {
        "status": "new",
        "channel": "Website",
        "ref": "W-100234",
        "service_type": "delivery",
        "service_type_ref": "home",
        "expected_time": "2026-06-24T19:30:00+02:00",
        "customer_notes": "Ring twice, 3rd floor",
        "collection_code": "XK2",
        "coupon_codes": ["SUMMER"],
        "items": items,
        "charges": [{"type": "delivery", "name": "Delivery fee", "ref": "DLV", "price": "3.00 EUR"}],
        "discounts": [{"name": "Summer offer", "ref": "SUMMER", "price_off": "4.00 EUR"}],
        "payments": [
            {"type": "online", "name": "Card", "ref": "pi_3NkLmX", "amount": "49.30 EUR", "info": {"psp": "x"}}
        ],
        "customer": {
            "first_name": "Ann",
            "last_name": "Smith",
            "email": "ann.smith@example.com",
            "phone": "+33612345678",
            "address_1": "12 rue de la Paix",
            "postal_code": "75002",
            "city": "Paris",
            "country": "FR",
            "delivery_notes": "Code 4521B",
        },
        "custom_fields": {"marketplace": {"order_id": "MK-99812", "commission": "12.5"}},
    }


POST_SCRIPT = """
local body
local headers = {["Content-Type"] = "application/json"}
init = function(args)
  local f = io.open(args[1]); body = f:read("*a"); f:close()
  headers["X-Access-Token"] = args[2]
end
request = function()
  return wrk.format("POST", "/v1/location/orders", headers, body)
end
"""
GET_SCRIPT = """
local ids = {}
local i = 0
local token
init = function(args)
  for line in io.lines(args[1]) do ids[#ids + 1] = line end
  token = args[2]
end
request = function()
  i = i + 1
  return wrk.format("GET", "/v1/location/orders/" .. ids[(i % #ids) + 1], {["X-Access-Token"] = token})
end
"""
BARE_SCRIPT = 'request = function() return wrk.format("GET", "/v1/health") end\n'


def prepare(redis: str, keep: bool = False) -> tuple[Path, dict[str, str], dict, Path]:
    """A new database with the demo data (with `keep`, the database of an earlier run,
    migrated, when there is one); returns a work directory, the servers' environment
    (PostgreSQL, Redis, rate limits off), the demo's output and the realistic order's file."""
    if not (keep and asyncio.run(_exists(NAME))):
        asyncio.run(recreate_database(ADMIN_URL, NAME))
    workdir = Path(tempfile.mkdtemp(prefix="comptoir-bench-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")} | {
        "COMPTOIR_DATABASE_URL": URL,
        "COMPTOIR_SECRET_KEY": SECRET_KEY,
        "COMPTOIR_RATE_LIMITS": "off",
        "COMPTOIR_REDIS_URL": redis,
        "COMPTOIR_REDIS_PREFIX": f"comptoir-bench:{os.getpid()}:",
        "COMPTOIR_LOG_LEVEL": "warning",
    }
    subprocess.run([COMPTOIR, "migrate"], env=env, check=True, capture_output=True)
    demo = json.loads(subprocess.run([COMPTOIR, "demo"], env=env, check=True, capture_output=True, text=True).stdout)
    order_file = workdir / "order.json"
    order_file.write_text(json.dumps(realistic_order()))
    return workdir, env, demo, order_file


async def _exists(name: str) -> bool:
    admin = await asyncpg.connect(ADMIN_URL)
    try:
        return bool(await admin.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name))
    finally:
        await admin.close()


async def fill(location_pk: int, count: int) -> float:
    """`count` more orders, copies of the newest, spread over the past year; returns seconds
    (none are added when the location already holds that many: `--keep`).

    Each copy's stored view is the newest order's with the copy's own id, status and
    creation time, as the server would have written it: a list answers a stored view as it
    is only when it is the order's own (`orders.render.view_json`), so copies of one view
    would measure the slower path that re-renders each order."""
    from comptoir.kit import ids
    from comptoir.kit.times import render_datetime

    connection = await asyncpg.connect(URL)
    try:
        started = time.perf_counter()
        if await connection.fetchval("SELECT count(*) FROM orders WHERE location_id = $1", location_pk) > count:
            return 0.0
        ids.use_key(await connection.fetchval("SELECT id_key FROM installation"))
        template = await connection.fetchrow(
            "SELECT *, view::text AS view_text FROM orders WHERE location_id = $1 ORDER BY id DESC LIMIT 1",
            location_pk,
        )
        timezone = await connection.fetchval("SELECT timezone FROM locations WHERE id = $1", location_pk)
        body = template["body"] if isinstance(template["body"], str) else json.dumps(template["body"])
        view = template["view_text"]
        head = '"order":{"id":' + json.dumps(ids.encode("order", template["id"])) + ","
        created = '"created_at":' + json.dumps(render_datetime(template["created_at"], timezone)) + ","
        status = '"private_ref":null,"status":' + json.dumps(template["status"]) + ","
        assert all(view.count(part) == 1 for part in (head, created, status)), "the view's shape changed"
        view = (
            view.replace(head, '"order":{"id":"\x01",')
            .replace(created, '"created_at":"\x02",')
            .replace(status, '"private_ref":null,"status":"\x03",')
        )
        statuses = ["new", "accepted", "in_preparation", "completed", "completed", "completed", "cancelled"]
        now = await connection.fetchval("SELECT now()")
        first_pk = await connection.fetchval("SELECT nextval('orders_id_seq')")
        await connection.execute("SELECT setval('orders_id_seq', $1)", first_pk + count)
        batch = 100_000
        for first in range(1, count + 1, batch):
            last = min(first + batch - 1, count)
            numbers = range(first, last + 1)
            public_ids = ids.encode_many("order", [first_pk + g for g in numbers])
            times = [render_datetime(now - timedelta(seconds=g * 31.5), timezone) for g in numbers]
            await connection.execute(
                """
                INSERT INTO orders (id, account_id, location_id, status, created_by, client_id, connection_id,
                                    customer_id, total, body, refs, view, created_at, updated_at)
                SELECT $12 + g, $1, $2, ($3::text[])[1 + (g % 7)], $4, $5, $6, NULL, $7, $8::json, '{}'::json,
                       replace(replace(replace($11, chr(1), ($13::text[])[g - $9 + 1]), chr(2),
                                       ($14::text[])[g - $9 + 1]), chr(3), ($3::text[])[1 + (g % 7)])::json,
                       $15::timestamptz - make_interval(secs => g * 31.5),
                       $15::timestamptz - make_interval(secs => g * 31.5)
                FROM generate_series($9::bigint, $10::bigint) g
                """,
                template["account_id"], location_pk, statuses, template["created_by"], template["client_id"],
                template["connection_id"], template["total"], body, first, last, view, first_pk, public_ids, times,
                now,
            )  # fmt: skip
            print(f"  {last:,} orders", end="\r", flush=True)
        await connection.execute("VACUUM ANALYZE orders")
        return time.perf_counter() - started
    finally:
        await connection.close()


def time_lists(base: str, token: str, requests: int) -> list[tuple[str, list[float]]]:
    results = []
    with httpx.Client(base_url=base, headers={"X-Access-Token": token}, timeout=30) as http:
        for label, params in (("newest first", {}), ("status=cancelled", {"status": "cancelled"})):
            timings: list[float] = []
            cursor = None
            http.get("/v1/location/orders", params=params)
            for _ in range(requests):
                query = dict(params, **({"cursor": cursor} if cursor else {}))
                started = time.perf_counter()
                response = http.get("/v1/location/orders", params=query)
                timings.append((time.perf_counter() - started) * 1000)
                assert response.status_code == 200, response.text
                assert len(response.json()) == 100
                cursor = response.headers.get("X-Cursor-Next")
            results.append((label, timings))
    return results


def _wrk_rounds(base: str, token: str, order_file: Path, workdir: Path, args: argparse.Namespace) -> None:
    """Creation, read and bare endpoint under wrk, in rotating runs; prints their figures."""
    headers = {"X-Access-Token": token, "Content-Type": "application/json"}
    ids = [
        httpx.post(f"{base}/v1/location/orders", content=order_file.read_bytes(), headers=headers).json()["id"]
        for _ in range(500)
    ]
    ids_file = workdir / "ids.txt"
    ids_file.write_text("\n".join(ids) + "\n")
    scripts = {}
    for name, text in (("bare", BARE_SCRIPT), ("create", POST_SCRIPT), ("get", GET_SCRIPT)):
        scripts[name] = workdir / f"{name}.lua"
        scripts[name].write_text(text)
    extra = {"bare": [], "create": [str(order_file), token], "get": [str(ids_file), token]}
    for name in scripts:  # warm-up
        run_wrk(base, scripts[name], extra[name], 3, args.connections)
    results: dict[str, list[dict[str, float]]] = {name: [] for name in scripts}
    for run in range(args.runs):
        names = ["bare", "create", "get"]
        for name in names[run % 3 :] + names[: run % 3]:
            results[name].append(run_wrk(base, scripts[name], extra[name], args.duration, args.connections))

    print(
        "\nOrders: PostgreSQL, 2 serve processes, Redis, rate limits off;"
        f" order body {len(order_file.read_bytes())} bytes"
    )
    print(f"wrk -t2 -c{args.connections}, {args.runs} rotating runs of {args.duration}s each")
    print(f"{'endpoint':<32}{'req/s per run':<40}{'median':>9}{'p50 ms':>9}{'p99 ms':>9}{'ratio':>8}")
    bare = statistics.median(r["rps"] for r in results["bare"])
    for name, label in (
        ("bare", "GET /v1/health (bare)"),
        ("create", "POST /v1/location/orders"),
        ("get", "GET /v1/location/orders/:id"),
    ):
        runs = results[name]
        median = statistics.median(r["rps"] for r in runs)
        print(
            f"{label:<32}{' '.join(format(r['rps'], '.0f') for r in runs):<40}{median:>9.0f}"
            f"{statistics.median(r['p50'] for r in runs):>9.2f}{statistics.median(r['p99'] for r in runs):>9.2f}"
            f"{median / bare:>8.1%}"
        )


def main() -> None:
    global NAME, URL
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--list-orders", type=int, default=1_000_000)
    parser.add_argument("--list-requests", type=int, default=300)
    parser.add_argument("--lists-only", action="store_true", help="no wrk: the list pages alone")
    parser.add_argument("--database", default=NAME, help="the PostgreSQL database to (re)create")
    parser.add_argument("--keep", action="store_true", help="reuse --database when an earlier run filled it")
    args = parser.parse_args()
    NAME, URL = args.database, URL.rsplit("/", 1)[0] + "/" + args.database
    if not args.lists_only and shutil.which("wrk") is None:
        raise SystemExit("wrk is required: apt-get install -y wrk")

    workdir, env, demo, order_file = prepare(args.redis, args.keep)
    token = demo["tokens"]["location"]
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = (workdir / "server.log").open("w")
    server = subprocess.Popen(
        [COMPTOIR, "serve", "--port", str(port), "--workers", "2"], env=env, stdout=subprocess.DEVNULL, stderr=log
    )
    try:
        wait_until_up(base, 120)  # a loaded machine starts two processes slowly
        headers = {"X-Access-Token": token, "Content-Type": "application/json"}
        first = httpx.post(f"{base}/v1/location/orders", content=order_file.read_bytes(), headers=headers)
        assert first.status_code == 200, first.text
        if not args.lists_only:
            _wrk_rounds(base, token, order_file, workdir, args)
        if args.list_orders:
            location_pk = asyncio.run(_location_pk(demo["location_ids"][0]))
            seconds = asyncio.run(fill(location_pk, args.list_orders))
            print(f"\n{args.list_orders:,} more orders inserted in {seconds:.0f} s")
            print(f"{'list page of 100':<24}{'requests':>9}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}")
            for label, timings in time_lists(base, token, args.list_requests):
                print(
                    f"{label:<24}{len(timings):>9}{statistics.median(timings):>9.1f}"
                    f"{percentile(timings, 99):>9.1f}{max(timings):>9.1f}"
                )
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
        log.close()
    print(f"(server log in {workdir})")


async def _location_pk(public_id: str) -> int:
    from comptoir.kit import ids

    connection = await asyncpg.connect(URL)
    try:
        ids.use_key(await connection.fetchval("SELECT id_key FROM installation"))  # to read the ids
        account_pk = ids.decode("account", public_id.split("-")[0])
        return await connection.fetchval(
            "SELECT id FROM locations WHERE account_id = $1 AND number = $2", account_pk, int(public_id.split("-")[1])
        )
    finally:
        await connection.close()


if __name__ == "__main__":
    main()
