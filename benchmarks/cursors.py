"""What sealed cursors cost (docs/api/conventions.md "Pagination"): the work of the cursor
in one request (its binding to the list, opening the request's cursor, sealing the next
page's) against one page of 100 orders read with a cursor (`GET /v1/location/orders?count=100&cursor=...`),
measured in the same process, in alternating rounds; prints both and their ratio (target:
under 2%). The application is driven through its ASGI interface, as in
benchmarks/order_cpu.py. PostgreSQL, rate limits and the request log off.

    uv run python benchmarks/cursors.py
    uv run python benchmarks/cursors.py --orders 1000 --requests 300 --runs 5

The PostgreSQL database `comptoir_bench_cursors` is (re)created by each run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from _common import fresh_demo, in_process_settings
from orders import ADMIN_URL, realistic_order

COMPTOIR = str(Path(sys.executable).parent / "comptoir")
NAME = "comptoir_bench_cursors"
PAGE = "/v1/location/orders"


def cursor_request(app: Any, cursor: str) -> Any:
    """The request of the page after `cursor`, as the route sees it once its ctx is known."""
    from starlette.requests import Request
    from starlette.routing import Match

    from comptoir.auth.request_context import start as start_context

    scope: dict[str, Any] = {
        "type": "http",
        "method": "GET",
        "path": PAGE,
        "root_path": "",
        "query_string": f"count=100&cursor={cursor}".encode(),
        "headers": [],
        "app": app,
        "path_params": {},
    }
    start_context(scope, "bench").connection_id = 1  # as auth.access.authorize leaves it
    scope["route"] = next(route for route in app.routes if route.matches(scope)[0] is Match.FULL)
    return Request(scope)


async def cursor_cost(app: Any, iterations: int) -> float:
    """Microseconds per request of what the cursor does in it: bind, open, seal."""
    from comptoir.http.cursors import page_request

    first = await page_request(cursor_request(app, ""), "100", None)
    cursor = first.seal([datetime.now(UTC), 123_456])  # an order's key: (created_at, id)
    request = cursor_request(app, cursor)
    start = time.perf_counter()
    for _ in range(iterations):
        page = await page_request(request, "100", cursor)
        assert page.after is not None
        page.seal(page.after)
    return (time.perf_counter() - start) / iterations * 1e6


async def measure(token: str, orders: int, requests: int, runs: int) -> tuple[list[float], list[float]]:
    from comptoir.app import create_app
    from comptoir.config import Settings

    app = create_app(Settings())
    headers = {"X-Access-Token": token}
    pages: list[float] = []
    cursors: list[float] = []
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://comptoir") as client:
            body = realistic_order()
            for _ in range(orders):
                answer = await client.post(PAGE, json=body, headers=headers)
                assert answer.status_code == 200, answer.text
            first = await client.get(PAGE, params={"count": 100}, headers=headers)
            cursor = first.headers["X-Cursor-Next"]
            for _ in range(20):  # warm-up: plans, caches
                answer = await client.get(PAGE, params={"count": 100, "cursor": cursor}, headers=headers)
                assert len(answer.json()) == 100, answer.text
            for _ in range(runs):
                start = time.perf_counter()
                for _ in range(requests):
                    answer = await client.get(PAGE, params={"count": 100, "cursor": cursor}, headers=headers)
                    assert answer.status_code == 200, answer.text
                pages.append((time.perf_counter() - start) / requests * 1e6)
                cursors.append(await cursor_cost(app, requests * 20))
    return pages, cursors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--orders", type=int, default=300, help="orders in the location (at least 201)")
    parser.add_argument("--requests", type=int, default=200, help="page requests per round")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    os.environ.update(in_process_settings(NAME))
    demo = fresh_demo(COMPTOIR, ADMIN_URL, NAME, dict(os.environ))
    pages, cursors = asyncio.run(measure(demo["tokens"]["location"], args.orders, args.requests, args.runs))
    ratios = [cursor / page for page, cursor in zip(pages, cursors, strict=True)]
    print(f"\n{args.runs} rounds of {args.requests} page requests (wall time per request, client included)")
    print(f"{'':<34}{'per round':<44}{'median':>8}")
    rows = [
        ("GET orders?count=100&cursor (us)", pages, "{:.0f}"),
        ("cursor bind+open+seal (us)", cursors, "{:.1f}"),
        ("ratio (%)", [100 * r for r in ratios], "{:.2f}"),
    ]
    for label, values, shape in rows:
        shown = " ".join(shape.format(v) for v in values)
        print(f"{label:<34}{shown:<44}{shape.format(statistics.median(values)):>8}")
    print(f"target: under 2% -> {'met' if statistics.median(ratios) < 0.02 else 'NOT met'}")


if __name__ == "__main__":
    main()
