"""spec 2.7, 3.2, 3.3, 4.2 and 6.2: delivery quotes and deliveries, their automatic times,
and the events they record."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from comptoir.kit import clock
from tests.api.callbacks.conftest import subscribe
from tests.api.conftest import Shop
from tests.api.orders.conftest import created
from tests.factories import World

T0 = datetime(2026, 6, 24, 15, 0, tzinfo=UTC)  # 17:00 in Paris


@pytest.fixture
async def placed(client: httpx.AsyncClient, shop: Shop) -> dict[str, Any]:
    return await created(client, shop, {"status": "accepted", "service_type": "delivery"})


def url(placed: dict[str, Any], tail: str) -> str:
    return f"/v1/location/orders/{placed['id']}/{tail}"


QUOTE = {
    "carrier": "Zoom",
    "carrier_ref": "Z",
    "ref": "q-1",
    "fee": "4.50 EUR",
    "estimated_pickup_at": "2026-06-24T17:30:00",
}


async def test_a_quote_is_created_read_and_listed(
    client: httpx.AsyncClient, shop: Shop, placed: dict[str, Any]
) -> None:
    response = await client.post(url(placed, "delivery_quotes"), json=QUOTE, headers=shop.headers())
    assert response.status_code == 200
    quote = response.json()
    assert quote == {
        "id": quote["id"], "order_id": placed["id"], "location_id": shop.location.public_id, "carrier": "Zoom",
        "carrier_ref": "Z", "ref": "q-1", "fee": "4.50 EUR", "estimated_pickup_at": "2026-06-24T17:30:00+02:00",
        "estimated_dropoff_at": None, "accepted_at": None,
    }  # fmt: skip
    assert (await client.get(url(placed, f"delivery_quotes/{quote['id']}"), headers=shop.headers())).json() == quote
    assert (await client.get(url(placed, "delivery_quotes"), headers=shop.headers())).json() == [quote]
    full = f"/v1/locations/{shop.location.public_id}/orders/{placed['id']}/delivery_quotes"
    assert (await client.get(full, headers=shop.headers(shop.account_token))).json() == [quote]


async def test_accept_saves_the_time_once_and_several_quotes_may_be_accepted(
    client: httpx.AsyncClient, shop: Shop, placed: dict[str, Any]
) -> None:
    first = (await client.post(url(placed, "delivery_quotes"), json=QUOTE, headers=shop.headers())).json()
    second = (await client.post(url(placed, "delivery_quotes"), json=QUOTE, headers=shop.headers())).json()
    clock.freeze(T0)
    accepted = (await client.post(url(placed, f"delivery_quotes/{first['id']}/accept"), headers=shop.headers())).json()
    assert accepted["accepted_at"] == "2026-06-24T17:00:00+02:00"
    clock.travel(timedelta(minutes=5))
    again = (await client.post(url(placed, f"delivery_quotes/{first['id']}/accept"), headers=shop.headers())).json()
    assert again["accepted_at"] == "2026-06-24T17:00:00+02:00"  # irreversible, unchanged
    other = (await client.post(url(placed, f"delivery_quotes/{second['id']}/accept"), headers=shop.headers())).json()
    assert other["accepted_at"] == "2026-06-24T17:05:00+02:00"


async def test_quotes_and_deliveries_are_only_for_delivery_orders(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    collection = await created(client, shop, {"status": "accepted", "service_type": "collection"})
    before = await world.snapshot()
    for tail, body, what in (
        ("delivery_quotes", QUOTE, "delivery quotes are"),
        ("delivery", {"carrier": "Zoom", "status": "pending"}, "deliveries are"),
    ):
        response = await client.post(url(collection, tail), json=body, headers=shop.headers())
        assert response.status_code == 422
        assert response.json()["errors"] == [
            {
                "field": "service_type",
                "message": f"{what} only for delivery orders; this order's service_type is collection",
            }
        ]
    assert await world.snapshot() == before


async def test_an_order_without_service_type_is_named_so_when_a_quote_is_refused(
    client: httpx.AsyncClient, shop: Shop
) -> None:
    plain = await created(client, shop, {"status": "accepted"})
    response = await client.post(url(plain, "delivery_quotes"), json=QUOTE, headers=shop.headers())
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {
            "field": "service_type",
            "message": "delivery quotes are only for delivery orders; this order has no service_type",
        }
    ]


async def test_reading_the_quotes_and_delivery_of_another_order_is_as_for_an_order_without_them(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    """docs/api/deliveries.md "Delivery orders only": only creation is refused; an order that is
    not a delivery order has no quotes (`200 []`) and no delivery (404, as for any order)."""
    collection = await created(client, shop, {"status": "accepted", "service_type": "collection"})
    before = await world.snapshot()
    quotes = await client.get(url(collection, "delivery_quotes"), headers=shop.headers())
    assert (quotes.status_code, quotes.json()) == (200, [])
    for method in ("GET", "PATCH", "PUT"):
        response = await client.request(method, url(collection, "delivery"), json={}, headers=shop.headers())
        assert (response.status_code, response.json()) == (
            404,
            {"error_type": "not_found", "message": "No such delivery"},
        )
    accept = await client.post(url(collection, "delivery_quotes/abcde/accept"), headers=shop.headers())
    assert (accept.status_code, accept.json()) == (
        404,
        {"error_type": "not_found", "message": "No delivery quote with id 'abcde'"},
    )
    assert await world.snapshot() == before


async def test_an_order_without_delivery_answers_404(
    client: httpx.AsyncClient, shop: Shop, world: World, placed: dict[str, Any]
) -> None:
    before = await world.snapshot()
    for method in ("GET", "PATCH", "PUT"):
        response = await client.request(method, url(placed, "delivery"), json={}, headers=shop.headers())
        assert response.status_code == 404
        assert response.json() == {"error_type": "not_found", "message": "No such delivery"}
    assert await world.snapshot() == before


async def test_a_delivery_is_created_once_and_read_with_its_order(
    client: httpx.AsyncClient, shop: Shop, world: World, placed: dict[str, Any]
) -> None:
    clock.freeze(T0)
    body = {
        "carrier": "Zoom",
        "status": "pickup_enroute",
        "fee": "4.50 EUR",
        "driver_name": "Sam",
        "driver_phone": "+33612345678",
    }
    response = await client.post(url(placed, "delivery"), json=body, headers=shop.headers())
    assert response.status_code == 200
    delivery = response.json()
    assert delivery == {
        "id": delivery["id"], "order_id": placed["id"], "location_id": shop.location.public_id, "carrier": "Zoom",
        "carrier_ref": None, "ref": None, "status": "pickup_enroute", "fee": "4.50 EUR", "estimated_pickup_at": None,
        "estimated_dropoff_at": None, "tracking_url": None, "driver_name": "Sam", "driver_phone": "+33612345678",
        "driver_phone_access_code": None, "driver_latitude": None, "driver_longitude": None, "driver_pickup_url": None,
        "assigned_at": "2026-06-24T17:00:00+02:00", "pickup_at": None, "delivered_at": None, "cancelled_at": None,
        "driver_position_updated_at": None,
    }  # fmt: skip
    assert (await client.get(url(placed, "delivery"), headers=shop.headers())).json() == delivery
    order = (await client.get(f"/v1/location/orders/{placed['id']}", headers=shop.headers())).json()
    assert order["delivery"] == delivery
    before = await world.snapshot()
    response = await client.post(url(placed, "delivery"), json=body, headers=shop.headers())
    assert response.status_code == 422
    assert await world.snapshot() == before


async def test_automatic_times_follow_the_status_and_may_be_overridden(
    client: httpx.AsyncClient, shop: Shop, placed: dict[str, Any]
) -> None:
    clock.freeze(T0)
    await client.post(url(placed, "delivery"), json={"carrier": "Zoom", "status": "pending"}, headers=shop.headers())
    clock.travel(timedelta(minutes=10))
    d = (await client.patch(url(placed, "delivery"), json={"status": "dropoff_enroute"}, headers=shop.headers())).json()
    assert (d["assigned_at"], d["pickup_at"]) == (None, "2026-06-24T17:10:00+02:00")
    clock.travel(timedelta(minutes=10))
    body = {"status": "delivered", "delivered_at": "2026-06-24T17:15:00+02:00"}
    d = (await client.patch(url(placed, "delivery"), json=body, headers=shop.headers())).json()
    assert d["delivered_at"] == "2026-06-24T17:15:00+02:00"  # overridden
    d = (await client.put(url(placed, "delivery"), json={"status": "cancelled"}, headers=shop.headers())).json()
    assert d["cancelled_at"] == "2026-06-24T17:20:00+02:00"


async def test_a_driver_position_sets_its_time_even_unchanged(
    client: httpx.AsyncClient, shop: Shop, placed: dict[str, Any]
) -> None:
    clock.freeze(T0)
    await client.post(url(placed, "delivery"), json={"carrier": "Zoom", "status": "pending"}, headers=shop.headers())
    position = {"driver_latitude": "48.8566", "driver_longitude": 2.3522}
    d = (await client.patch(url(placed, "delivery"), json=position, headers=shop.headers())).json()
    assert (d["driver_latitude"], d["driver_longitude"], d["driver_position_updated_at"]) == (
        "48.8566", "2.3522", "2026-06-24T17:00:00+02:00",
    )  # fmt: skip
    clock.travel(timedelta(minutes=1))
    d = (
        await client.patch(url(placed, "delivery"), json={"driver_latitude": "48.8566"}, headers=shop.headers())
    ).json()
    assert d["driver_position_updated_at"] == "2026-06-24T17:01:00+02:00"


async def test_carrier_carrier_ref_and_fee_cannot_be_updated(
    client: httpx.AsyncClient, shop: Shop, placed: dict[str, Any]
) -> None:
    created_ = (
        await client.post(
            url(placed, "delivery"), json={"carrier": "Zoom", "status": "pending", "fee": "1"}, headers=shop.headers()
        )
    ).json()
    body = {"carrier": "Other", "carrier_ref": "O", "fee": "9", "tracking_url": "https://t.example/1"}
    d = (await client.patch(url(placed, "delivery"), json=body, headers=shop.headers())).json()
    assert d == {**created_, "tracking_url": "https://t.example/1"}


async def test_invalid_deliveries_are_refused(
    client: httpx.AsyncClient, shop: Shop, world: World, placed: dict[str, Any]
) -> None:
    before = await world.snapshot()
    response = await client.post(
        url(placed, "delivery"), json={"status": "flying", "driver_latitude": "95"}, headers=shop.headers()
    )
    assert response.status_code == 422
    assert sorted(e["field"] for e in response.json()["errors"]) == ["carrier", "driver_latitude", "status"]
    response = await client.post(url(placed, "delivery_quotes"), json={"carrier": "Zoom"}, headers=shop.headers())
    assert response.json()["errors"] == [{"field": "fee", "message": "is required"}]
    assert await world.snapshot() == before


async def test_events_of_deliveries_and_quotes(
    client: httpx.AsyncClient, shop: Shop, world: World, placed: dict[str, Any]
) -> None:
    listener = await world.token("location[orders.read]", location=shop.location, client=await world.client("Courier"))
    await subscribe(client, listener, {"delivery": ["create", "update"], "order": ["update"]})
    headers = {"X-Access-Token": listener}
    await client.post(url(placed, "delivery_quotes"), json=QUOTE, headers=shop.headers())
    created_ = (
        await client.post(
            url(placed, "delivery"), json={"carrier": "Zoom", "status": "pending"}, headers=shop.headers()
        )
    ).json()
    await client.patch(
        url(placed, "delivery"), json={"driver_latitude": "48.1", "driver_longitude": "2.1"}, headers=shop.headers()
    )
    await client.patch(url(placed, "delivery"), json={"status": "pickup_enroute"}, headers=shop.headers())
    listed = (await client.get("/v1/callback/events", headers=headers)).json()
    assert [(e["resource_type"], e["event_type"]) for e in listed] == [
        ("order", "update"),  # the quote
        ("delivery", "create"),
        ("order", "update"),  # the delivery
        ("delivery", "update"),  # the driver moved: no order update
        ("delivery", "update"),
        ("order", "update"),
    ]
    full = (await client.get(f"/v1/callback/events/{listed[1]['id']}", headers=headers)).json()
    assert full["new_state"] == created_
    assert (full["order_id"], full["location_id"], full["delivery_id"]) == (
        placed["id"],
        shop.location.public_id,
        created_["id"],
    )


async def test_own_order_delivery_reaches_the_orders_creator(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    marketplace = await world.token(
        "location[orders.write]", location=shop.location, client=await world.client("Market")
    )
    await subscribe(client, marketplace, {"own_order_delivery": ["create", "update"]})
    mine = await created(client, shop, {"status": "new", "service_type": "delivery"}, marketplace)
    await client.post(url(mine, "delivery"), json={"carrier": "Zoom", "status": "pending"}, headers=shop.headers())
    listed = (await client.get("/v1/callback/events", headers={"X-Access-Token": marketplace})).json()
    assert [(e["resource_type"], e["event_type"]) for e in listed] == [("own_order_delivery", "create")]
