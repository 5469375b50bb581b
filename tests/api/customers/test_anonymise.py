"""spec 4.6 and 3.3: anonymisation nulls exactly the fields of item 1, irreversibly; later
writes to them are silently ignored, other fields stay writable; the Orders feature joins
through `comptoir.customers.hooks`."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from comptoir.customers import hooks
from comptoir.customers.schemas import ANONYMISED_FIELDS
from comptoir.orders.service import anonymise_orders, join_customers, order_for_loyalty
from tests.api.conftest import Shop
from tests.api.customers.conftest import new_customer
from tests.api.customers.test_customers import EVERY_FIELD
from tests.factories import World

NULLED = (
    "email", "first_name", "last_name", "gender", "birth_date", "company_name", "phone", "phone_access_code",
    "address_1", "address_2", "postal_code", "latitude", "longitude", "delivery_notes",
)  # fmt: skip


def path(list_id: str, customer_id: str, anonymise: bool = False) -> str:
    return f"/v1/customer_lists/{list_id}/customers/{customer_id}" + ("/anonymise" if anonymise else "")


async def test_the_fields_of_item_1_become_null_and_the_rest_stays(
    client: httpx.AsyncClient, shop: Shop, list_id: str
) -> None:
    assert ANONYMISED_FIELDS == NULLED
    customer = await new_customer(client, shop, list_id, EVERY_FIELD)
    response = await client.post(path(list_id, customer["id"], anonymise=True), headers=shop.headers())
    assert response.status_code == 200
    expected = {**customer, **dict.fromkeys(NULLED), "anonymised": True}
    assert response.json() == expected
    # kept: private_ref, city, state, country, marketing flags, custom fields
    assert (expected["city"], expected["state"], expected["country"]) == ("Paris", "Île-de-France", "FR")
    assert (await client.get(path(list_id, customer["id"]), headers=shop.headers())).json() == expected


async def test_later_writes_to_anonymised_fields_are_ignored_while_others_apply(
    client: httpx.AsyncClient, shop: Shop, list_id: str
) -> None:
    customer = await new_customer(client, shop, list_id, EVERY_FIELD)
    await client.post(path(list_id, customer["id"], anonymise=True), headers=shop.headers())
    body = {
        "email": "back@example.com", "first_name": "Ann", "phone": "+33612345678", "latitude": "1",
        "city": "Lyon", "custom_fields": {"tier": "silver"}, "sms_marketing": False, "private_ref": "new-ref",
    }  # fmt: skip
    response = await client.patch(path(list_id, customer["id"]), json=body, headers=shop.headers())
    assert response.status_code == 200
    updated = response.json()
    assert all(updated[name] is None for name in NULLED)
    assert updated["city"] == "Lyon"
    assert updated["custom_fields"] == {"tier": "silver", "tags": ["a", {"b": 1}]}
    assert updated["sms_marketing"] is False
    assert updated["private_ref"] == "new-ref"


async def test_anonymisation_cannot_be_reverted(client: httpx.AsyncClient, shop: Shop, list_id: str) -> None:
    customer = await new_customer(client, shop, list_id, {"first_name": "Ann"})
    await client.post(path(list_id, customer["id"], anonymise=True), headers=shop.headers())
    response = await client.patch(path(list_id, customer["id"]), json={"anonymised": False}, headers=shop.headers())
    assert response.json()["anonymised"] is True


async def test_an_anonymised_customer_is_not_found_by_its_former_email(
    client: httpx.AsyncClient, shop: Shop, list_id: str
) -> None:
    customer = await new_customer(client, shop, list_id, {"email": "ann@example.com", "phone": "+33612345678"})
    await client.post(path(list_id, customer["id"], anonymise=True), headers=shop.headers())
    for query in ("email=ann*", "phone=%2B336*"):
        response = await client.get(f"/v1/customer_lists/{list_id}/customers?{query}", headers=shop.headers())
        assert response.json() == []


async def test_anonymising_twice_changes_nothing_more(
    client: httpx.AsyncClient, shop: Shop, list_id: str, world: World
) -> None:
    customer = await new_customer(client, shop, list_id, {"first_name": "Ann"})
    first = await client.post(path(list_id, customer["id"], anonymise=True), headers=shop.headers())
    before = await world.snapshot()
    second = await client.post(path(list_id, customer["id"], anonymise=True), headers=shop.headers())
    assert second.json() == first.json()
    assert await world.snapshot() == before


async def test_an_unknown_customer_is_404_and_nothing_changes(
    client: httpx.AsyncClient, shop: Shop, list_id: str, world: World
) -> None:
    before = await world.snapshot()
    response = await client.post(path(list_id, "zzzzzz", anonymise=True), headers=shop.headers())
    assert (response.status_code, response.json()) == (
        404,
        {"error_type": "not_found", "message": "No customer with id 'zzzzzz'"},
    )
    assert await world.snapshot() == before


@pytest.fixture
def seen() -> Iterator[list[tuple[str, bool]]]:
    calls: list[tuple[str, bool]] = []

    async def orders_feature(session: object, ctx: object, customer: object) -> None:
        calls.append((customer.public_id, customer.anonymised))  # type: ignore[attr-defined]

    hooks.join(on_anonymise=(anonymise_orders, orders_feature), order_lookup=order_for_loyalty)
    yield calls
    join_customers()  # as create_app left it


async def test_the_orders_hook_runs_with_the_anonymised_customer(
    client: httpx.AsyncClient, shop: Shop, list_id: str, seen: list[tuple[str, bool]]
) -> None:
    customer = await new_customer(client, shop, list_id, {"first_name": "Ann"})
    await client.post(path(list_id, customer["id"], anonymise=True), headers=shop.headers())
    assert seen == [(customer["id"], True)]
