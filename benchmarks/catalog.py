"""A realistic 10,000-product catalog: PUT, GET and product GET, with the server's peak memory.

The catalogs benchmark. One `comptoir serve` process on a fresh PostgreSQL database,
rate limits off. The catalog: 10,000 products (1-3 skus each, with descriptions, tags,
nutrition, tax rates, barcodes), 20 categories two levels deep, 15 option lists of 5 options
shared across products, 50 deals, about 6 MB of JSON. Every figure is end to end over HTTP
on 127.0.0.1 (httpx, one connection):

- seconds for `PUT /v1/catalogs/:id` with the whole data (each run replaces the content);
- milliseconds for `GET /v1/catalogs/:id` (the whole catalog) and for a product GET by id;
- the server process's peak resident memory (VmHWM) after the PUTs;
- the server process's CPU time (user and system) per PUT and per catalog GET: on a machine
  shared with other work, the figure that waiting for a CPU does not inflate.

Run by hand, not in CI:

    uv run python benchmarks/catalog.py [--runs 5] [--products 10000]

Targets: PUT under 1.5 s, catalog GET under 100 ms, product GET under 5 ms, peak
memory under 400 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import asyncpg
import httpx

from _common import cpu_seconds, free_port, percentile

COMPTOIR = str(Path(sys.executable).parent / "comptoir")
ADMIN_URL = os.environ.get("COMPTOIR_BENCH_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
KEY = "benchmark-secret-key-at-least-32-bytes-long"
WORDS = [
    "crispy",
    "smoked",
    "grilled",
    "fresh",
    "garden",
    "spicy",
    "classic",
    "double",
    "vegan",
    "truffle",
    "honey",
    "lemon",
    "garlic",
    "basil",
    "tomato",
    "cheddar",
    "mozzarella",
    "chicken",
    "beef",
    "salmon",
    "avocado",
    "pepper",
    "onion",
    "mushroom",
    "bacon",
    "caramel",
    "chocolate",
    "vanilla",
]


def text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def realistic_catalog(products: int, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    roots = [{"ref": f"root-{i}", "name": f"Section {i}", "description": text(rng, 8)} for i in range(4)]
    children = [
        {"ref": f"cat-{i}", "parent_ref": f"root-{i % 4}", "name": f"Category {i}", "tags": [rng.choice(WORDS)]}
        for i in range(16)
    ]
    option_lists = [
        {
            "ref": f"list-{i}",
            "name": f"Choice {i}",
            "min_selections": 0,
            "max_selections": 2,
            "options": [
                {"ref": f"opt-{i}-{j}", "name": text(rng, 2).title(), "price": f"{rng.randint(0, 150) / 100:.2f} EUR"}
                for j in range(5)
            ],
        }
        for i in range(15)
    ]
    items = []
    for p in range(products):
        skus = []
        for s in range(rng.randint(1, 3)):
            skus.append(
                {
                    "ref": f"sku-{p}-{s}",
                    "name": ("Small", "Medium", "Large")[s],
                    "price": f"{rng.randint(150, 3000) / 100:.2f} EUR",
                    "option_list_refs": rng.sample([f"list-{i}" for i in range(15)], rng.randint(0, 3)),
                    "barcodes": [f"{rng.randrange(10**12, 10**13)}"],
                    "custom_fields": {"pos_id": p * 10 + s, "station": rng.choice(["grill", "cold", "bar"])},
                }
            )
        items.append(
            {
                "ref": f"product-{p}",
                "category_ref": f"cat-{p % 16}",
                "name": text(rng, 3).title(),
                "description": text(rng, 6),
                "tags": [rng.choice(WORDS), rng.choice(WORDS)],
                "nutrition": {
                    "legal_name": text(rng, 4),
                    "allergens": rng.sample(["gluten", "milk", "egg", "nuts"], 2),
                },
                "tax_rate": {"delivery": "5.5", "collection": "5.5", "eat_in": "10"},
                "skus": skus,
            }
        )
    deals = [
        {
            "ref": f"deal-{d}",
            "name": f"Menu {d}",
            "description": text(rng, 10),
            "lines": [
                {
                    "label": "Main",
                    "skus": [{"ref": f"sku-{rng.randrange(products)}-0"} for _ in range(5)],
                    "pricing_effect": "fixed_price",
                    "pricing_value": "12.00 EUR",
                },
                {"label": "Side", "skus": [{"ref": f"sku-{rng.randrange(products)}-0"}], "pricing_effect": "unchanged"},
            ],
        }
        for d in range(50)
    ]
    return {
        "variants": [{"ref": "web", "name": "Website"}],
        "categories": roots + children,
        "products": items,
        "option_lists": option_lists,
        "deals": deals,
        "discounts": [{"name": "Welcome", "pricing_effect": "percentage_off", "pricing_value": "10"}],
        "charges": [{"name": "Delivery", "type": "delivery", "price": "2.50 EUR"}],
    }


def cli(env: dict[str, str], *args: str) -> dict[str, Any]:
    out = subprocess.run([COMPTOIR, *args], env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def timed(call: Any) -> tuple[float, httpx.Response]:
    started = time.perf_counter()
    response = call()
    return time.perf_counter() - started, response


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--products", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5, help="PUTs (and rounds of GETs)")
    parser.add_argument("--gets", type=int, default=50, help="catalog GETs per round")
    parser.add_argument("--product-gets", type=int, default=500)
    args = parser.parse_args()

    catalog = realistic_catalog(args.products)
    body = json.dumps({"data": catalog}, separators=(",", ":")).encode()
    skus = sum(len(p["skus"]) for p in catalog["products"])
    print(f"catalog: {args.products:,} products, {skus:,} skus, {len(body) / 1e6:.1f} MB of JSON")

    name = f"comptoir_bench_catalog_{uuid.uuid4().hex[:8]}"
    asyncio.run(_admin(f'CREATE DATABASE "{name}"'))
    url = ADMIN_URL.rsplit("/", 1)[0] + "/" + name
    workdir = Path(tempfile.mkdtemp(prefix="comptoir-bench-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")} | {
        "COMPTOIR_DATABASE_URL": url,
        "COMPTOIR_SECRET_KEY": KEY,
        "COMPTOIR_RATE_LIMITS": "off",
        "COMPTOIR_LOG_LEVEL": "warning",
    }
    server = None
    try:
        cli(env, "migrate")
        cli(env, "admin", "create-user", "--email", "bench@example.com", "--password", "benchmark-password")
        account = cli(
            env, "admin", "create-account", "--owner", "bench@example.com", "--name", "Bench", "--currency", "EUR"
        )
        location = cli(
            env, "admin", "create-location", "--account", account["id"], "--name", "Bench", "--country", "FR"
        )
        client = cli(env, "admin", "create-client", "--name", "Menu tool")
        scope = "location[all_catalogs.write]"
        token = cli(env, "admin", "connect", "--client", client["client_id"], "--user", "bench@example.com",
                    "--scope", scope, "--location", location["id"])["access_token"]  # fmt: skip
        port = free_port()
        log = (workdir / "server.log").open("w")
        server = subprocess.Popen(
            [COMPTOIR, "serve", "--port", str(port), "--no-worker"], env=env, stdout=subprocess.DEVNULL, stderr=log
        )
        base = f"http://127.0.0.1:{port}/v1"
        _wait(base, server, workdir)
        headers = {"X-Access-Token": token, "Content-Type": "application/json"}
        with httpx.Client(base_url=base, headers=headers, timeout=120) as http:
            created = http.post("/location/catalogs", json={"name": "Menu"})
            assert created.status_code == 200, created.text
            catalog_id = created.json()["id"]
            rss_before = peak_rss_mb(server.pid)
            puts, gets, product_gets = [], [], []
            put_cpu, get_cpu = [], []  # server CPU seconds per PUT, per catalog GET
            product_ids: list[str] = []
            for _ in range(args.runs):
                cpu = cpu_seconds(server.pid)
                seconds, answer = timed(lambda: http.put(f"/catalogs/{catalog_id}", content=body))
                put_cpu.append(cpu_seconds(server.pid) - cpu)
                assert answer.status_code == 200, answer.text[:2000]
                puts.append(seconds)
                product_ids = [p["id"] for p in answer.json()["data"]["products"]]
                cpu = cpu_seconds(server.pid)
                for _ in range(args.gets):
                    seconds, answer = timed(lambda: http.get(f"/catalogs/{catalog_id}"))
                    assert answer.status_code == 200
                    gets.append(seconds * 1000)
                get_cpu.append((cpu_seconds(server.pid) - cpu) / args.gets)
                rng = random.Random(1)
                for _ in range(args.product_gets // args.runs):
                    product = rng.choice(product_ids)
                    seconds, answer = timed(lambda: http.get(f"/catalogs/{catalog_id}/products/{product}"))  # noqa: B023
                    assert answer.status_code == 200
                    product_gets.append(seconds * 1000)
            peak = peak_rss_mb(server.pid)
        print(f"\nPUT /catalogs/:id        runs {[round(s, 2) for s in puts]}  median {statistics.median(puts):.2f} s")
        print(
            f"GET /catalogs/:id        median {statistics.median(gets):.1f} ms  p99 {percentile(gets, 99):.1f} ms"
            f"  ({len(gets)} requests)"
        )
        print(
            f"GET .../products/:id     median {statistics.median(product_gets):.2f} ms"
            f"  p99 {percentile(product_gets, 99):.2f} ms  ({len(product_gets)} requests)"
        )
        print(
            f"server CPU               per PUT median {statistics.median(put_cpu):.2f} s,"
            f" per catalog GET median {statistics.median(get_cpu) * 1000:.1f} ms (of each round's GETs)"
        )
        print(f"server peak memory       {peak:.0f} MB (VmHWM; {rss_before:.0f} MB before the first PUT)")
    finally:
        if server is not None:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
        asyncio.run(_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        shutil.rmtree(workdir, ignore_errors=True)


def _wait(base: str, server: subprocess.Popen[bytes], workdir: Path) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline or server.poll() is not None:
            raise SystemExit((workdir / "server.log").read_text())
        time.sleep(0.2)


async def _admin(sql: str) -> None:
    connection = await asyncpg.connect(ADMIN_URL)
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


if __name__ == "__main__":
    main()
