"""docs/api/conventions.md "Null fields" on customers, customer lists, loyalty cards and
operations: an optional field sent as null is not sent (its default on a creation, unchanged
on an update); a required one is a 422 naming it; texts and refs take null (clearing them),
and a custom field's key set to null is removed."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.conftest import Shop
from tests.api.customers.conftest import new_card, new_customer
from tests.factories import World


def customers(list_id: str, customer_id: str | None = None) -> str:
    return f"/v1/customer_lists/{list_id}/customers" + (f"/{customer_id}" if customer_id else "")


def cards(list_id: str, card_id: str | None = None) -> str:
    return f"/v1/customer_lists/{list_id}/loyalty_cards" + (f"/{card_id}" if card_id else "")


async def test_a_new_customers_null_consents_and_custom_fields_are_defaults(
    client: httpx.AsyncClient, shop: Shop, list_id: str
) -> None:
    body = {"first_name": "Ann", "sms_marketing": None, "email_marketing": None, "custom_fields": None}
    customer = await new_customer(client, shop, list_id, body)
    assert (customer["sms_marketing"], customer["email_marketing"], customer["custom_fields"]) == (False, False, {})
    assert {key: value for key, value in customer.items() if key not in ("id", "created_at")} == {
        key: value
        for key, value in (await new_customer(client, shop, list_id, {"first_name": "Ann"})).items()
        if key not in ("id", "created_at")
    }


async def test_a_new_customers_custom_field_set_to_null_is_not_stored(
    client: httpx.AsyncClient, shop: Shop, list_id: str
) -> None:
    customer = await new_customer(client, shop, list_id, {"custom_fields": {"tier": "gold", "old": None}})
    assert customer["custom_fields"] == {"tier": "gold"}


async def test_null_consents_and_custom_fields_leave_a_customer_unchanged(
    client: httpx.AsyncClient, shop: Shop, list_id: str, world: World
) -> None:
    customer = await new_customer(
        client, shop, list_id, {"first_name": "Ann", "sms_marketing": True, "custom_fields": {"tier": "gold"}}
    )
    before = await world.snapshot()
    body = {"sms_marketing": None, "email_marketing": None, "custom_fields": None}
    response = await client.patch(customers(list_id, customer["id"]), json=body, headers=shop.headers())
    assert response.status_code == 200
    assert response.json() == customer
    assert await world.snapshot() == before  # not even an update event


async def test_null_clears_a_customers_texts_and_removes_a_custom_field(
    client: httpx.AsyncClient, shop: Shop, list_id: str
) -> None:
    customer = await new_customer(
        client,
        shop,
        list_id,
        {"first_name": "Ann", "email": "ann@example.com", "city": "Lyon", "custom_fields": {"a": 1, "b": 2}},
    )
    body = {"email": None, "city": None, "custom_fields": {"a": None}}
    response = await client.patch(customers(list_id, customer["id"]), json=body, headers=shop.headers())
    assert response.status_code == 200
    assert response.json() == {**customer, "email": None, "city": None, "custom_fields": {"b": 2}}


@pytest.mark.parametrize("method", ["POST", "PATCH"])
async def test_a_customer_lists_null_name_is_422_naming_it(
    client: httpx.AsyncClient, shop: Shop, list_id: str, world: World, method: str
) -> None:
    path = "/v1/account/customer_lists" if method == "POST" else f"/v1/customer_lists/{list_id}"
    before = await world.snapshot()
    response = await client.request(method, path, json={"name": None}, headers=shop.headers(shop.account_token))
    assert response.status_code == 422
    assert response.json()["errors"] == [{"field": "name", "message": "is required"}]
    assert await world.snapshot() == before


async def test_a_cards_null_name_and_ref_read_null_and_null_clears_them(
    client: httpx.AsyncClient, shop: Shop, list_id: str
) -> None:
    customer = await new_customer(client, shop, list_id)
    card = await new_card(client, shop, list_id, customer["id"], name=None, ref=None)
    assert (card["name"], card["ref"]) == (None, None)
    named = await new_card(client, shop, list_id, customer["id"], name="Points", ref="P-1")
    response = await client.patch(cards(list_id, named["id"]), json={"name": None, "ref": None}, headers=shop.headers())
    assert response.status_code == 422  # the customer's other card already has no ref
    assert response.json()["errors"] == [
        {"field": "ref", "message": "the customer already has a loyalty card without ref"}
    ]
    response = await client.patch(cards(list_id, named["id"]), json={"name": None}, headers=shop.headers())
    assert response.json() == {**named, "name": None}


async def test_a_cards_null_customer_is_422_naming_it(
    client: httpx.AsyncClient, shop: Shop, list_id: str, world: World
) -> None:
    before = await world.snapshot()
    response = await client.post(cards(list_id), json={"customer_id": None, "name": "Points"}, headers=shop.headers())
    assert response.status_code == 422
    assert response.json()["errors"] == [{"field": "customer_id", "message": "is required"}]
    assert await world.snapshot() == before


async def test_an_operations_null_reason_and_order_are_none_and_a_null_delta_is_422(
    client: httpx.AsyncClient, shop: Shop, list_id: str, world: World
) -> None:
    customer = await new_customer(client, shop, list_id)
    card = await new_card(client, shop, list_id, customer["id"])
    operations = cards(list_id, card["id"]) + "/operations"
    response = await client.post(
        operations, json={"delta": "2", "reason": None, "order_id": None}, headers=shop.headers()
    )
    assert response.status_code == 200
    operation: dict[str, Any] = response.json()
    assert (operation["reason"], operation["order_id"], operation["new_balance"]) == (None, None, "2.0")
    before = await world.snapshot()
    response = await client.post(operations, json={"delta": None, "reason": "x"}, headers=shop.headers())
    assert response.status_code == 422
    assert response.json()["errors"] == [{"field": "delta", "message": "is required"}]
    assert await world.snapshot() == before
