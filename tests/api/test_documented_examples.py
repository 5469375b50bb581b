"""The production API's documented request examples that hold phones (spec 4.2 and 4.5
condense them) are accepted as they are written, only their ids adapted: each creates its
resource. A read example sent back as a creation is accepted too (read-only fields are
ignored), as integrators copy them."""

from __future__ import annotations

from typing import Any

import httpx

from tests.api.conftest import Shop
from tests.api.customers.conftest import lists_of

# the customer both examples of Charles Moore describe: who he is, and where he lives
CHARLES_MOORE: dict[str, Any] = {
    "email": "charles.moore@dummy-mail.org",
    "first_name": "Charles",
    "last_name": "Moore",
    "gender": "male",
    "birth_date": "1999-01-01",
    "company_name": "HubRise",
}
CHARLES_MOORE_IN_PARIS: dict[str, Any] = {
    "phone_access_code": "8888",
    "address_1": "1 avenue des Champs Elysées",
    "address_2": None,
    "postal_code": "75001",
    "city": "Paris",
    "state": None,
    "country": "FR",
}

# POST /customer_lists/ag8u4/customers (Customers, 2.3 Create Customer)
CUSTOMER_CREATE: dict[str, Any] = {
    "private_ref": "2213312",
    **CHARLES_MOORE,
    "phone": "+44123456789",
    **CHARLES_MOORE_IN_PARIS,
    "latitude": "48.8589507",
    "longitude": "2.2770205",
}

# the same request in an earlier edition of the documentation, with the customer's cards
CUSTOMER_CREATE_WITH_CARDS: dict[str, Any] = {
    **{k: v for k, v in CUSTOMER_CREATE.items() if k != "phone_access_code"},
    "private_ref": "2213313",
    "loyalty_cards": [{"name": "Come back!", "ref": "LOY", "balance": "0.0"}],
}

# GET /customer_lists/smpse3/customers/jdj9v (Customers, 2.1 Retrieve Customer)
CUSTOMER_READ: dict[str, Any] = {
    "id": "jdj9v",
    "customer_list_id": "smpse3",
    "anonymised": False,
    "private_ref": None,
    "email": "jimmy.watson@dummy-mail.org",
    "first_name": "Jimmy",
    "last_name": "Watson",
    "gender": "male",
    "birth_date": None,
    "created_at": "2020-01-18T17:12:02+02:00",
    "company_name": None,
    "phone": "+44123456789",
    "phone_access_code": "8888",
    "address_1": "1 Town Road",
    "address_2": None,
    "postal_code": "N9 0HL",
    "city": "London",
    "state": None,
    "country": "GB",
    "latitude": "45.7571206",
    "longitude": "4.8307575",
    "delivery_notes": None,
    "sms_marketing": False,
    "email_marketing": True,
    "nb_orders": 2,
    "order_total": "28.40 GBP",
    "first_order_date": "2020-01-18T17:15:11+02:00",
    "last_order_date": "2020-01-23T10:13:21+02:00",
    "loyalty_cards": [{"id": "slp8q", "ref": None, "name": None, "balance": "13.5"}],
    "custom_fields": {},
}

# POST /location/orders/5dpm9/delivery (Deliveries, 1. Create a Delivery)
DELIVERY_CREATE: dict[str, Any] = {
    "carrier": "UPS",
    "carrier_ref": "ups",
    "ref": "1Z12345E0291980793",
    "status": "pending",
    "fee": "4.50 EUR",
    "estimated_pickup_at": "2023-01-01T12:00:00+01:00",
    "estimated_dropoff_at": "2023-01-01T12:30:00+01:00",
    "tracking_url": "https://www.ups.com/track/1Z12345E0291980793",
    "driver_pickup_url": "https://driver.ups.com/pickup/1Z12345E0291980793",
    "driver_name": "John",
    "driver_phone": "+33612345678",
    "driver_phone_access_code": "1234",
    "driver_latitude": "48.856614",
    "driver_longitude": "2.3522219",
}

# the customer of GET /locations/3r4s3-1/orders/5dpm9 (Orders, 1.2 Retrieve Order), as the
# customer of a guest order
ORDER_CUSTOMER: dict[str, Any] = {
    "id": "wbq93",
    "customer_list_id": "1dmy1",
    "anonymised": False,
    "private_ref": "49751",
    **CHARLES_MOORE,
    "phone": "+33123456789",
    **CHARLES_MOORE_IN_PARIS,
    "latitude": "48.858951",
    "longitude": "2.277021",
    "delivery_notes": None,
    "sms_marketing": False,
    "email_marketing": False,
    "nb_orders": 8,
    "order_total": "151.20 EUR",
    "first_order_date": "2021-06-22T11:04:27+02:00",
    "last_order_date": "2021-06-24T17:07:53+02:00",
    "loyalty_cards": [],
    "custom_fields": {},
}


async def _customer_created(client: httpx.AsyncClient, shop: Shop, body: dict[str, Any]) -> dict[str, Any]:
    list_id = await lists_of(client, shop)
    response = await client.post(f"/v1/customer_lists/{list_id}/customers", json=body, headers=shop.headers())
    assert response.status_code == 200, response.text
    read = await client.get(f"/v1/customer_lists/{list_id}/customers/{response.json()['id']}", headers=shop.headers())
    assert read.json() == response.json()
    return response.json()


async def test_the_documented_customer_creation_creates_the_customer(client: httpx.AsyncClient, shop: Shop) -> None:
    made = await _customer_created(client, shop, CUSTOMER_CREATE)
    assert {k: made[k] for k in CUSTOMER_CREATE} == CUSTOMER_CREATE


async def test_the_earlier_documented_customer_creation_creates_the_customer(
    client: httpx.AsyncClient, shop: Shop
) -> None:
    made = await _customer_created(client, shop, CUSTOMER_CREATE_WITH_CARDS)
    assert (made["private_ref"], made["phone"], made["country"]) == ("2213313", "+44123456789", "FR")


async def test_the_documented_customer_sent_back_creates_a_customer(client: httpx.AsyncClient, shop: Shop) -> None:
    made = await _customer_created(client, shop, CUSTOMER_READ)
    assert (made["phone"], made["phone_access_code"], made["postal_code"]) == ("+44123456789", "8888", "N9 0HL")
    assert (made["nb_orders"], made["order_total"], made["loyalty_cards"]) == (0, "0.00 EUR", [])


async def test_the_documented_delivery_creation_creates_the_delivery(client: httpx.AsyncClient, shop: Shop) -> None:
    placed = await client.post(
        "/v1/location/orders", json={"status": "accepted", "service_type": "delivery"}, headers=shop.headers()
    )
    assert placed.status_code == 200, placed.text
    url = f"/v1/location/orders/{placed.json()['id']}/delivery"
    response = await client.post(url, json=DELIVERY_CREATE, headers=shop.headers())
    assert response.status_code == 200, response.text
    made = response.json()
    same = {k: v for k, v in DELIVERY_CREATE.items() if k not in ("estimated_pickup_at", "estimated_dropoff_at")}
    assert {k: made[k] for k in same} == same
    assert (await client.get(url, headers=shop.headers())).json() == made


async def test_the_documented_order_customer_makes_a_guest_order(client: httpx.AsyncClient, shop: Shop) -> None:
    body = {"status": "new", "service_type": "delivery", "customer": ORDER_CUSTOMER}
    response = await client.post("/v1/location/orders", json=body, headers=shop.headers())
    assert response.status_code == 200, response.text
    customer = response.json()["customer"]
    assert (customer["phone"], customer["first_name"], customer["country"]) == ("+33123456789", "Charles", "FR")
    assert customer["id"] is None  # a guest order: the example's ids are read-only
