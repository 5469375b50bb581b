"""spec 2.5 rule 6 and 2.6: an order's `customer` is the full Customer read shape, read-only
fields included, as it stood when the customer was attached (before the order counts for
it); a guest's has the given fields and null or empty for the rest. The same on every
creation path (one statement for a location token on PostgreSQL, a session otherwise) and
every read (the answer, GET, lists, events)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from comptoir.customers.schemas import Customer as CustomerRead
from comptoir.kit import clock
from tests.api.callbacks.conftest import subscribe
from tests.api.conftest import Shop
from tests.api.customers.conftest import lists_of
from tests.api.test_openapi import check
from tests.factories import World

CUSTOMER_KEYS = set(CustomerRead.model_fields)
ANN = {
    "private_ref": "crm-ann",
    "email": "ann@example.com",
    "first_name": "Ann",
    "last_name": "Smith",
    "gender": "female",
    "birth_date": "1990-05-17",
    "company_name": "Smith & Co",
    "phone": "+33612345678",
    "phone_access_code": "123",
    "address_1": "1 rue de la Paix",
    "address_2": "2nd floor",
    "postal_code": "75002",
    "city": "Paris",
    "state": "IDF",
    "country": "FR",
    "latitude": "48.8686",
    "longitude": "2.3314",
    "delivery_notes": "Code 1234",
    "sms_marketing": True,
    "email_marketing": False,
    "custom_fields": {"tier": "gold", "since": 2019},
}
SOUP = {"product_name": "Soup", "price": "8.00 EUR", "quantity": 1}


class Level:
    """The orders endpoints and the token of one connection level."""

    def __init__(self, shop: Shop, level: str) -> None:
        self.name = level
        if level == "location":
            self.path, self.openapi_path = "/v1/location/orders", "/v1/location/orders"
            self.token = shop.location_token
        else:
            self.path = f"/v1/locations/{shop.location.public_id}/orders"
            self.openapi_path = "/v1/locations/{location_id}/orders"
            self.token = shop.account_token

    @property
    def headers(self) -> dict[str, str]:
        return {"X-Access-Token": self.token}


@pytest.fixture(params=["location", "account"])
def level(request: pytest.FixtureRequest, shop: Shop) -> Level:
    return Level(shop, request.param)


@pytest.fixture
async def document(client: httpx.AsyncClient) -> dict[str, Any]:
    return (await client.get("/v1/openapi.json")).json()


async def _customer_list(client: httpx.AsyncClient, shop: Shop, kind: str) -> str:
    """The shop's location-level list, or a new account-level one."""
    if kind == "location":
        return await lists_of(client, shop)
    response = await client.post(
        f"/v1/accounts/{shop.account.public_id}/customer_lists",
        json={"name": "Everywhere"},
        headers={"X-Access-Token": shop.account_token},
    )
    assert response.status_code == 200, response.text
    return response.json()["id"]


async def _ann(client: httpx.AsyncClient, shop: Shop, level: Level, list_id: str) -> dict[str, Any]:
    """A customer with every field, a loyalty card and a first order (counters not zero)."""
    response = await client.post(f"/v1/customer_lists/{list_id}/customers", json=ANN, headers=level.headers)
    assert response.status_code == 200, response.text
    ann = response.json()
    card = await client.post(
        f"/v1/customer_lists/{list_id}/loyalty_cards",
        json={"customer_id": ann["id"], "ref": "P", "name": "Points"},
        headers=level.headers,
    )
    assert card.status_code == 200, card.text
    first = await client.post(
        level.path, json={"status": "new", "customer_id": ann["id"], "items": [SOUP]}, headers=level.headers
    )
    assert first.status_code == 200, first.text
    return ann


async def _get_customer(client: httpx.AsyncClient, level: Level, ann: dict[str, Any]) -> dict[str, Any]:
    url = f"/v1/customer_lists/{ann['customer_list_id']}/customers/{ann['id']}"
    response = await client.get(url, headers=level.headers)
    assert response.status_code == 200, response.text
    return response.json()


async def test_an_attached_customers_snapshot_is_its_read_shape_when_attached(
    client: httpx.AsyncClient, shop: Shop, world: World, level: Level, document: dict[str, Any]
) -> None:
    await _attached_snapshot_is_read_shape(client, shop, world, level, "location", document)


async def test_a_customer_of_an_account_level_list_is_snapshotted_as_that_list_reads_it(
    client: httpx.AsyncClient, shop: Shop, world: World, document: dict[str, Any]
) -> None:
    await _attached_snapshot_is_read_shape(client, shop, world, Level(shop, "account"), "account", document)


async def _attached_snapshot_is_read_shape(
    client: httpx.AsyncClient, shop: Shop, world: World, level: Level, list_kind: str, document: dict[str, Any]
) -> None:
    clock.freeze(datetime(2026, 6, 24, 10, 0, tzinfo=UTC))
    listener = await world.token("account[orders.read]", account=shop.account, client=await world.client("Listener"))
    await subscribe(client, listener, {"order": ["create"]})
    ann = await _ann(client, shop, level, await _customer_list(client, shop, list_kind))
    clock.travel(timedelta(days=1))
    at_attach = await _get_customer(client, level, ann)
    assert (at_attach["nb_orders"], at_attach["order_total"]) == (1, "8.00 EUR")

    body = {"status": "new", "customer_id": ann["id"], "items": [SOUP, SOUP]}
    response = await client.post(level.path, json=body, headers=level.headers)
    assert response.status_code == 200, response.text
    check(document, level.openapi_path, "post", response)
    placed = response.json()
    assert set(placed["customer"]) == CUSTOMER_KEYS
    assert placed["customer"] == at_attach
    # the order then counts for the customer; its snapshot keeps the counters as they were
    now = await _get_customer(client, level, ann)
    assert (now["nb_orders"], now["order_total"]) == (2, "24.00 EUR")
    read = await client.get(f"{level.path}/{placed['id']}", headers=level.headers)
    check(document, level.openapi_path + "/{order_id}", "get", read)
    assert read.json()["customer"] == at_attach
    listed = await client.get(level.path, headers=level.headers)
    check(document, level.openapi_path, "get", listed)
    assert [o["customer"] for o in listed.json() if o["id"] == placed["id"]] == [at_attach]
    headers = {"X-Access-Token": listener}
    events = (await client.get("/v1/callback/events", headers=headers)).json()
    state = (await client.get(f"/v1/callback/events/{events[-1]['id']}", headers=headers)).json()["new_state"]
    assert state["customer"] == {**at_attach, "private_ref": None}  # nobody's private refs in events


async def test_attaching_by_private_ref_gives_the_same_snapshot(
    client: httpx.AsyncClient, shop: Shop, level: Level
) -> None:
    list_id = await lists_of(client, shop)
    ann = await _ann(client, shop, level, list_id)
    at_attach = await _get_customer(client, level, ann)
    if level.name == "account":  # the private ref is the location token's client's own
        await client.patch(
            f"/v1/customer_lists/{list_id}/customers/{ann['id']}",
            json={"private_ref": "acc-ann"},
            headers=level.headers,
        )
        at_attach = await _get_customer(client, level, ann)
    body = {"status": "new", "customer_list_id": list_id, "customer_private_ref": at_attach["private_ref"]}
    response = await client.post(level.path, json=body, headers=level.headers)
    assert response.status_code == 200, response.text
    assert response.json()["customer"] == at_attach


async def test_the_snapshot_shows_loyalty_cards_before_the_orders_own_operations(
    client: httpx.AsyncClient, shop: Shop, level: Level
) -> None:
    ann = await _ann(client, shop, level, await lists_of(client, shop))
    at_attach = await _get_customer(client, level, ann)
    body = {"status": "new", "customer_id": ann["id"], "loyalty_operations": [{"ref": "P", "delta": "10"}]}
    response = await client.post(level.path, json=body, headers=level.headers)
    assert response.status_code == 200, response.text
    assert response.json()["customer"] == at_attach
    assert [c["balance"] for c in at_attach["loyalty_cards"]] == ["0.0"]
    assert [c["balance"] for c in (await _get_customer(client, level, ann))["loyalty_cards"]] == ["10.0"]


async def test_a_guest_customers_snapshot_has_every_key_null_or_empty_but_the_given_ones(
    client: httpx.AsyncClient, shop: Shop, world: World, level: Level, document: dict[str, Any]
) -> None:
    listener = await world.token("account[orders.read]", account=shop.account, client=await world.client("Listener"))
    await subscribe(client, listener, {"order": ["create"]})
    guest = {"first_name": "Bob", "phone": "+33612345678", "email_marketing": True, "custom_fields": {"table": 4}}
    response = await client.post(level.path, json={"status": "new", "customer": guest}, headers=level.headers)
    assert response.status_code == 200, response.text
    check(document, level.openapi_path, "post", response)
    expected = {
        "id": None, "customer_list_id": None, "private_ref": None,
        "email": None, "first_name": "Bob", "last_name": None, "gender": None, "birth_date": None,
        "company_name": None, "phone": "+33612345678", "phone_access_code": None, "address_1": None,
        "address_2": None, "postal_code": None, "city": None, "state": None, "country": None, "latitude": None,
        "longitude": None, "delivery_notes": None, "sms_marketing": False, "email_marketing": True,
        "custom_fields": {"table": 4}, "anonymised": None, "created_at": None, "nb_orders": None,
        "order_total": None, "first_order_date": None, "last_order_date": None, "loyalty_cards": [],
    }  # fmt: skip
    assert set(expected) == CUSTOMER_KEYS
    placed = response.json()
    assert placed["customer"] == expected
    read = await client.get(f"{level.path}/{placed['id']}", headers=level.headers)
    check(document, level.openapi_path + "/{order_id}", "get", read)
    assert read.json()["customer"] == expected
    headers = {"X-Access-Token": listener}
    [event] = (await client.get("/v1/callback/events", headers=headers)).json()
    state = (await client.get(f"/v1/callback/events/{event['id']}", headers=headers)).json()["new_state"]
    assert state["customer"] == expected


async def test_a_guest_with_oversized_custom_fields_is_refused_and_nothing_changes(
    client: httpx.AsyncClient, shop: Shop, world: World, level: Level
) -> None:
    before = await world.snapshot()
    guest = {"first_name": "Bob", "custom_fields": {"x": "y" * 9000}}
    response = await client.post(level.path, json={"status": "new", "customer": guest}, headers=level.headers)
    assert response.status_code == 422, response.text
    assert response.json()["errors"] == [
        {"field": "customer.custom_fields", "message": "must not exceed 8192 bytes as JSON (it is 9008 bytes)"}
    ]
    assert await world.snapshot() == before


async def test_anonymising_the_customer_marks_its_orders_snapshot_anonymised(
    client: httpx.AsyncClient, shop: Shop, level: Level
) -> None:
    ann = await _ann(client, shop, level, await lists_of(client, shop))
    at_attach = await _get_customer(client, level, ann)
    response = await client.post(level.path, json={"status": "new", "customer_id": ann["id"]}, headers=level.headers)
    placed = response.json()
    url = f"/v1/customer_lists/{ann['customer_list_id']}/customers/{ann['id']}/anonymise"
    assert (await client.post(url, headers=level.headers)).status_code == 200
    after = (await client.get(f"{level.path}/{placed['id']}", headers=level.headers)).json()["customer"]
    personal = {
        "email", "first_name", "last_name", "gender", "birth_date", "company_name", "phone", "phone_access_code",
        "address_1", "address_2", "postal_code", "latitude", "longitude", "delivery_notes",
    }  # fmt: skip
    assert after == {**at_attach, **dict.fromkeys(personal), "anonymised": True}
