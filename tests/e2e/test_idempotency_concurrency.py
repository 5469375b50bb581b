"""docs/api/conventions.md "Idempotency": the same order POSTed 20 times at once with one
Idempotency-Key, to two `comptoir serve` worker processes, creates exactly one order (SQLite and
PostgreSQL); every other answer is that order again or a 409."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from threading import Barrier

import httpx
import pytest

from tests.api.orders.conftest import ORDER
from tests.e2e.conftest import Server, in_world
from tests.factories import World
from tests.response_schemas import CheckedHTTPTransport
from tests.waiting import PATIENCE

pytestmark = pytest.mark.e2e
KEY = "e2e-idempotency-key-at-least-32-bytes-long"
COPIES = 20


def writer_token(database_url: str) -> str:
    async def build(world: World) -> str:
        return await world.token("location[orders.write]", location=await world.location(name="Busy kitchen"))

    return in_world(database_url, KEY, build)


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_twenty_concurrent_copies_create_one_order(
    kind: str, tmp_path: Path, start_server: Callable[..., Server], request: pytest.FixtureRequest
) -> None:
    url = f"sqlite:///{tmp_path / 'comptoir.db'}" if kind == "sqlite" else request.getfixturevalue("fresh_postgres")
    server = start_server("--workers", "2", env={"COMPTOIR_DATABASE_URL": url, "COMPTOIR_SECRET_KEY": KEY})
    headers = {"X-Access-Token": writer_token(url), "Idempotency-Key": "order-W-1001"}
    start = Barrier(COPIES)

    def send(_: int) -> httpx.Response:
        with httpx.Client(base_url=server.base_url, timeout=60, transport=CheckedHTTPTransport()) as http:
            start.wait()
            return http.post("/v1/location/orders", json=ORDER, headers=headers)

    with ThreadPoolExecutor(max_workers=COPIES) as pool:
        responses = list(pool.map(send, range(COPIES)))
    assert {r.status_code for r in responses} <= {200, 409}, {r.text for r in responses}
    orders = {r.json()["id"] for r in responses if r.status_code == 200}
    assert len(orders) == 1
    with httpx.Client(base_url=server.base_url, timeout=PATIENCE, transport=CheckedHTTPTransport()) as http:
        listed = http.get("/v1/location/orders", headers={"X-Access-Token": headers["X-Access-Token"]}).json()
    assert [o["id"] for o in listed] == list(orders)
