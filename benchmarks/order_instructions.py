"""Instructions per order creation and per order GET, counted by callgrind: the figure of the
order hot path that moves least with the machine's load, for comparing two checkouts (or a
change) measured at the same time (docs/operations.md "Benchmarks": a loaded machine still
raises every count).

The application is driven in one process through its ASGI interface, as in
benchmarks/order_cpu.py (PostgreSQL, rate limits and request log off; the client's share is
included). The script runs itself three times under `valgrind --tool=callgrind`: warm-up only,
warm-up then `--requests` creations, warm-up then `--requests` GETs; a request costs the
difference to the warm-up-only run, divided by `--requests`. Needs valgrind (Debian:
`apt-get install -y valgrind`); takes a few minutes (valgrind is ~50x slower).

    uv run python benchmarks/order_instructions.py
    uv run python benchmarks/order_instructions.py --requests 200 --database comptoir_bench_instructions

The PostgreSQL database (default `comptoir_bench_instructions`) is (re)created by each run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx

from _common import fresh_demo, in_process_settings
from orders import ADMIN_URL, realistic_order

COMPTOIR = str(Path(sys.executable).parent / "comptoir")
WARM_UP = 60


async def drive(token: str, kind: str, requests: int) -> None:
    """Run inside callgrind: the warm-up, then `requests` of `kind` (none, post or get)."""
    from comptoir.app import create_app
    from comptoir.config import Settings

    app = create_app(Settings())
    headers = {"X-Access-Token": token}
    body = realistic_order()
    transport = httpx.ASGITransport(app=app)
    async with app.router.lifespan_context(app), httpx.AsyncClient(transport=transport, base_url="http://x") as client:
        created = []
        for _ in range(WARM_UP):  # plans, caches, id blocks
            answer = await client.post("/v1/location/orders", json=body, headers=headers)
            created.append(answer.json()["id"])
        for order_id in created:
            await client.get(f"/v1/location/orders/{order_id}", headers=headers)
        for i in range(requests if kind != "none" else 0):
            if kind == "post":
                answer = await client.post("/v1/location/orders", json=body, headers=headers)
            else:
                answer = await client.get(f"/v1/location/orders/{created[i % WARM_UP]}", headers=headers)
            assert answer.status_code == 200, answer.text


def counted(token: str, kind: str, requests: int, database: str, env: dict[str, str]) -> int:
    """Instructions of one run of `drive` under callgrind."""
    with tempfile.TemporaryDirectory() as work:
        command = [
            "valgrind", "--tool=callgrind", f"--callgrind-out-file={work}/callgrind.out",
            sys.executable, __file__, "--drive", kind, "--token", token,
            "--requests", str(requests), "--database", database,
        ]  # fmt: skip
        done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the run under callgrind failed:\n{done.stderr[-3000:]}")
    return int(re.findall(r"Collected : (\d+)", done.stderr)[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=200, help="measured requests of each kind")
    parser.add_argument("--database", default="comptoir_bench_instructions", help="PostgreSQL database name")
    parser.add_argument("--drive", choices=["none", "post", "get"], help=argparse.SUPPRESS)
    parser.add_argument("--token", help=argparse.SUPPRESS)
    args = parser.parse_args()
    env = os.environ | in_process_settings(args.database) | {"PYTHONHASHSEED": "0"}
    if args.drive:
        os.environ.update(env)
        asyncio.run(drive(args.token, args.drive, args.requests))
        return

    demo = fresh_demo(COMPTOIR, ADMIN_URL, args.database, env)
    token = demo["tokens"]["location"]
    base = counted(token, "none", 0, args.database, env)
    print(f"instructions per request (callgrind, {args.requests} requests after {WARM_UP} of warm-up)")
    for kind, label in (("post", "POST /v1/location/orders"), ("get", "GET /v1/location/orders/:id")):
        per_request = (counted(token, kind, args.requests, args.database, env) - base) / args.requests
        print(f"{label:<30}{per_request:>14,.0f}")


if __name__ == "__main__":
    main()
