"""The CPU an order creation and an order GET cost inside one process: the application is
driven through its ASGI interface (no wrk, no network, no second process), so the figure
moves far less with the machine's load than the end-to-end benchmark (benchmarks/orders.py).
Use it to compare two checkouts in the same session: run it in each, one after the other.

Creates the realistic order of benchmarks/orders.py `--requests` times, then reads orders
back as many times, in `--runs` alternating rounds, and prints the process CPU per request
(microseconds, client included), median of the rounds. PostgreSQL, rate limits and the
request log off.

    uv run python benchmarks/order_cpu.py
    uv run python benchmarks/order_cpu.py --requests 1000 --runs 5

The PostgreSQL database `comptoir_bench_order_cpu` is (re)created by each run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

import httpx

from _common import fresh_demo, in_process_settings
from orders import ADMIN_URL, realistic_order

COMPTOIR = str(Path(sys.executable).parent / "comptoir")
NAME = "comptoir_bench_order_cpu"


async def measure(token: str, requests: int, runs: int) -> dict[str, list[float]]:
    from comptoir.app import create_app
    from comptoir.config import Settings

    app = create_app(Settings())
    headers = {"X-Access-Token": token}
    body = realistic_order()
    figures: dict[str, list[float]] = {"POST /v1/location/orders": [], "GET /v1/location/orders/:id": []}
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://comptoir") as client:
            created = []
            for _ in range(200):  # warm-up: plans, caches, id blocks
                answer = await client.post("/v1/location/orders", json=body, headers=headers)
                assert answer.status_code == 200, answer.text
                created.append(answer.json()["id"])
            for _ in range(runs):
                start = time.process_time()
                for _ in range(requests):
                    answer = await client.post("/v1/location/orders", json=body, headers=headers)
                    assert answer.status_code == 200, answer.text
                figures["POST /v1/location/orders"].append((time.process_time() - start) / requests * 1e6)
                start = time.process_time()
                for i in range(requests):
                    answer = await client.get(f"/v1/location/orders/{created[i % len(created)]}", headers=headers)
                    assert answer.status_code == 200, answer.text
                figures["GET /v1/location/orders/:id"].append((time.process_time() - start) / requests * 1e6)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=500, help="of each kind per round")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    os.environ.update(in_process_settings(NAME))
    demo = fresh_demo(COMPTOIR, ADMIN_URL, NAME, dict(os.environ))
    figures = asyncio.run(measure(demo["tokens"]["location"], args.requests, args.runs))
    print(f"\nCPU per request in one process (client included), {args.runs} rounds of {args.requests}")
    print(f"{'':<30}{'per round (us)':<30}{'median':>8}")
    for label, values in figures.items():
        print(f"{label:<30}{' '.join(f'{v:.0f}' for v in values):<30}{statistics.median(values):>8.0f}")


if __name__ == "__main__":
    main()
