"""Beyond the spec (docs/api/conventions.md "Idempotency"): `Idempotency-Key` on creations.
The same key from the same connection within 24 hours answers the first response unchanged; a
different request with the key is a 422; a concurrent duplicate is a 409; without the header
nothing changes."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import httpx
import pytest

from comptoir.db.engine import Database
from comptoir.jobs.timed import purge_history
from comptoir.kit import clock
from tests.api.conftest import Shop
from tests.api.customers.conftest import lists_of, new_card, new_customer
from tests.api.orders.conftest import created, order
from tests.factories import World


def keyed(shop: Shop, key: str, token: str | None = None) -> dict[str, str]:
    return {**shop.headers(token), "Idempotency-Key": key}


async def orders_count(world: World) -> int:
    return len((await world.snapshot())["orders"])


async def test_a_repeated_key_answers_the_first_response(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    first = await client.post("/v1/location/orders", json=order(), headers=keyed(shop, "k-1"))
    assert first.status_code == 200
    assert "Idempotent-Replayed" not in first.headers
    before = await world.snapshot()
    clock.travel(timedelta(hours=23))
    again = await client.post("/v1/location/orders", json=order(), headers=keyed(shop, "k-1"))
    assert again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.content == first.content
    assert await world.snapshot() == before


async def test_a_different_request_with_the_key_is_422(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    await client.post("/v1/location/orders", json=order(), headers=keyed(shop, "k-1"))
    before = await world.snapshot()
    response = await client.post("/v1/location/orders", json=order(status="accepted"), headers=keyed(shop, "k-1"))
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"field": "Idempotency-Key", "message": "was already used with a different request"}
    ]
    assert await world.snapshot() == before


async def test_keys_are_per_connection_and_expire_after_24_hours(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await client.post("/v1/location/orders", json={"status": "new"}, headers=keyed(shop, "k-1"))
    other = await world.token("location[orders.write]", location=shop.location, name="till-2")
    response = await client.post("/v1/location/orders", json={"status": "new"}, headers=keyed(shop, "k-1", other))
    assert "Idempotent-Replayed" not in response.headers
    clock.travel(timedelta(hours=24, seconds=1))
    response = await client.post("/v1/location/orders", json={"status": "new"}, headers=keyed(shop, "k-1"))
    assert "Idempotent-Replayed" not in response.headers
    assert await orders_count(world) == 3


async def test_without_the_header_every_post_creates(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    await created(client, shop, {"status": "new"})
    await created(client, shop, {"status": "new"})
    assert await orders_count(world) == 2


async def test_a_refused_creation_keeps_no_key(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    before = await world.snapshot()
    bad = await client.post("/v1/location/orders", json={"status": "lost"}, headers=keyed(shop, "k-1"))
    assert bad.status_code == 422
    assert bad.json()["errors"] == [
        {
            "field": "status",
            "message": "must be 'new', 'received', 'accepted', 'in_preparation', 'awaiting_shipment', "
            "'awaiting_collection', 'in_delivery', 'completed', 'rejected', 'cancelled' or 'delivery_failed'",
        }
    ]
    assert await world.snapshot() == before  # no order, no key
    good = await client.post("/v1/location/orders", json={"status": "new"}, headers=keyed(shop, "k-1"))
    assert (good.status_code, good.json()["status"]) == (200, "new")
    assert "Idempotent-Replayed" not in good.headers


@pytest.mark.parametrize("key", ["", "x" * 256, "tab\there"])
async def test_a_malformed_key_is_400(client: httpx.AsyncClient, shop: Shop, world: World, key: str) -> None:
    before = await world.snapshot()
    response = await client.post("/v1/location/orders", json={"status": "new"}, headers=keyed(shop, key))
    assert (response.status_code, response.json()) == (
        400,
        {"error_type": "bad_request", "message": "Idempotency-Key must be 1 to 255 printable characters"},
    )
    assert await world.snapshot() == before


async def test_twenty_concurrent_duplicates_create_one_order(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    attempts = [client.post("/v1/location/orders", json=order(), headers=keyed(shop, "rush")) for _ in range(20)]
    responses = await asyncio.gather(*attempts)
    assert await orders_count(world) == 1
    assert {r.status_code for r in responses} <= {200, 409}
    bodies = {r.content for r in responses if r.status_code == 200}
    assert len(bodies) == 1  # every 200 is the one order
    for response in responses:
        if response.status_code == 409:
            assert response.json()["error_type"] == "conflict"


async def test_the_other_creations_are_idempotent_too(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    list_id = await lists_of(client, shop)
    ann = await new_customer(client, shop, list_id)
    card = await new_card(client, shop, list_id, ann["id"])
    placed = await created(client, shop, {"status": "new", "service_type": "delivery"})
    cases: list[tuple[str, dict[str, Any]]] = [
        (f"/v1/customer_lists/{list_id}/customers", {"first_name": "Bob"}),
        (f"/v1/customer_lists/{list_id}/loyalty_cards/{card['id']}/operations", {"delta": "1"}),
        (f"/v1/location/orders/{placed['id']}/delivery_quotes", {"carrier": "Zoom", "fee": "3 EUR"}),
        (f"/v1/location/orders/{placed['id']}/delivery", {"carrier": "Zoom", "status": "pending"}),
    ]
    for path, body in cases:
        first = await client.post(path, json=body, headers=keyed(shop, f"k-{path}"))
        assert first.status_code == 200, path
        before = await world.snapshot()
        again = await client.post(path, json=body, headers=keyed(shop, f"k-{path}"))
        assert (again.status_code, again.headers["Idempotent-Replayed"], again.content) == (200, "true", first.content)
        assert await world.snapshot() == before, path


async def test_expired_answers_are_purged_by_the_retention_job(
    client: httpx.AsyncClient, shop: Shop, world: World, database: Database
) -> None:
    await client.post("/v1/location/orders", json={"status": "new"}, headers=keyed(shop, "k-1"))
    clock.travel(timedelta(hours=23))
    await purge_history(database)
    assert len((await world.snapshot())["idempotency_keys"]) == 1
    clock.travel(timedelta(hours=1, seconds=1))
    await purge_history(database)
    assert (await world.snapshot())["idempotency_keys"] == []
