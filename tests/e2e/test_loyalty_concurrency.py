"""docs/api/loyalty.md "Balances and concurrency": 200 operations of +1 sent at once on one
card, to two `comptoir serve` worker processes, end with balance "200.0" and 200 distinct, consecutive
`new_balance` values: on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from pathlib import Path
from threading import Barrier

import httpx
import pytest

from tests.e2e.conftest import Server, in_world
from tests.factories import World
from tests.response_schemas import CheckedHTTPTransport

pytestmark = pytest.mark.e2e
KEY = "e2e-loyalty-key-at-least-32-bytes-long"
OPERATIONS = 200


def bound_token(database_url: str) -> tuple[str, str]:
    """A location with a customer list and a token bound to it: (token, list id)."""

    async def build(world: World) -> tuple[str, str]:
        location = await world.location(name="Loyal kitchen")
        customers = await world.customer_list(location=location, name="Members")
        token = await world.token("location[customer_list.write]", location=location, customer_list=customers)
        return token, customers.public_id

    return in_world(database_url, KEY, build)


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_concurrent_operations_on_one_card_are_serialised(
    kind: str, tmp_path: Path, start_server: Callable[..., Server], request: pytest.FixtureRequest
) -> None:
    url = f"sqlite:///{tmp_path / 'comptoir.db'}" if kind == "sqlite" else request.getfixturevalue("fresh_postgres")
    server = start_server("--workers", "2", env={"COMPTOIR_DATABASE_URL": url, "COMPTOIR_SECRET_KEY": KEY})
    token, list_id = bound_token(url)
    headers = {"X-Access-Token": token}
    with server.http() as http:
        customer = http.post(f"/v1/customer_lists/{list_id}/customers", json={}, headers=headers).json()
        card = http.post(
            f"/v1/customer_lists/{list_id}/loyalty_cards", json={"customer_id": customer["id"]}, headers=headers
        ).json()
    operations = f"{server.base_url}/v1/customer_lists/{list_id}/loyalty_cards/{card['id']}/operations"
    start = Barrier(50)

    def operate(_: int) -> httpx.Response:
        with httpx.Client(timeout=60, transport=CheckedHTTPTransport()) as http:
            if _ < 50:
                start.wait()  # the first 50 leave together; the rest follow as threads free up
            return http.post(operations, json={"delta": "1"}, headers=headers)

    with ThreadPoolExecutor(max_workers=50) as pool:
        responses = list(pool.map(operate, range(OPERATIONS)))
    assert [r.status_code for r in responses] == [200] * OPERATIONS, {r.text for r in responses if r.status_code != 200}
    balances = sorted(Decimal(r.json()["new_balance"]) for r in responses)
    assert balances == [Decimal(n) for n in range(1, OPERATIONS + 1)]
    with server.http() as http:
        assert (
            http.get(f"/v1/customer_lists/{list_id}/loyalty_cards/{card['id']}", headers=headers).json()["balance"]
            == "200.0"
        )
        listed: list[str] = []
        page = http.get(operations, headers=headers)
        while True:
            listed += [item["new_balance"] for item in page.json()]
            cursor = page.headers.get("X-Cursor-Next")
            if cursor is None:
                break
            page = http.get(operations, params={"cursor": cursor}, headers=headers)
    assert listed == [f"{n}.0" for n in range(OPERATIONS, 0, -1)]  # newest first, one per balance
