"""The CPU of reading an order's body as its route does: `http.routing.read_json_body`, then
the model (`DirectRoute`), for the realistic 2.5 KB order of benchmarks/orders.py.

Two ways (docs/architecture.md "Request bodies"), the body in one chunk with its length:
`whole`, as order creation reads it, decoded whole and validated once by the model;
`checked`, as a route served by FastAPI reads it (and order creation did before), each
element of its arrays checked by the Shape's adapters, then the model. Also the parts: the decode alone
(`jsonutil.loads`) and the model's validation alone. Medians of `--rounds` rounds of
`--requests` bodies, in microseconds of process CPU, in one process. Run by hand:

    uv run python benchmarks/body_read.py [--rounds 7] [--requests 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections.abc import Awaitable, Callable
from types import SimpleNamespace
from typing import Any

from starlette.requests import Request

from comptoir.http import routing
from comptoir.http.bodies import shape_of
from comptoir.kit import jsonutil
from comptoir.orders.schemas import OrderCreate
from orders import realistic_order

BODY = json.dumps(realistic_order()).encode()
SHAPE = shape_of(OrderCreate, [])
APP = SimpleNamespace(state=SimpleNamespace(comptoir=SimpleNamespace(settings=SimpleNamespace(max_body_bytes=2 << 20))))


def _request() -> Request:
    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": BODY, "more_body": False}

    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(BODY)).encode())]
    scope = {"type": "http", "method": "POST", "path": "/v1/location/orders", "headers": headers, "app": APP}
    return Request({**scope, "query_string": b"", "state": {}}, receive)


async def whole() -> Any:
    request = _request()
    await routing.read_json_body(request, SHAPE, None, OrderCreate, whole=True)
    return OrderCreate.model_validate(request._json)


async def checked() -> Any:
    request = _request()
    await routing.read_json_body(request, SHAPE, None, OrderCreate)
    return OrderCreate.model_validate(request._json)


async def decode() -> Any:
    return jsonutil.loads(BODY)


DECODED = jsonutil.loads(BODY)


async def validate() -> Any:
    return OrderCreate.model_validate(DECODED)


async def _time(read: Callable[[], Awaitable[Any]], rounds: int, requests: int) -> float:
    for _ in range(300):
        await read()
    figures = []
    for _ in range(rounds):
        started = time.process_time()
        for _ in range(requests):
            await read()
        figures.append((time.process_time() - started) / requests * 1e6)
    return statistics.median(figures)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--requests", type=int, default=2000)
    args = parser.parse_args()
    assert (await whole()).model_dump() == (await checked()).model_dump()
    print(f"the realistic order, {len(BODY)} bytes: microseconds of CPU per body (median of {args.rounds} rounds)")
    for name, read in (("whole", whole), ("checked", checked), ("decode alone", decode), ("model alone", validate)):
        print(f"{name:<16}{await _time(read, args.rounds, args.requests):>8.1f}")


if __name__ == "__main__":
    asyncio.run(main())
