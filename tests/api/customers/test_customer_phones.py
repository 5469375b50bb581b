"""Phones of customers (spec 2.1, 9.3): a value starting with `+` must have E.164 syntax (a
country code, at most 15 digits; spaces, dots and dashes dropped) and a length possible for
its country, whether or not the range is allocated; it is stored without separators, and
the `phone` filter reads a `+` pattern the same way. Other formats are stored as given."""

from __future__ import annotations

import httpx
import pytest

from tests.api.conftest import Shop
from tests.api.customers.conftest import new_customer
from tests.factories import World


def path(list_id: str, customer_id: str | None = None) -> str:
    base = f"/v1/customer_lists/{list_id}/customers"
    return f"{base}/{customer_id}" if customer_id else base


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("+447700900123", "+447700900123"),  # a reserved fiction range (Ofcom), never allocated
        ("+44123456789", "+44123456789"),  # the API documentation's example
        ("+33612345678", "+33612345678"),
        ("+44 7700 900-123", "+447700900123"),  # spaces and dashes are dropped
        ("+44.123456789", "+44123456789"),  # so are dots
        ("+1 202-555-0123", "+12025550123"),
        ("+800 1234 5678", "+80012345678"),  # a non-geographic country code
    ],
)
async def test_a_possible_e164_phone_is_accepted_and_stored_without_separators(
    client: httpx.AsyncClient, shop: Shop, list_id: str, given: str, stored: str
) -> None:
    customer = await new_customer(client, shop, list_id, {"phone": given})
    assert customer["phone"] == stored
    read = await client.get(path(list_id, customer["id"]), headers=shop.headers())
    assert read.json()["phone"] == stored


async def test_an_update_stores_the_phone_without_separators(
    client: httpx.AsyncClient, shop: Shop, list_id: str
) -> None:
    customer = await new_customer(client, shop, list_id, {"phone": "+33612345678"})
    response = await client.patch(
        path(list_id, customer["id"]), json={"phone": "+44 7700 900 123"}, headers=shop.headers()
    )
    assert response.status_code == 200, response.text
    assert response.json()["phone"] == "+447700900123"


@pytest.mark.parametrize(
    "phone",
    [
        "+1234",  # too short for country code 1
        "+12345678901234567",  # more than 15 digits
        "+99912345678",  # no country has code 999
        "+0033612345678",  # a country code never starts with 0
        "+4412345",  # a UK number without its area code
        "+33 (0)6 12 34 56 78",  # parentheses are not dropped
        "+",
    ],
)
async def test_an_impossible_e164_phone_is_refused_with_422_naming_phone_and_nothing_changes(
    client: httpx.AsyncClient, shop: Shop, list_id: str, world: World, phone: str
) -> None:
    customer = await new_customer(client, shop, list_id, {"phone": "+33612345678"})
    before = await world.snapshot()
    message = f"'{phone}' is not a valid E.164 phone number (e.g. \"+33612345678\")"
    for response in (
        await client.post(path(list_id), json={"phone": phone}, headers=shop.headers()),
        await client.patch(path(list_id, customer["id"]), json={"phone": phone}, headers=shop.headers()),
    ):
        assert response.status_code == 422
        assert response.json()["errors"] == [{"field": "phone", "message": message}]
    assert await world.snapshot() == before


async def test_a_phone_without_plus_is_stored_as_given(client: httpx.AsyncClient, shop: Shop, list_id: str) -> None:
    customer = await new_customer(client, shop, list_id, {"phone": "07700 900-123"})
    assert customer["phone"] == "07700 900-123"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("phone=%2B447700900123", [0]),
        ("phone=%2B44%207700%20900-123", [0]),  # the filter drops separators as the store did
        ("phone=%2B44.7700*", [0]),
        ("phone=%2B44%207700*", [0]),
        ("phone=%2B44*", [1, 0]),  # a prefix: index-backed, by value
        ("phone=07700%20900-123", [2]),  # a deprecated format is matched as stored
        ("phone=07700900123", []),
    ],
)
async def test_the_phone_filter_finds_customers_as_their_phones_are_stored(
    client: httpx.AsyncClient, shop: Shop, list_id: str, query: str, expected: list[int]
) -> None:
    made = [
        await new_customer(client, shop, list_id, {"phone": phone})
        for phone in ("+44 7700 900-123", "+44.123456789", "07700 900-123")
    ]
    response = await client.get(f"{path(list_id)}?{query}", headers=shop.headers())
    assert response.status_code == 200, response.text
    assert [made.index(c) for c in response.json()] == expected
