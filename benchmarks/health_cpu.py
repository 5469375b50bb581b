"""The CPU of the bare endpoint in the process, beside a bare FastAPI app's (docs/performance.md
"After").

    uv run python benchmarks/health_cpu.py [--rounds 7] [--requests 3000]

Both apps in one process, each request handed to the app's ASGI interface by
`_drive.AsgiClient` (no server, no sockets: what uvicorn's protocol costs is the same for both
and left out). Comptoir's app is `comptoir serve`'s on a new SQLite database, with its
logging configured at the benchmarks' level (`warning`, as `orders.py` runs it); the bare app
answers one JSON object through a pydantic response model, as the bare app `ab.py` compares
with. Rounds alternate the two; prints the median CPU per request of each and their ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fastapi import FastAPI
from pydantic import BaseModel

from _drive import AsgiClient

bare = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)


class Ping(BaseModel):
    status: str
    service: str
    version: int


@bare.get("/ping", response_model=Ping)
async def ping() -> Ping:
    return Ping(status="ok", service="orders", version=1)


async def per_request(client: AsgiClient, path: str, requests: int) -> float:
    started = time.process_time()
    for _ in range(requests):
        status, body = await client.request("GET", path, "")
        assert status == 200, body
    return (time.process_time() - started) / requests * 1e6


def migrated() -> None:
    """A new SQLite database, migrated, named in the environment."""
    directory = tempfile.mkdtemp()
    os.environ |= {
        "COMPTOIR_DATABASE_URL": f"sqlite:///{directory}/c.db",
        "COMPTOIR_SECRET_KEY": "k" * 40,
        "COMPTOIR_LOG_LEVEL": "warning",
    }
    subprocess.run([str(Path(sys.executable).parent / "comptoir"), "migrate"], check=True, capture_output=True)


async def main(rounds: int, requests: int) -> None:
    from comptoir.app import create_app
    from comptoir.config import Settings
    from comptoir.observe.logs import configure_logging

    settings = Settings()
    configure_logging(settings)
    app = create_app(settings, background=False)
    ours, theirs = AsgiClient(app), AsgiClient(bare)
    async with app.router.lifespan_context(app):
        await per_request(ours, "/v1/health", 300)
        await per_request(theirs, "/ping", 300)
        own, other = [], []
        for _ in range(rounds):
            own.append(await per_request(ours, "/v1/health", requests))
            other.append(await per_request(theirs, "/ping", requests))
    mine, base = statistics.median(own), statistics.median(other)
    print(f"GET /v1/health       {mine:8.1f} us CPU per request")
    print(f"bare FastAPI /ping   {base:8.1f} us CPU per request")
    print(f"bare / ours          {base / mine:8.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--requests", type=int, default=3000)
    args = parser.parse_args()
    migrated()
    asyncio.run(main(args.rounds, args.requests))
