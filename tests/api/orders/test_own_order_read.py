"""GET /location/orders/:id, the hot read of a point of sale, answers as
every other endpoint does (401, 403, 404, rate-limit headers), and only with the connection's
location's orders."""

from __future__ import annotations

import httpx

from comptoir.auth.tokens import BLOCKED, MISSING, REVOKED
from comptoir.connections.service import find_connection_by_token, set_blocked
from tests.api.conftest import Shop
from tests.api.orders.conftest import ORDER, created
from tests.factories import World


async def test_the_connections_order_is_read_with_rate_limit_headers(client: httpx.AsyncClient, shop: Shop) -> None:
    order = await created(client, shop, ORDER)
    answer = await client.get(f"/v1/location/orders/{order['id']}", headers=shop.headers())
    assert answer.status_code == 200
    assert answer.json() == order
    assert "ratelimit" in answer.headers


async def test_tokens_are_checked_first(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    order = await created(client, shop, ORDER)
    path = f"/v1/location/orders/{order['id']}"
    missing = await client.get(path)
    assert (missing.status_code, missing.json()["message"]) == (401, MISSING)
    unknown = await client.get(path, headers={"X-Access-Token": "0" * 32})
    assert (unknown.status_code, unknown.json()["message"]) == (401, REVOKED)
    async with world.db.transaction() as session:
        connection = await find_connection_by_token(session, world.key, shop.location_token)
        assert connection is not None
        await set_blocked(session, connection, True)
    blocked = await client.get(path, headers=shop.headers())
    assert (blocked.status_code, blocked.json()["message"]) == (401, BLOCKED)


async def test_level_and_scope_are_checked(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    order = await created(client, shop, ORDER)
    path = f"/v1/location/orders/{order['id']}"
    account = await client.get(path, headers=shop.headers(shop.account_token))
    assert (account.status_code, account.json()["message"]) == (403, "This endpoint needs a location-level token")
    stock_only = await world.token("location[inventory.read]", location=shop.location)
    refused = await client.get(path, headers=shop.headers(stock_only))
    assert refused.status_code == 403
    assert "does not allow this request: it needs orders.read" in refused.json()["message"]


async def test_another_locations_order_or_a_bad_id_is_not_found(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    other = await world.token("location[orders.write]", location=shop.other_location)
    theirs = await created(client, shop, ORDER, token=other)
    for order_id in (theirs["id"], "not-an-id", "zzzzzz"):
        answer = await client.get(f"/v1/location/orders/{order_id}", headers=shop.headers())
        assert (answer.status_code, answer.json()) == (
            404, {"error_type": "not_found", "message": f"No order with id {order_id!r}"},
        )  # fmt: skip
