"""Abuse of what the document now states and of HEAD: a HEAD on a write route changes
nothing, oversized or odd values on patterned fields are refused quickly with the values as
sent (never a Python representation), and an id too long for a key is a 404, not a 500."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.api import conftest as api
from tests.api.conftest import Shop
from tests.waiting import QUICKLY

app, client, shop, world = api.app, api.client, api.shop, api.world  # the API's fixtures, here too


async def test_head_on_a_write_route_is_its_gets_refusal_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop
) -> None:
    before = (await client.get("/v1/location/orders", headers=shop.headers())).json()
    path = "/v1/location/orders/x/delivery_quotes/y/accept"  # POST only: a GET is the API's 404
    got = await client.get(path, headers=shop.headers())
    head = await client.head(path, headers=shop.headers())
    assert (head.status_code, head.headers["content-length"], head.content) == (
        404,
        got.headers["content-length"],
        b"",
    )
    head = await client.request("HEAD", "/v1/location/customer_lists", headers=shop.headers(), json={"name": "Z"})
    assert head.status_code == 200  # a HEAD is its GET: the list, not a creation, and no body
    assert head.content == b""
    assert (await client.get("/v1/location/orders", headers=shop.headers())).json() == before
    lists = (await client.get("/v1/location/customer_lists", headers=shop.headers())).json()
    assert "Z" not in [item["name"] for item in lists]


async def test_head_without_a_token_is_the_401_of_its_get_without_a_body(client: httpx.AsyncClient) -> None:
    got = await client.get("/v1/location")
    head = await client.head("/v1/location")
    assert (head.status_code, head.headers["content-length"], head.content) == (
        401,
        got.headers["content-length"],
        b"",
    )


@pytest.mark.parametrize(
    ("name", "value", "status"),
    [
        ("after", "2026-06-24T17:07:53Z" * 2000, 400),
        ("before", "9" * 50_000, 400),
        ("status", "x" * 50_000, 400),
        ("customer_id", "2" * 50_000, 200),  # names no customer: no order
    ],
)
async def test_an_oversized_patterned_filter_is_answered_quickly(
    client: httpx.AsyncClient, shop: Shop, name: str, value: str, status: int
) -> None:
    started = time.monotonic()
    response = await client.get("/v1/location/orders", params={name: value}, headers=shop.headers())
    assert time.monotonic() - started < QUICKLY
    assert response.status_code == status
    assert len(response.text) < 1000  # a refused value is quoted cut short


async def test_an_id_longer_than_any_key_names_nothing(client: httpx.AsyncClient, shop: Shop) -> None:
    # 13 characters spell 65 bits: more than any 64-bit key (was a server error)
    response = await client.get("/v1/location/orders", params={"customer_id": "zzzzzzzzzzzzz"}, headers=shop.headers())
    assert response.status_code == 200
    assert response.json() == []
    order = await client.get("/v1/location/orders/zzzzzzzzzzzzz", headers=shop.headers())
    assert (order.status_code, order.json()) == (
        404,
        {"error_type": "not_found", "message": "No order with id 'zzzzzzzzzzzzz'"},
    )


@pytest.mark.parametrize(
    ("path", "body", "field", "message"),
    [
        ("/v1/catalogs/{catalog}/location/inventory", b"[1.5]", "[0]", "must be an object, not 1.5"),
        (
            "/v1/catalogs/{catalog}/location/inventory",
            b'{"a": 1}',
            "inventory",
            "must be an array of entries, not an object",
        ),
        (
            "/v1/catalogs/{catalog}/location/inventory",
            b'[{"sku_ref": 10.50}]',
            "[0].sku_ref",
            "must be a string, not 10.50",
        ),
    ],
)
async def test_a_refused_number_reads_as_sent_never_as_a_python_repr(
    client: httpx.AsyncClient, shop: Shop, path: str, body: bytes, field: str, message: str
) -> None:
    catalog = (await client.get("/v1/location/catalogs", headers=shop.headers())).json()[0]["id"]
    headers = {**shop.headers(), "Content-Type": "application/json"}
    response = await client.put(path.format(catalog=catalog), content=body, headers=headers)
    assert response.status_code == 422
    assert {"field": field, "message": message} in response.json()["errors"]
    assert "Decimal(" not in response.text


async def test_a_refused_query_value_reads_as_sent(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.get("/v1/location/orders", params={"count": "é'1"}, headers=shop.headers())
    assert response.status_code == 400
    assert response.json()["message"] == "count must be a positive integer, not 'é'1'"
    catalog = (await client.get("/v1/location/catalogs", headers=shop.headers())).json()[0]["id"]
    response = await client.get(f"/v1/catalogs/{catalog}", params={"hide_data": "oui"}, headers=shop.headers())
    assert response.json()["message"] == "hide_data must be true or false, not 'oui'"


async def test_a_nul_in_a_key_the_catalog_ignores_is_a_422_not_a_500(client: httpx.AsyncClient, shop: Shop) -> None:
    body = b'{"name": "Lunch", "data": {"categories": [{"ref": "mains", "name": "Mains"}]}, "a\\u0000b": ""}'
    headers = {**shop.headers(shop.account_token), "Content-Type": "application/json"}
    response = await client.post("/v1/account/catalogs", content=body, headers=headers)
    assert response.status_code == 422
    assert response.json()["errors"] == [{"field": "body", "message": "a key must not contain a NUL character"}]
    lists = (await client.get("/v1/account/catalogs", headers=shop.headers(shop.account_token))).json()
    assert "Lunch" not in [catalog["name"] for catalog in lists]
