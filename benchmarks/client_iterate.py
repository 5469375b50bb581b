"""The Python client's iterator against raw httpx, over the same pages of the same server:
list every order of a location (10,000 by default, 100 a page, following X-Cursor-Next).

    uv run python benchmarks/client_iterate.py [--orders 10000] [--runs 5]

Seeds a fresh PostgreSQL database (`comptoir_bench_client`) in process, serves it with a real
`comptoir serve` (rate limits and the request log off), then alternates the two walks in the
same run and prints each run and the medians. The client reads each page into the generated
`Order` models; raw httpx only decodes the JSON (`response.json()`). The client should stay
within 10%; its cost over raw httpx is building the models (pydantic-core validation and the
garbage collector's work on the objects), not its HTTP path.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import asyncpg
import httpx

from _common import free_port, fresh_demo, in_process_settings, wait_until_up
from comptoir_client import Comptoir
from orders import ADMIN_URL, realistic_order

NAME = "comptoir_bench_client"
COMPTOIR = str(Path(sys.executable).parent / "comptoir")


async def drop_database(admin_url: str, name: str) -> None:
    admin = await asyncpg.connect(admin_url)
    try:
        await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    finally:
        await admin.close()


async def seed(token: str, location: str, orders: int) -> None:
    from comptoir.app import create_app
    from comptoir.config import Settings

    app = create_app(Settings(), background=False)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://comptoir") as client:
            body, headers = realistic_order(), {"X-Access-Token": token}
            for _ in range(orders):
                answer = await client.post(f"/v1/locations/{location}/orders", json=body, headers=headers)
                assert answer.status_code == 200, answer.text


def raw_walk(base: str, token: str, location: str) -> int:
    seen, cursor = 0, None
    with httpx.Client(base_url=base, headers={"X-Access-Token": token}, timeout=30) as http:
        while True:
            params = {"count": 100} | ({"cursor": cursor} if cursor else {})
            answer = http.get(f"/v1/locations/{location}/orders", params=params)
            answer.raise_for_status()
            seen += len(answer.json())
            cursor = answer.headers.get("X-Cursor-Next")
            if not cursor:
                return seen


def client_walk(base: str, token: str, location: str) -> int:
    with Comptoir(token, base) as client:
        return sum(1 for _ in client.orders.list(location, count=100))


def sequential_walk(base: str, token: str, location: str) -> int:
    """The client without read-ahead: one page at a time, as raw httpx."""
    with Comptoir(token, base) as client:
        return sum(len(page.items) for page in client.orders.list(location, count=100).pages(read_ahead=False))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--orders", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    env = dict(os.environ) | in_process_settings(NAME)
    demo = fresh_demo(COMPTOIR, ADMIN_URL, NAME, env)
    token, location = demo["tokens"]["location"], demo["location_ids"][0]
    os.environ.update(in_process_settings(NAME))
    started = time.perf_counter()
    asyncio.run(seed(token, location, args.orders))
    print(f"seeded {args.orders} orders in {time.perf_counter() - started:.0f} s", flush=True)
    port = free_port()
    command = [COMPTOIR, "serve", "--port", str(port), "--no-worker"]
    server = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base)
        raw_walk(base, token, location)  # warm-up: plans, caches, connections
        client_walk(base, token, location)
        walks = {"raw httpx": raw_walk, "client": client_walk, "client without read-ahead": sequential_walk}
        times: dict[str, list[float]] = {name: [] for name in walks}
        for run in range(args.runs):
            order = list(walks)[run % 3 :] + list(walks)[: run % 3]  # each goes first in turn
            for name in order:
                start = time.perf_counter()
                assert walks[name](base, token, location) == args.orders
                times[name].append(time.perf_counter() - start)
            print(f"run {run + 1}: " + ", ".join(f"{name} {times[name][-1]:.2f} s" for name in walks), flush=True)
        medians = {name: statistics.median(values) for name, values in times.items()}
        print("median: " + ", ".join(f"{name} {value:.2f} s" for name, value in medians.items()))
        for name in list(walks)[1:]:
            print(f"ratio {name} / raw httpx: {medians[name] / medians['raw httpx']:.3f}")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=15)
        asyncio.run(drop_database(ADMIN_URL, NAME))


if __name__ == "__main__":
    main()
