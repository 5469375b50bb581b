"""spec 4.1 (updatable fields, the three element forms), 2.5 rule 7 (elements are never
edited; deletion is irreversible), docs/api/conventions.md "Methods" (PUT) and
docs/api/orders.md "Updating an order"."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.api.conftest import Shop
from tests.api.orders.conftest import created, order
from tests.factories import World


@pytest.fixture
async def placed(client: httpx.AsyncClient, shop: Shop) -> dict[str, Any]:
    return await created(client, shop, order())


async def patch(
    client: httpx.AsyncClient, shop: Shop, placed: dict[str, Any], body: Any, method: str = "PATCH"
) -> httpx.Response:
    return await client.request(method, f"/v1/location/orders/{placed['id']}", json=body, headers=shop.headers())


async def test_the_updatable_fields_change(client: httpx.AsyncClient, shop: Shop, placed: dict[str, Any]) -> None:
    body = {
        "status": "accepted",
        "confirmed_time": "2026-06-24T19:45:00+02:00",
        "driver_pickup_url": "https://courier.example/p/1",
        "seller_notes": "Extra napkins",
        "collection_code": "ZZ9",
        "private_ref": "pos-2",
        "custom_fields": {"table": None, "pager": 4},
    }
    response = await patch(client, shop, placed, body)
    assert response.status_code == 200
    assert response.json() == {
        **placed,
        "status": "accepted",
        "confirmed_time": "2026-06-24T19:45:00+02:00",
        "driver_pickup_url": "https://courier.example/p/1",
        "seller_notes": "Extra napkins",
        "collection_code": "ZZ9",
        "private_ref": "pos-2",
        "custom_fields": {"pager": 4},
    }


async def test_put_works_like_patch_and_other_fields_are_ignored(
    client: httpx.AsyncClient, shop: Shop, placed: dict[str, Any]
) -> None:
    response = await patch(client, shop, placed, {"status": "completed", "channel": "X", "total": "1.00 EUR"}, "PUT")
    assert response.json() == {**placed, "status": "completed"}


async def test_elements_are_added_deleted_and_given_private_refs(
    client: httpx.AsyncClient, shop: Shop, placed: dict[str, Any]
) -> None:
    cola, charge = placed["items"][1], placed["charges"][0]
    body = {
        "items": [
            {"id": cola["id"], "deleted": True},
            {"product_name": "Water", "price": "1.50 EUR", "quantity": 2, "private_ref": "w"},
            {"id": placed["items"][0]["id"], "private_ref": "line-1b"},
        ],
        "charges": [{"id": charge["id"], "private_ref": "fee"}],
        "payments": [{"type": "cash", "amount": "5.00 EUR"}],
    }
    response = await patch(client, shop, placed, body)
    assert response.status_code == 200
    updated = response.json()
    assert [(i["product_name"], i["deleted"], i["private_ref"]) for i in updated["items"]] == [
        ("Margherita", False, "line-1b"),
        ("Cola", True, None),
        ("Water", False, "w"),
    ]
    assert updated["items"][1] == {**cola, "deleted": True}  # kept, marked deleted
    assert updated["charges"][0]["private_ref"] == "fee"
    assert updated["payments"][1]["type"] == "cash"
    # 32.70 - 7.50 (cola) + 3.00 (water)
    assert updated["total"] == "28.20 EUR"
    ids = [i["id"] for i in updated["items"]]
    assert len(set(ids)) == 3


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"items": [{"id": "zzzzzz", "deleted": True}]}, "items[0].id", "no item with id 'zzzzzz' in this order"),
        ({"items": [{"id": "{item}", "deleted": False}]}, "items[0].deleted", "can only be true: a deleted element stays deleted"),
        ({"items": [{"id": "{item}", "quantity": 3}]}, "items[0]",
         "elements cannot be modified: to change one, delete it and add a new one; "
         "send only id and deleted true, only id and private_ref, or a new element without id"),
        ({"items": [{"product_name": "X", "price": "1 USD", "quantity": 1}]}, "items[0].price",
         "must be in EUR, the account's currency (not USD)"),
        ({"items": [{"product_name": "X", "quantity": 1}]}, "items[0].price", "is required"),
        ({"items": [{"product_name": "X", "price": "1 EUR", "quantity": 1, "deal_line": {"deal_key": "menu"}}]},
         "items[0].deal_line.deal_key", "'menu' is not a key of deals"),
        ({"charges": ["x"]}, "charges[0]", "must be a JSON object"),
        ({"status": "lost"}, "status", "must be 'new', 'received', 'accepted', 'in_preparation', 'awaiting_shipment', "
         "'awaiting_collection', 'in_delivery', 'completed', 'rejected', 'cancelled' or 'delivery_failed'"),
        ({"confirmed_time": "soon"}, "confirmed_time",
         "'soon' is not a valid ISO 8601 time (expected e.g. \"2026-06-24T17:07:53+02:00\")"),
    ],
)  # fmt: skip
async def test_invalid_updates_are_refused_and_nothing_changes(
    client: httpx.AsyncClient,
    shop: Shop,
    world: World,
    placed: dict[str, Any],
    body: dict[str, Any],
    field: str,
    message: str,
) -> None:
    body = json.loads(json.dumps(body).replace("{item}", placed["items"][0]["id"]))
    before = await world.snapshot()
    response = await patch(client, shop, placed, body)
    assert response.status_code == 422, response.text
    assert response.json()["errors"] == [{"field": field, "message": message}]
    assert await world.snapshot() == before


async def test_a_deleted_element_stays_deleted(client: httpx.AsyncClient, shop: Shop, placed: dict[str, Any]) -> None:
    item_id = placed["items"][0]["id"]
    await patch(client, shop, placed, {"items": [{"id": item_id, "deleted": True}]})
    response = await patch(client, shop, placed, {"items": [{"id": item_id, "deleted": True}]})
    assert response.status_code == 200
    assert response.json()["items"][0]["deleted"] is True


async def test_an_update_that_changes_nothing_records_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World, placed: dict[str, Any]
) -> None:
    before = await world.changes()
    response = await patch(client, shop, placed, {"status": "new"})
    assert response.json() == placed
    assert len(await world.changes()) == len(before)


async def test_an_unknown_order_is_404(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    before = await world.snapshot()
    response = await client.patch("/v1/location/orders/zzzzzz", json={"status": "accepted"}, headers=shop.headers())
    assert (response.status_code, response.json()) == (
        404,
        {"error_type": "not_found", "message": "No order with id 'zzzzzz'"},
    )
    assert await world.snapshot() == before


async def test_an_update_leaving_discounts_beyond_the_rest_reads_total_zero(
    client: httpx.AsyncClient, shop: Shop, placed: dict[str, Any]
) -> None:
    # 32.70 - 26.20 - 7.50 = -1.00: an order is never refused for its arithmetic
    body = {"items": [{"id": item["id"], "deleted": True} for item in placed["items"]]}
    response = await patch(client, shop, placed, body)
    assert response.status_code == 200, response.text
    assert response.json()["total"] == "0.00 EUR"
