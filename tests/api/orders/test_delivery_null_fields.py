"""docs/api/conventions.md "Null fields" on delivery quotes and deliveries: a required field
sent as null is a 422 naming it, a null status on an update leaves the status, and the
delivery's texts and times take null (clearing them)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.conftest import Shop
from tests.api.orders.conftest import created
from tests.factories import World


@pytest.fixture
async def placed(client: httpx.AsyncClient, shop: Shop) -> dict[str, Any]:
    return await created(client, shop, {"status": "accepted", "service_type": "delivery"})


def url(placed: dict[str, Any], tail: str) -> str:
    return f"/v1/location/orders/{placed['id']}/{tail}"


async def test_a_quotes_null_optional_fields_read_null(
    client: httpx.AsyncClient, shop: Shop, placed: dict[str, Any]
) -> None:
    body = {"carrier": "Zoom", "fee": "4.50 EUR", "carrier_ref": None, "ref": None, "estimated_pickup_at": None}
    response = await client.post(url(placed, "delivery_quotes"), json=body, headers=shop.headers())
    assert response.status_code == 200
    quote = response.json()
    assert (quote["carrier_ref"], quote["ref"], quote["estimated_pickup_at"]) == (None, None, None)


@pytest.mark.parametrize(
    ("tail", "body", "field"),
    [
        ("delivery_quotes", {"carrier": None, "fee": "4.50 EUR"}, "carrier"),
        ("delivery_quotes", {"carrier": "Zoom", "fee": None}, "fee"),
        ("delivery", {"carrier": None, "status": "pending"}, "carrier"),
        ("delivery", {"carrier": "Zoom", "status": None}, "status"),
    ],
)
async def test_a_required_field_sent_as_null_is_422_naming_it(
    client: httpx.AsyncClient,
    shop: Shop,
    world: World,
    placed: dict[str, Any],
    tail: str,
    body: dict[str, Any],
    field: str,
) -> None:
    before = await world.snapshot()
    response = await client.post(url(placed, tail), json=body, headers=shop.headers())
    assert response.status_code == 422
    assert response.json()["errors"] == [{"field": field, "message": "is required"}]
    assert await world.snapshot() == before


async def test_a_null_status_leaves_the_delivery_and_null_texts_clear(
    client: httpx.AsyncClient, shop: Shop, placed: dict[str, Any]
) -> None:
    body = {"carrier": "Zoom", "status": "pickup_enroute", "driver_name": "Sam", "tracking_url": "https://t.example/1"}
    delivery = (await client.post(url(placed, "delivery"), json=body, headers=shop.headers())).json()
    response = await client.patch(
        url(placed, "delivery"), json={"status": None, "driver_name": None}, headers=shop.headers()
    )
    assert response.status_code == 200
    assert response.json() == {**delivery, "driver_name": None}
