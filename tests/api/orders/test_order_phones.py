"""A phone never makes an order fail (spec 2.5, 9.3): a guest customer's phone that is a
possible E.164 number is stored without its separators, as on a customer; any other is
stored as given, on both creation paths (one statement, or a session). A delivery's driver
phone follows the customer rule: it is a separate request, refused with a 422."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.conftest import Shop
from tests.api.orders.conftest import created, order
from tests.factories import World

# the one-statement path (PostgreSQL, a location token, no key) and the session path
PATHS = {"one statement": {}, "session": {"Idempotency-Key": "k-1"}}


@pytest.mark.parametrize("creation", PATHS)
@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("+1234", "+1234"),  # too short
        ("+12345678901234567", "+12345678901234567"),  # too long
        ("+99912345678", "+99912345678"),  # no such country code
        ("+33 (0)6 12 34 56 78", "+33 (0)6 12 34 56 78"),
        ("call the desk", "call the desk"),
        ("", ""),
        ("+44 7700 900-123", "+447700900123"),  # possible: stored as on a customer
        ("+44123456789", "+44123456789"),
    ],
)
async def test_a_guest_customer_phone_never_makes_the_order_fail(
    client: httpx.AsyncClient, shop: Shop, creation: str, given: str, stored: str
) -> None:
    body = order(customer={"first_name": "Ann", "phone": given})
    response = await client.post("/v1/location/orders", json=body, headers={**shop.headers(), **PATHS[creation]})
    assert response.status_code == 200, response.text
    assert response.json()["customer"]["phone"] == stored
    read = await client.get(f"/v1/location/orders/{response.json()['id']}", headers=shop.headers())
    assert read.json()["customer"]["phone"] == stored


async def test_an_account_token_order_with_a_bad_phone_succeeds(client: httpx.AsyncClient, shop: Shop) -> None:
    body = order(customer={"phone": "+99912345678"})
    url = f"/v1/locations/{shop.location.public_id}/orders"
    response = await client.post(url, json=body, headers=shop.headers(shop.account_token))
    assert response.status_code == 200, response.text
    assert response.json()["customer"]["phone"] == "+99912345678"


async def _delivery_order(client: httpx.AsyncClient, shop: Shop) -> dict[str, Any]:
    return await created(client, shop, {"status": "accepted", "service_type": "delivery"})


async def test_a_driver_phone_is_stored_without_separators(client: httpx.AsyncClient, shop: Shop) -> None:
    placed = await _delivery_order(client, shop)
    url = f"/v1/location/orders/{placed['id']}/delivery"
    body = {"carrier": "Zoom", "status": "pending", "driver_phone": "+44 7700 900-123"}
    response = await client.post(url, json=body, headers=shop.headers())
    assert response.status_code == 200, response.text
    assert response.json()["driver_phone"] == "+447700900123"
    response = await client.patch(url, json={"driver_phone": "+33.6.12.34.56.78"}, headers=shop.headers())
    assert response.json()["driver_phone"] == "+33612345678"


@pytest.mark.parametrize("phone", ["+1234", "+12345678901234567", "+99912345678"])
async def test_an_impossible_driver_phone_is_refused_with_422_and_nothing_changes(
    client: httpx.AsyncClient, shop: Shop, world: World, phone: str
) -> None:
    placed = await _delivery_order(client, shop)
    url = f"/v1/location/orders/{placed['id']}/delivery"
    before = await world.snapshot()
    response = await client.post(
        url, json={"carrier": "Zoom", "status": "pending", "driver_phone": phone}, headers=shop.headers()
    )
    assert response.status_code == 422
    message = f"'{phone}' is not a valid E.164 phone number (e.g. \"+33612345678\")"
    assert response.json()["errors"] == [{"field": "driver_phone", "message": message}]
    assert await world.snapshot() == before
