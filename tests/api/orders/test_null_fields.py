"""docs/api/conventions.md "Null fields" on orders: an optional field sent as null is not
sent (its default on a creation, unchanged on an update), at every depth; a required one is a
422 naming it; fields that take null (texts, times, private refs) and custom fields' keys
keep their meaning."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.conftest import Shop
from tests.api.orders.conftest import create, created, order
from tests.factories import World

ITEM = {"product_name": "Soup", "price": "7.50 EUR", "quantity": 1}


def _without_ids(read: dict[str, Any]) -> dict[str, Any]:
    """An order's read shape without what differs from one creation to the next."""
    same = {key: value for key, value in read.items() if key not in ("id", "created_at")}
    for collection in ("items", "discounts", "charges", "payments"):
        same[collection] = [{k: v for k, v in e.items() if k != "id"} for e in read[collection]]
    return same


async def test_null_arrays_and_objects_of_a_new_order_read_as_their_defaults(
    client: httpx.AsyncClient, shop: Shop
) -> None:
    nulls = {
        "status": "new",
        "items": [{**ITEM, "options": None, "deal_line": None, "private_ref": None}],
        "payments": None,
        "discounts": None,
        "charges": None,
        "customer": None,
        "coupon_codes": None,
        "deals": None,
        "loyalty_operations": None,
        "custom_fields": None,
        "expected_time_pickup": None,
        "asap": None,
        "customer_id": None,
        "customer_list_id": None,
        "customer_private_ref": None,
    }
    read = await created(client, shop, nulls)
    assert read["items"][0]["options"] == []
    assert read["items"][0]["deal_line"] is None
    assert (read["payments"], read["discounts"], read["charges"]) == ([], [], [])
    assert (read["customer"], read["customer_id"], read["customer_list_id"]) == (None, None, None)
    assert (read["coupon_codes"], read["deals"], read["loyalty_operations"]) == ([], {}, [])
    assert read["custom_fields"] == {}
    assert (read["expected_time_pickup"], read["asap"]) == (False, True)
    assert read["total"] == "7.50 EUR"
    # exactly the order sent without those keys
    assert _without_ids(read) == _without_ids(await created(client, shop, {"status": "new", "items": [ITEM]}))


async def test_null_fields_of_elements_and_options_take_their_defaults(client: httpx.AsyncClient, shop: Shop) -> None:
    body = {
        "status": "new",
        "items": [{**ITEM, "options": [{"name": "Bread", "price": "1 EUR", "quantity": None, "removed": None}]}],
        "charges": [{"type": None, "name": "Fee", "price": "1 EUR"}],
        "payments": [{"type": None, "amount": "9.50 EUR", "info": None}],
    }
    read = await created(client, shop, body)
    assert read["items"][0]["options"] == [
        {"option_list_name": None, "name": "Bread", "ref": None, "price": "1.00 EUR", "quantity": 1, "removed": False}
    ]
    assert (read["charges"][0]["type"], read["payments"][0]["type"]) == ("other", "online")
    assert read["payments"][0]["info"] is None
    assert read["total"] == "9.50 EUR"


async def test_a_guest_customers_null_consents_and_custom_fields_are_defaults(
    client: httpx.AsyncClient, shop: Shop
) -> None:
    customer = {"first_name": "Bo", "sms_marketing": None, "email_marketing": None, "custom_fields": None}
    read = await created(client, shop, {"status": "new", "customer": customer})
    snapshot = read["customer"]
    assert (snapshot["first_name"], snapshot["sms_marketing"], snapshot["email_marketing"]) == ("Bo", False, False)
    assert snapshot["custom_fields"] == {}


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"status": None}, "status"),
        ({"items": [{**ITEM, "price": None}]}, "items[0].price"),
        ({"items": [{**ITEM, "product_name": None}]}, "items[0].product_name"),
        ({"items": [{**ITEM, "quantity": None}]}, "items[0].quantity"),
        ({"items": [{**ITEM, "options": [{"name": None}]}]}, "items[0].options[0].name"),
        ({"discounts": [{"name": "D", "price_off": None}]}, "discounts[0].price_off"),
        ({"charges": [{"name": None, "price": "1 EUR"}]}, "charges[0].name"),
        ({"payments": [{"amount": None}]}, "payments[0].amount"),
        ({"deals": {"menu": {"name": None}}}, "deals.menu.name"),
    ],
)
async def test_a_required_field_sent_as_null_is_422_naming_it(
    client: httpx.AsyncClient, shop: Shop, world: World, changes: dict[str, Any], field: str
) -> None:
    before = await world.snapshot()
    response = await create(client, shop, order(**changes))
    assert response.status_code == 422
    assert response.json()["errors"] == [{"field": field, "message": "is required"}]
    assert await world.snapshot() == before


# --- updates ----------------------------------------------------------------------------


@pytest.fixture
async def placed(client: httpx.AsyncClient, shop: Shop) -> dict[str, Any]:
    return await created(client, shop, order())


async def patch(client: httpx.AsyncClient, shop: Shop, placed: dict[str, Any], body: Any) -> httpx.Response:
    return await client.patch(f"/v1/location/orders/{placed['id']}", json=body, headers=shop.headers())


async def test_a_status_update_with_null_items_changes_only_the_status(
    client: httpx.AsyncClient, shop: Shop, placed: dict[str, Any]
) -> None:
    response = await patch(client, shop, placed, {"status": "accepted", "items": None})
    assert response.status_code == 200
    assert response.json() == {**placed, "status": "accepted"}


async def test_null_collections_status_and_custom_fields_leave_the_order_unchanged(
    client: httpx.AsyncClient, shop: Shop, placed: dict[str, Any]
) -> None:
    body = {
        "status": None,
        "items": None,
        "discounts": None,
        "charges": None,
        "payments": None,
        "custom_fields": None,
    }
    response = await patch(client, shop, placed, body)
    assert response.status_code == 200
    assert response.json() == placed
    read = await client.get(f"/v1/location/orders/{placed['id']}", headers=shop.headers())
    assert read.json() == placed


async def test_a_new_element_with_null_id_and_options_is_added(
    client: httpx.AsyncClient, shop: Shop, placed: dict[str, Any]
) -> None:
    water = {"id": None, "product_name": "Water", "price": "1.50 EUR", "quantity": 2, "options": None}
    response = await patch(client, shop, placed, {"items": [water]})
    assert response.status_code == 200
    added = response.json()["items"][-1]
    assert (added["product_name"], added["options"], added["deleted"], added["subtotal"]) == (
        "Water",
        [],
        False,
        "3.00 EUR",
    )
    assert len(response.json()["items"]) == len(placed["items"]) + 1


async def test_null_keeps_its_meaning_for_fields_that_take_it(
    client: httpx.AsyncClient, shop: Shop, placed: dict[str, Any]
) -> None:
    """Texts, times and private refs read null when unset: null clears them; a custom
    field's key set to null is removed."""
    body = {
        "seller_notes": None,
        "collection_code": None,
        "driver_pickup_url": None,
        "confirmed_time": None,
        "private_ref": None,
        "custom_fields": {"table": None},
    }
    await patch(client, shop, placed, {"seller_notes": "Napkins", "confirmed_time": "2026-06-24T19:45:00+02:00"})
    response = await patch(client, shop, placed, body)
    assert response.status_code == 200
    assert response.json() == {
        **placed,
        "seller_notes": None,
        "collection_code": None,
        "driver_pickup_url": None,
        "confirmed_time": None,
        "private_ref": None,
        "custom_fields": {},
    }


async def test_a_body_read_as_it_streams_takes_nulls_the_same_way(client: httpx.AsyncClient, shop: Shop) -> None:
    """Over 64 KiB, each item is checked as it arrives (docs/architecture.md "Request bodies")."""
    items = [{**ITEM, "options": None, "customer_notes": "n" * 5000} for _ in range(14)]
    read = await created(client, shop, {"status": "new", "items": items, "payments": None, "custom_fields": None})
    assert [item["options"] for item in read["items"]] == [[]] * 14
    assert (read["payments"], read["custom_fields"], read["total"]) == ([], {}, "105.00 EUR")
