"""Filtered customer lists over 1,000,000 customers on PostgreSQL.

Builds (once; later runs reuse it) a customer list of 1,000,000 customers with realistic
names, emails and phones of several countries in its own PostgreSQL database, starts one
`comptoir serve` on it with rate limits off, and times `GET /v1/customer_lists/:id/customers`
with `email=john*` and `phone=+4477*` (and, for comparison, an exact email and the
unfiltered list). Each filter is requested repeatedly, walking its pages by cursor from the
first one, and p50/p99 of the whole request (HTTP on 127.0.0.1 included) are printed, with
the plan PostgreSQL chose for the first page.

    uv run python benchmarks/customer_filters.py                   # 1,000,000 customers
    uv run python benchmarks/customer_filters.py --customers 100000 --requests 200

Target: p99 under 50 ms. The database is `comptoir_bench_customers` (created if missing;
`--rebuild` drops and rebuilds it).
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

import asyncpg
import httpx

from _common import free_port, percentile
from comptoir.cli.demo import ensure_demo
from comptoir.config import Settings
from comptoir.db.engine import create_database
from comptoir.kit import ids

COMPTOIR = str(Path(sys.executable).parent / "comptoir")
ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
NAME = "comptoir_bench_customers"
URL = f"postgresql://postgres@127.0.0.1:5432/{NAME}"
KEY = "benchmark-secret-key-at-least-32-bytes-long"
RECENT_PERCENT = 2

FIRST = [
    "james", "mary", "john", "patricia", "robert", "jennifer", "michael", "linda", "william", "elizabeth", "david",
    "barbara", "richard", "susan", "joseph", "jessica", "thomas", "sarah", "charles", "karen", "chris", "nancy",
    "daniel", "lisa", "matthew", "betty", "anthony", "margaret", "mark", "sandra", "donald", "ashley", "steven",
    "kimberly", "paul", "emily", "andrew", "donna", "joshua", "michelle", "kenneth", "dorothy", "kevin", "carol",
    "brian", "amanda", "george", "melissa", "edward", "deborah", "ronald", "stephanie", "timothy", "rebecca", "jason",
    "sharon", "jeffrey", "laura", "ryan", "cynthia", "jacob", "kathleen", "gary", "amy", "nicholas", "shirley", "eric",
    "angela", "jonathan", "helen", "stephen", "anna", "larry", "brenda", "justin", "pamela", "scott", "nicole",
    "brandon", "emma", "benjamin", "samantha", "samuel", "katherine", "gregory", "christine", "frank", "debra",
    "alexander", "rachel", "raymond", "catherine", "patrick", "carolyn", "jack", "janet", "dennis", "ruth", "jerry",
    "maria", "marie", "pierre", "jean", "sophie", "lucas", "lea", "hugo", "chloe", "louis", "camille", "johnny",
    "johanna", "joanna", "hans", "klaus", "anke", "jurgen", "lukas", "mia", "noah", "olivia",
]  # fmt: skip
LAST = [
    "smith", "johnson", "williams", "brown", "jones", "garcia", "miller", "davis", "rodriguez", "martinez", "martin",
    "bernard", "dubois", "thomas", "robert", "richard", "petit", "durand", "leroy", "moreau", "muller", "schmidt",
    "schneider", "fischer", "weber", "meyer", "wagner", "becker", "taylor", "wilson", "evans", "walker", "wright",
]  # fmt: skip
DOMAINS = ["gmail.com", "yahoo.com", "hotmail.com", "outlook.com", "orange.fr", "free.fr", "gmx.de", "icloud.com"]


def sql_array(values: list[str]) -> str:
    return "ARRAY[" + ",".join(f"'{v}'" for v in values) + "]"


# Phones: 30% UK mobiles (+447..., so +4477 is about 3%), 25% French mobiles, 20% German,
# 15% North American, 10% none. Emails first.last<n>@domain (john* is about 1.5%). The
# newest 2% (RECENT) come from one London shop: +4420 phones that no older customer has, the
# case where walking the list oldest first would scan it all to fill a page.
INSERT = f"""
INSERT INTO customers (customer_list_id, email, email_lower, first_name, last_name, phone, sms_marketing,
                       email_marketing, custom_fields, anonymised, nb_orders, order_total, created_at, updated_at)
SELECT $1, f || '.' || l || g || '@' || d, lower(f || '.' || l || g || '@' || d), initcap(f), initcap(l),
       CASE WHEN r < 0 THEN '+4420' || lpad((floor(random() * 1e8))::bigint::text, 8, '0')
            WHEN r < 0.30 THEN '+447' || lpad((floor(random() * 1e9))::bigint::text, 9, '0')
            WHEN r < 0.55 THEN '+336' || lpad((floor(random() * 1e8))::bigint::text, 8, '0')
            WHEN r < 0.75 THEN '+4915' || lpad((floor(random() * 1e9))::bigint::text, 9, '0')
            WHEN r < 0.90 THEN '+1' || (200 + floor(random() * 800))::int::text
                                    || lpad((floor(random() * 1e7))::bigint::text, 7, '0')
       END,
       false, false, '{{}}', false, 0, 0, now(), now()
FROM (
    SELECT g, CASE WHEN $4 THEN -1 ELSE random() END AS r,
           ({sql_array(FIRST)})[1 + floor(random() * {len(FIRST)})::int] AS f,
           ({sql_array(LAST)})[1 + floor(random() * {len(LAST)})::int] AS l,
           ({sql_array(DOMAINS)})[1 + floor(random() * {len(DOMAINS)})::int] AS d
    FROM generate_series($2::bigint, $3::bigint) g
) s
"""


async def ensure_database(rebuild: bool) -> bool:
    """True when the database had to be (re)built."""
    admin = await asyncpg.connect(ADMIN_URL)
    try:
        exists = await admin.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", NAME)
        if exists and rebuild:
            await admin.execute(f"DROP DATABASE {NAME} WITH (FORCE)")
            exists = False
        if not exists:
            await admin.execute(f"CREATE DATABASE {NAME}")
        return not exists
    finally:
        await admin.close()


async def build(customers: int) -> tuple[str, str]:
    """The demo (`comptoir demo`), with `customers` customers in its customer list; answers
    the demo's location token (bound to that list) and the list's id."""
    settings = Settings(database_url=URL, secret_key=KEY)
    db = create_database(settings, pool_size=2)
    try:
        async with db.transaction() as session:
            demo = await ensure_demo(session, settings.server_key())
    finally:
        await db.dispose()
    token, list_id = demo["tokens"]["location"], demo["customer_list_id"]
    list_pk = ids.decode("customer_list", list_id)
    connection = await asyncpg.connect(URL)
    try:
        started = time.perf_counter()
        batch = 100_000
        recent_from = customers - customers * RECENT_PERCENT // 100 + 1
        for first in range(1, customers + 1, batch):
            last = min(first + batch - 1, customers)
            if first < recent_from:
                await connection.execute(INSERT, list_pk, first, min(last, recent_from - 1), False)
            if last >= recent_from:
                await connection.execute(INSERT, list_pk, max(first, recent_from), last, True)
            print(f"  {min(first + batch - 1, customers):,} customers", end="\r", flush=True)
        await connection.execute("VACUUM ANALYZE customers")
        print(f"  {customers:,} customers inserted in {time.perf_counter() - started:.0f} s")
        await connection.execute("CREATE TABLE bench_info (token text, list_id text)")
        await connection.execute("INSERT INTO bench_info VALUES ($1, $2)", token, list_id)
    finally:
        await connection.close()
    return token, list_id


async def stored() -> tuple[str, str, int, str]:
    connection = await asyncpg.connect(URL)
    try:
        token, list_id = await connection.fetchrow("SELECT token, list_id FROM bench_info")
        ids.use_key(await connection.fetchval("SELECT id_key FROM installation"))  # to read the ids
        count = await connection.fetchval("SELECT count(*) FROM customers")
        email = await connection.fetchval("SELECT email_lower FROM customers WHERE id = $1", count // 2)
        return token, list_id, count, email
    finally:
        await connection.close()


async def explain(list_id: str, condition: str, order: str) -> str:
    connection = await asyncpg.connect(URL)
    try:
        rows = await connection.fetch(
            "EXPLAIN (ANALYZE, COSTS OFF) SELECT * FROM customers WHERE customer_list_id = $1"
            f" AND {condition} ORDER BY {order} LIMIT 101",
            ids.decode("customer_list", list_id),
        )
        return "\n".join("      " + row[0] for row in rows)
    finally:
        await connection.close()


def measure(base: str, token: str, list_id: str, query: dict[str, str], requests: int) -> tuple[list[float], int]:
    url = f"{base}/v1/customer_lists/{list_id}/customers"
    timings = []
    cursor = None
    found = 0
    with httpx.Client(headers={"X-Access-Token": token}, timeout=30) as http:
        http.get(url, params=query)  # warm the connection and the route
        for _ in range(requests):
            params = dict(query, **({"cursor": cursor} if cursor else {}))
            started = time.perf_counter()
            response = http.get(url, params=params)
            timings.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, response.text
            found += len(response.json())
            cursor = response.headers.get("X-Cursor-Next")
    return timings, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--customers", type=int, default=1_000_000)
    parser.add_argument("--requests", type=int, default=300, help="requests per filter")
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()

    built = asyncio.run(ensure_database(args.rebuild))
    if built:
        env = {"COMPTOIR_DATABASE_URL": URL, "COMPTOIR_SECRET_KEY": KEY}
        subprocess.run([COMPTOIR, "migrate"], env={**os.environ, **env}, check=True, capture_output=True)
        print(f"building {NAME} with {args.customers:,} customers ...")
        asyncio.run(build(args.customers))
    token, list_id, count, sample_email = asyncio.run(stored())
    print(f"{count:,} customers in one list (database {NAME})")

    port = free_port()
    workdir = Path(tempfile.mkdtemp(prefix="comptoir-bench-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")} | {
        "COMPTOIR_DATABASE_URL": URL,
        "COMPTOIR_SECRET_KEY": KEY,
        "COMPTOIR_RATE_LIMITS": "off",
        "COMPTOIR_LOG_LEVEL": "warning",
    }
    log = (workdir / "server.log").open("w")
    server = subprocess.Popen(
        [COMPTOIR, "serve", "--port", str(port), "--no-worker"], env=env, stdout=subprocess.DEVNULL, stderr=log
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/v1/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit((workdir / "server.log").read_text())
            time.sleep(0.2)
        cases = [
            # (label, query, the API's SQL condition and order, for EXPLAIN)
            ("email=john*", {"email": "john*"}, "email_lower >= 'john' AND email_lower < 'joho'", "email_lower, id"),
            ("phone=+4477*", {"phone": "+4477*"}, "phone >= '+4477' AND phone < '+4478'", "phone, id"),
            ("phone=+4420*", {"phone": "+4420*"}, "phone >= '+4420' AND phone < '+4421'", "phone, id"),
            ("email=<exact>", {"email": sample_email}, f"email_lower = '{sample_email}'", "email_lower, id"),
            ("(no filter)", {}, "true", "id"),
        ]
        print(f"\n{'filter':<16} {'requests':>8} {'customers':>10} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
        for label, query, _condition, _order in cases:
            timings, found = measure(base, token, list_id, query, args.requests)
            print(
                f"{label:<16} {len(timings):>8} {found:>10,} {statistics.median(timings):>8.1f}"
                f" {percentile(timings, 99):>8.1f} {max(timings):>8.1f}"
            )
        print("\nPlans of the first page (EXPLAIN ANALYZE):")
        for label, _query, condition, order in cases[:3]:
            print(f"  {label}\n{asyncio.run(explain(list_id, condition, order))}")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
        log.close()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
