"""spec 4.5: customer list filters `private_ref`, `email`, `phone` with `*` wildcards; a `+`
in a query (URL-encoded or not) is a plus sign, never a space
(docs/api/customers.md "Filters")."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from comptoir.kit import clock
from tests.api.conftest import Shop
from tests.api.customers.conftest import new_customer

PEOPLE = [
    {"email": "john.smith@example.com", "phone": "+447911123456", "private_ref": "a"},
    {"email": "Johnny@Example.org", "phone": "+447700123456"},
    {"email": "mary.john@example.com", "phone": "+33612345678", "private_ref": "b"},
    {"email": "joh_n@example.com", "phone": "020 7946 0018"},
    {"email": "jo%hn@example.com", "phone": "+442071234567"},
    {},
]


@pytest.fixture
async def people(client: httpx.AsyncClient, shop: Shop, list_id: str) -> list[str]:
    return [(await new_customer(client, shop, list_id, body))["id"] for body in PEOPLE]


async def found(client: httpx.AsyncClient, shop: Shop, list_id: str, query: str) -> list[int]:
    response = await client.get(f"/v1/customer_lists/{list_id}/customers?{query}", headers=shop.headers())
    assert response.status_code == 200, response.text
    return [PEOPLE_IDS[item["id"]] for item in response.json()]


PEOPLE_IDS: dict[str, int] = {}


@pytest.fixture(autouse=True)
def _index(people: list[str]) -> None:
    PEOPLE_IDS.clear()
    PEOPLE_IDS.update({public_id: i for i, public_id in enumerate(people)})


async def test_without_filters_every_customer_is_listed_oldest_first(
    client: httpx.AsyncClient, shop: Shop, list_id: str
) -> None:
    assert await found(client, shop, list_id, "") == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("email=john.smith@example.com", [0]),
        ("email=JOHN.SMITH@EXAMPLE.COM", [0]),  # case-insensitive
        ("email=john*", [0, 1]),
        ("email=JOHN*", [0, 1]),
        ("email=*john*", [0, 1, 2]),
        ("email=*@example.com", [0, 2, 3, 4]),
        ("email=j*n@*", [3, 4]),
        ("email=joh_*", [3]),  # _ and % are literal characters, not wildcards
        ("email=jo%25*", [4]),
        ("email=*", [0, 1, 2, 3, 4]),  # every customer with an email
        ("email=nobody*", []),
    ],
)
async def test_email_filter(
    client: httpx.AsyncClient, shop: Shop, list_id: str, query: str, expected: list[int]
) -> None:
    assert await found(client, shop, list_id, query) == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("phone=%2B447911123456", [0]),
        ("phone=%2B4477*", [1]),
        ("phone=+4477*", [1]),  # a literal + is a plus sign
        ("phone=+44*", [4, 1, 0]),  # a prefix lists by value
        ("phone=020+7946*", []),  # ... so it never matches a space
        ("phone=020%207946*", [3]),
        ("phone=*123456", [0, 1]),
        ("phone=4477*", []),
    ],
)
async def test_phone_filter(
    client: httpx.AsyncClient, shop: Shop, list_id: str, query: str, expected: list[int]
) -> None:
    assert await found(client, shop, list_id, query) == expected


async def test_private_ref_filter_matches_the_readers_own_refs(
    client: httpx.AsyncClient, shop: Shop, list_id: str
) -> None:
    assert await found(client, shop, list_id, "private_ref=b") == [2]
    assert await found(client, shop, list_id, "private_ref=c") == []


async def test_filters_combine(client: httpx.AsyncClient, shop: Shop, list_id: str) -> None:
    assert await found(client, shop, list_id, "email=*john*&phone=%2B44*") == [1, 0]  # by phone
    assert await found(client, shop, list_id, "email=*john*&private_ref=a") == [0]


async def test_filtered_lists_are_paginated(client: httpx.AsyncClient, shop: Shop, list_id: str) -> None:
    url = f"/v1/customer_lists/{list_id}/customers"
    first = await client.get(url, params={"email": "*example.com", "count": 2}, headers=shop.headers())
    assert [PEOPLE_IDS[item["id"]] for item in first.json()] == [0, 2]
    second = await client.get(
        url,
        params={"email": "*example.com", "count": 2, "cursor": first.headers["X-Cursor-Next"]},
        headers=shop.headers(),
    )
    assert [PEOPLE_IDS[item["id"]] for item in second.json()] == [3, 4]
    assert "X-Cursor-Next" not in second.headers


async def test_a_prefix_filter_lists_by_value_then_oldest_first_page_by_page(
    client: httpx.AsyncClient, shop: Shop, list_id: str
) -> None:
    # byte order of the lowercased emails: "jo%hn" < "joh_n" < "john.smith" < "johnny"
    url = f"/v1/customer_lists/{list_id}/customers"
    first = await client.get(url, params={"email": "jo*", "count": 2}, headers=shop.headers())
    assert [PEOPLE_IDS[item["id"]] for item in first.json()] == [4, 3]
    cursor = first.headers["X-Cursor-Next"]
    second = await client.get(url, params={"email": "jo*", "count": 2, "cursor": cursor}, headers=shop.headers())
    assert [PEOPLE_IDS[item["id"]] for item in second.json()] == [0, 1]
    assert "X-Cursor-Next" not in second.headers
    # a cursor belongs to its list's order
    response = await client.get(url, params={"cursor": cursor}, headers=shop.headers())
    assert response.status_code == 400
    assert response.json() == {
        "error_type": "bad_request",
        "message": "cursor is not a value this API gave in X-Cursor-Next",
    }


@pytest.mark.parametrize("query", ["email=", "phone=", "private_ref=", "email=" + "x" * 256])
async def test_an_empty_or_overlong_filter_is_400(
    client: httpx.AsyncClient, shop: Shop, list_id: str, query: str
) -> None:
    response = await client.get(f"/v1/customer_lists/{list_id}/customers?{query}", headers=shop.headers())
    assert response.status_code == 400
    assert response.json()["error_type"] == "bad_request"


async def test_listing_customers_is_a_heavy_query(client: httpx.AsyncClient, shop: Shop, list_id: str) -> None:
    # docs/api/conventions.md "Rate limits": 10 per minute, shared with the other heavy queries
    clock.freeze(datetime(2026, 3, 2, 10, 0, 5, tzinfo=UTC))  # one rate-limit minute for all
    url = f"/v1/customer_lists/{list_id}/customers"
    statuses = [(await client.get(url, headers=shop.headers())).status_code for _ in range(11)]
    assert statuses == [200] * 10 + [429]
