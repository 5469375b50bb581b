"""spec 2.6 and 4.5: customers (create, get, PATCH/PUT), their validation, private refs
(spec 2.2 item 7, docs/api/customers.md "Private refs") and custom fields (spec 2.2)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from comptoir.kit import clock
from tests.api.conftest import Shop
from tests.api.customers.conftest import new_customer
from tests.factories import World

EVERY_FIELD: dict[str, Any] = {
    "private_ref": "pos-42",
    "email": "Ann.Smith@example.com",
    "first_name": "Ann",
    "last_name": "Smith",
    "gender": "female",
    "birth_date": "1990-04-01",
    "company_name": "Smith & Co",
    "phone": "+33612345678",
    "phone_access_code": "1234",
    "address_1": "1 rue de Rivoli",
    "address_2": "Bât. B",
    "postal_code": "75001",
    "city": "Paris",
    "state": "Île-de-France",
    "country": "FR",
    "latitude": "48.858951",
    "longitude": 2.29,
    "delivery_notes": "Ring twice",
    "sms_marketing": True,
    "email_marketing": True,
    "custom_fields": {"tier": "gold", "tags": ["a", {"b": 1}]},
}


def path(list_id: str, customer_id: str | None = None) -> str:
    return f"/v1/customer_lists/{list_id}/customers" + (f"/{customer_id}" if customer_id else "")


async def test_an_empty_customer_reads_every_field_with_its_default(
    client: httpx.AsyncClient, shop: Shop, list_id: str
) -> None:
    clock.freeze(datetime(2026, 6, 24, 15, 7, 53, tzinfo=UTC))
    customer = await new_customer(client, shop, list_id)
    assert customer == {
        "id": customer["id"],
        "customer_list_id": list_id,
        "private_ref": None,
        "email": None,
        "first_name": None,
        "last_name": None,
        "gender": None,
        "birth_date": None,
        "company_name": None,
        "phone": None,
        "phone_access_code": None,
        "address_1": None,
        "address_2": None,
        "postal_code": None,
        "city": None,
        "state": None,
        "country": None,
        "latitude": None,
        "longitude": None,
        "delivery_notes": None,
        "sms_marketing": False,
        "email_marketing": False,
        "custom_fields": {},
        "anonymised": False,
        "created_at": "2026-06-24T17:07:53+02:00",
        "nb_orders": 0,
        "order_total": "0.00 EUR",
        "first_order_date": None,
        "last_order_date": None,
        "loyalty_cards": [],
    }
    assert len(customer["id"]) == 6
    response = await client.get(path(list_id, customer["id"]), headers=shop.headers())
    assert response.status_code == 200
    assert response.json() == customer


async def test_every_field_round_trips(client: httpx.AsyncClient, shop: Shop, list_id: str) -> None:
    customer = await new_customer(client, shop, list_id, EVERY_FIELD)
    expected = {**EVERY_FIELD, "longitude": "2.29"}
    assert {key: customer[key] for key in EVERY_FIELD} == expected
    read = (await client.get(path(list_id, customer["id"]), headers=shop.headers())).json()
    assert read == customer


async def test_read_only_and_unknown_fields_are_ignored(client: httpx.AsyncClient, shop: Shop, list_id: str) -> None:
    body = {
        "id": "aaaaaa", "customer_list_id": "bbbbbb", "anonymised": True, "created_at": "2020-01-01T00:00:00Z",
        "nb_orders": 9, "order_total": "9.00 EUR", "first_order_date": "2020-01-01T00:00:00Z",
        "last_order_date": "2020-01-01T00:00:00Z", "loyalty_cards": [{"id": "x"}], "favourite_dish": "soup",
        "first_name": "Ann",
    }  # fmt: skip
    customer = await new_customer(client, shop, list_id, body)
    assert customer["first_name"] == "Ann"
    assert customer["id"] != "aaaaaa"
    assert customer["customer_list_id"] == list_id
    assert (customer["anonymised"], customer["nb_orders"], customer["order_total"]) == (False, 0, "0.00 EUR")
    assert customer["loyalty_cards"] == []
    assert "favourite_dish" not in customer


async def test_patch_updates_only_the_fields_present(client: httpx.AsyncClient, shop: Shop, list_id: str) -> None:
    customer = await new_customer(client, shop, list_id, EVERY_FIELD)
    response = await client.patch(
        path(list_id, customer["id"]), json={"first_name": "Anna", "address_2": None}, headers=shop.headers()
    )
    assert response.status_code == 200
    assert response.json() == {**customer, "first_name": "Anna", "address_2": None}


async def test_put_is_accepted_like_patch(client: httpx.AsyncClient, shop: Shop, list_id: str) -> None:
    customer = await new_customer(client, shop, list_id, EVERY_FIELD)
    response = await client.put(path(list_id, customer["id"]), json={"city": "Lyon"}, headers=shop.headers())
    assert response.json() == {**customer, "city": "Lyon"}


async def test_custom_fields_merge_on_update(client: httpx.AsyncClient, shop: Shop, list_id: str) -> None:
    customer = await new_customer(client, shop, list_id, {"custom_fields": {"a": 1, "b": 2}})
    response = await client.patch(
        path(list_id, customer["id"]), json={"custom_fields": {"a": None, "c": {"d": [1]}}}, headers=shop.headers()
    )
    assert response.json()["custom_fields"] == {"b": 2, "c": {"d": [1]}}


async def test_a_non_e164_phone_is_stored_as_given(client: httpx.AsyncClient, shop: Shop, list_id: str) -> None:
    customer = await new_customer(client, shop, list_id, {"phone": "01 23 45 67 89"})
    assert customer["phone"] == "01 23 45 67 89"


async def test_decimals_read_back_exactly(client: httpx.AsyncClient, shop: Shop, list_id: str) -> None:
    customer = await new_customer(client, shop, list_id, {"latitude": "48", "longitude": -2.2945000})
    assert (customer["latitude"], customer["longitude"]) == ("48.0", "-2.2945")


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"phone": "+3361234"}, "phone", "'+3361234' is not a valid E.164 phone number (e.g. \"+33612345678\")"),
        ({"phone": 33612345678}, "phone", "33612345678 is not a valid phone number"),
        ({"gender": "other"}, "gender", "must be 'male' or 'female'"),
        ({"birth_date": "1990-13-01"}, "birth_date", "'1990-13-01' is not a valid date (expected YYYY-MM-DD)"),
        ({"country": "France"}, "country", "'France' is not an ISO 3166-1 alpha-2 country code (e.g. \"FR\")"),
        ({"latitude": "91"}, "latitude", "must be between -90 and 90"),
        ({"longitude": "-180.5"}, "longitude", "must be between -180 and 180"),
        ({"latitude": "north"}, "latitude", "'north' is not a valid decimal (expected e.g. \"13.5\")"),
        ({"email": "not an email"}, "email", "'not an email' is not a valid email address"),
        ({"email": "a" * 250 + "@x.com"}, "email", "must be at most 255 characters (it has 256)"),
        ({"sms_marketing": "true"}, "sms_marketing", "must be true or false"),
        ({"email_marketing": "yes"}, "email_marketing", "must be true or false"),
        ({"first_name": 12}, "first_name", "must be a string"),
        ({"custom_fields": []}, "custom_fields", "must be a JSON object"),
        (
            {"custom_fields": {"big": "x" * 8200}},
            "custom_fields",
            "must not exceed 8192 bytes as JSON (it is 8210 bytes)",
        ),
        ({"private_ref": "r" * 256}, "private_ref", "must be at most 255 characters (it has 256)"),
    ],
)
async def test_invalid_fields_are_refused_and_nothing_changes(
    client: httpx.AsyncClient, shop: Shop, list_id: str, world: World, body: dict[str, Any], field: str, message: str
) -> None:
    customer = await new_customer(client, shop, list_id, {"first_name": "Ann"})
    before = await world.snapshot()
    for response in (
        await client.post(path(list_id), json=body, headers=shop.headers()),
        await client.patch(path(list_id, customer["id"]), json=body, headers=shop.headers()),
    ):
        assert response.status_code == 422
        assert response.json()["errors"] == [{"field": field, "message": message}]
    assert await world.snapshot() == before


async def test_every_invalid_field_is_named_at_once(
    client: httpx.AsyncClient, shop: Shop, list_id: str, world: World
) -> None:
    before = await world.snapshot()
    response = await client.post(
        path(list_id), json={"phone": "+1", "latitude": "100", "email": "x"}, headers=shop.headers()
    )
    assert response.status_code == 422
    assert sorted(error["field"] for error in response.json()["errors"]) == ["email", "latitude", "phone"]
    assert await world.snapshot() == before


async def test_a_body_that_is_not_an_object_is_400(
    client: httpx.AsyncClient, shop: Shop, list_id: str, world: World
) -> None:
    before = await world.snapshot()
    response = await client.post(path(list_id), json=[1], headers=shop.headers())
    assert response.status_code == 400
    assert response.json() == {"error_type": "bad_request", "message": "The request body must be a JSON object"}
    assert await world.snapshot() == before


async def test_unknown_customer_or_wrong_list_is_404(
    client: httpx.AsyncClient, shop: Shop, list_id: str, world: World
) -> None:
    customer = await new_customer(client, shop, list_id)
    other = await world.customer_list(account=shop.account, name="Everyone")
    token = shop.headers(shop.account_token)
    before = await world.snapshot()
    response = await client.get(path(other.public_id, customer["id"]), headers=token)
    assert response.status_code == 404
    assert response.json() == {"error_type": "not_found", "message": f"No customer with id {customer['id']!r}"}
    patched = await client.patch(path(other.public_id, customer["id"]), json={}, headers=token)
    assert (patched.status_code, patched.json()) == (404, response.json())
    unknown = await client.get(path(list_id, "zzzzzz"), headers=token)
    assert (unknown.status_code, unknown.json()) == (
        404,
        {"error_type": "not_found", "message": "No customer with id 'zzzzzz'"},
    )
    assert await world.snapshot() == before


async def test_a_private_ref_is_unique_in_a_list_for_one_client(
    client: httpx.AsyncClient, shop: Shop, list_id: str, world: World
) -> None:
    first = await new_customer(client, shop, list_id, {"private_ref": "pos-1"})
    second = await new_customer(client, shop, list_id)
    before = await world.snapshot()
    response = await client.post(path(list_id), json={"private_ref": "pos-1"}, headers=shop.headers())
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"field": "private_ref", "message": "'pos-1' is already the private ref of another customer of this list"}
    ]
    response = await client.patch(path(list_id, second["id"]), json={"private_ref": "pos-1"}, headers=shop.headers())
    assert response.status_code == 422
    assert await world.snapshot() == before
    # setting a customer's own ref again is fine
    response = await client.patch(path(list_id, first["id"]), json={"private_ref": "pos-1"}, headers=shop.headers())
    assert response.status_code == 200


async def test_another_client_reads_null_and_may_use_the_same_ref(
    client: httpx.AsyncClient, shop: Shop, list_id: str, world: World
) -> None:
    customer = await new_customer(client, shop, list_id, {"private_ref": "pos-1"})
    bound = await world.customer_list_row(list_id)
    other = await world.token(
        "location[customer_list.write]", location=shop.location, customer_list=bound, client=await world.client("Other")
    )
    read = (await client.get(path(list_id, customer["id"]), headers={"X-Access-Token": other})).json()
    assert read["private_ref"] is None
    response = await client.patch(
        path(list_id, customer["id"]), json={"private_ref": "pos-1"}, headers={"X-Access-Token": other}
    )
    assert response.status_code == 200
    assert response.json()["private_ref"] == "pos-1"
    mine = (await client.get(path(list_id, customer["id"]), headers=shop.headers())).json()
    assert mine["private_ref"] == "pos-1"


async def test_a_private_ref_is_cleared_with_null(client: httpx.AsyncClient, shop: Shop, list_id: str) -> None:
    customer = await new_customer(client, shop, list_id, {"private_ref": "pos-1"})
    response = await client.patch(path(list_id, customer["id"]), json={"private_ref": None}, headers=shop.headers())
    assert response.json()["private_ref"] is None
    assert (await new_customer(client, shop, list_id, {"private_ref": "pos-1"}))["private_ref"] == "pos-1"


async def test_the_same_ref_may_be_used_in_another_list(
    client: httpx.AsyncClient, shop: Shop, list_id: str, world: World
) -> None:
    other = await world.customer_list(account=shop.account, name="Everyone")
    await new_customer(client, shop, list_id, {"private_ref": "pos-1"}, token=shop.account_token)
    customer = await new_customer(client, shop, other.public_id, {"private_ref": "pos-1"}, token=shop.account_token)
    assert customer["private_ref"] == "pos-1"
