"""The sandbox's start and reset (docs/sandbox.md "How fast").

For each seed (examples/pizzeria.seed.json, and a seed like it whose catalog holds 1,000
products) and each database (a temporary SQLite file; PostgreSQL with `--postgres URL`, a
database the sandbox creates and drops here):

- start to ready: from launching `comptoir sandbox --seed FILE` to its JSON line on stdout,
  median of `--runs` (10) processes;
- reset: `POST /sandbox/reset` after a change (a customer created), answer received, median
  of `--runs` (10) resets of one process.

Targets: ready in under 2 s and reset in under 200 ms with the example seed. Run by hand:

    uv run python benchmarks/sandbox.py [--postgres postgresql://postgres@127.0.0.1:5432/postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).parent))
from _common import free_port, stop

ROOT = Path(__file__).parents[1]
EXAMPLE = ROOT / "examples" / "pizzeria.seed.json"
COMPTOIR = str(Path(sys.executable).parent / "comptoir")


def large_seed(products: int) -> dict[str, Any]:
    """The example seed with `products` products in its catalog (the example's, repeated)."""
    seed = json.loads(EXAMPLE.read_text())
    data = seed["catalogs"][0]["data"]
    base = data["products"]
    made = []
    for i in range(products):
        product = copy.deepcopy(base[i % len(base)])
        product["ref"] = f"{product['ref']}-{i}"
        product["name"] = f"{product['name']} {i}"
        for sku in product["skus"]:
            sku["ref"] = f"{sku['ref']}-{i}"
        made.append(product)
    data["products"] = made
    return seed


def start(seed: Path, port: int, database: str | None) -> tuple[subprocess.Popen[str], dict[str, Any], float]:
    began = time.perf_counter()
    args = [COMPTOIR, "sandbox", "--seed", str(seed), "--port", str(port)]
    process = subprocess.Popen(
        [*args, *(["--database", database] if database else [])],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    ready, _, _ = select.select([process.stdout], [], [], 120)
    assert ready, "no ready line"
    line = process.stdout.readline()
    elapsed = time.perf_counter() - began
    return process, json.loads(line), elapsed


def measure(seed: Path, runs: int, database: str | None) -> tuple[float, float]:
    starts, resets = [], []
    for run in range(runs):
        process, ready, elapsed = start(seed, free_port(), database)
        starts.append(elapsed)
        if run == 0:
            pos = {"X-Access-Token": ready["connections"]["pos_paris"]["access_token"]}
            customers = f"/v1/customer_lists/{ready['customer_lists']['regulars']}/customers"
            with httpx.Client(base_url=ready["url"], timeout=60) as http:
                for _ in range(runs):
                    http.post(customers, json={"first_name": "Zed"}, headers=pos).raise_for_status()
                    began = time.perf_counter()
                    http.post("/sandbox/reset").raise_for_status()
                    resets.append(time.perf_counter() - began)
        stop(process)
    return statistics.median(starts), statistics.median(resets)


async def drop(url: str) -> None:
    parsed = make_url(url)
    server = await asyncpg.connect(parsed.set(drivername="postgresql", database="postgres").render_as_string(False))
    try:
        await server.execute(f'DROP DATABASE IF EXISTS "{parsed.database}" WITH (FORCE)')
    finally:
        await server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--postgres", help="A PostgreSQL server URL: also measure there (a database made here)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        large = Path(directory) / "catalog-1000.seed.json"
        large.write_text(json.dumps(large_seed(1000)))
        databases: list[tuple[str, str | None]] = [("sqlite", None)]
        if options.postgres:
            name = f"comptoir_sandbox_benchmark_{int(time.time())}"
            databases.append(("postgresql", make_url(options.postgres).set(database=name).render_as_string(False)))
        print(f"{'seed':<22} {'database':<11} {'start to ready':>15} {'reset':>10}   (medians of {options.runs})")
        for kind, url in databases:
            try:
                for label, seed in (("example (30 products)", EXAMPLE), ("1,000 products", large)):
                    ready, reset = measure(seed, options.runs, url)
                    print(f"{label:<22} {kind:<11} {ready * 1000:>12.0f} ms {reset * 1000:>7.1f} ms", flush=True)
            finally:
                if url is not None:
                    asyncio.run(drop(url))


if __name__ == "__main__":
    main()
