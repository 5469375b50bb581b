"""Inputs at the edges of what JSON allows, and unexpected errors: always the spec's error
shape (spec 7), never a bare 500; a 500 still carries the API's headers."""

from __future__ import annotations

import httpx
import pytest

from comptoir.auth.tokens import MISSING, REVOKED
from tests.api.conftest import Shop
from tests.factories import World


async def test_an_unexpected_error_is_500_internal_error_with_the_usual_headers(
    client: httpx.AsyncClient, shop: Shop, monkeypatch: pytest.MonkeyPatch
) -> None:
    from comptoir.locations import endpoints

    def explode(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(endpoints.service, "render_location", explode)
    response = await client.get("/v1/location", headers=shop.headers() | {"Origin": "https://x.example"})
    assert response.status_code == 500
    assert response.json() == {"error_type": "internal_error", "message": "Internal error"}
    assert len(response.headers["X-Request-Id"]) == 16
    assert response.headers["Access-Control-Allow-Origin"] == "*"


async def test_integers_beyond_64_bits_in_custom_fields_keep_their_exact_text(
    client: httpx.AsyncClient, shop: Shop
) -> None:
    content = b'{"custom_fields": {"big": 123456789012345678901234567890, "neg": -98765432109876543210}}'
    response = await client.patch(
        "/v1/location", content=content, headers=shop.headers() | {"Content-Type": "application/json"}
    )
    assert response.status_code == 200
    assert b'"big":123456789012345678901234567890' in response.content
    assert b'"neg":-98765432109876543210' in response.content
    again = await client.get("/v1/location", headers=shop.headers())
    assert b'"big":123456789012345678901234567890' in again.content


async def test_surrogate_pairs_are_text_but_a_lone_surrogate_is_malformed(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    headers = shop.headers() | {"Content-Type": "application/json"}
    ok = await client.patch("/v1/location", content=b'{"custom_fields": {"smile": "\\ud83d\\ude00"}}', headers=headers)
    assert ok.status_code == 200
    assert ok.json()["custom_fields"] == {"smile": "\U0001f600"}
    before = await world.snapshot()
    for content in (b'{"custom_fields": {"k": "\\ud800"}}', b'{"custom_fields": {"\\udc00": 1}}'):
        response = await client.patch("/v1/location", content=content, headers=headers)
        assert response.status_code == 400
        assert response.json() == {
            "error_type": "bad_request",
            "message": "Malformed JSON body: a string holds a lone UTF-16 surrogate",
        }
    assert await world.snapshot() == before


async def test_custom_fields_nested_too_deep_are_422(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    headers = shop.headers() | {"Content-Type": "application/json"}
    fine = b'{"custom_fields": {"k": ' + b"[" * 63 + b"]" * 63 + b"}}"
    assert (await client.patch("/v1/location", content=fine, headers=headers)).status_code == 200
    before = await world.snapshot()
    deep = b'{"custom_fields": {"k": ' + b"[" * 300 + b"]" * 300 + b"}}"
    response = await client.patch("/v1/location", content=deep, headers=headers)
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"field": "custom_fields", "message": "must not nest objects and arrays more than 64 levels deep"}
    ]
    assert await world.snapshot() == before


async def test_a_body_nested_beyond_the_parser_is_400(client: httpx.AsyncClient, shop: Shop) -> None:
    content = b"[" * 100_000 + b"]" * 100_000
    response = await client.patch(
        "/v1/location", content=content, headers=shop.headers() | {"Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json() == {"error_type": "bad_request", "message": "Malformed JSON body: nested too deeply"}


async def test_a_bad_token_is_401_before_any_body_error(client: httpx.AsyncClient, shop: Shop) -> None:
    cases = [
        ({"Content-Type": "text/plain"}, b"hello"),
        ({"Content-Type": "application/json"}, b"{broken"),
        ({"Content-Type": "application/json"}, b"[" * 100_000),
    ]
    for headers, content in cases:
        for token in ({}, {"X-Access-Token": "nope"}):
            response = await client.patch("/v1/location", content=content, headers=headers | token)
            message = REVOKED if token else MISSING
            assert (response.status_code, response.json()) == (
                401,
                {"error_type": "unauthorized", "message": message},
            ), (headers, content[:10], token)


async def test_a_body_error_comes_after_the_scope_check(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    read_only = await world.token("location[orders.read]", location=shop.location)
    response = await client.patch(
        "/v1/location", content=b"x", headers={"X-Access-Token": read_only, "Content-Type": "text/plain"}
    )
    assert (response.status_code, response.json()) == (
        403,
        {
            "error_type": "forbidden",
            "message": "The connection's scope (location[orders.read]) does not allow this request: "
            "it needs a write permission",
        },
    )


@pytest.mark.parametrize("count", ["²", "١٢", "1e2", " 5"])
async def test_count_must_be_ascii_digits(client: httpx.AsyncClient, shop: Shop, count: str) -> None:
    response = await client.get("/v1/locations", params={"count": count}, headers=shop.headers(shop.account_token))
    assert response.status_code == 400
    assert response.json()["error_type"] == "bad_request"


@pytest.mark.parametrize("value", [2**40, 2**63 + 5, -(2**40)])
async def test_a_cursor_value_out_of_the_columns_range_is_400(
    client: httpx.AsyncClient, shop: Shop, value: int
) -> None:
    import base64

    cursor = base64.urlsafe_b64encode(f'["1",{value}]'.encode()).decode().rstrip("=")
    response = await client.get("/v1/locations", params={"cursor": cursor}, headers=shop.headers(shop.account_token))
    assert response.status_code == 400
    assert response.json() == {
        "error_type": "bad_request",
        "message": "cursor is not a value this API gave in X-Cursor-Next",
    }


async def test_method_override_may_name_get(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.post("/v1/location", headers=shop.headers() | {"X-Http-Method-Override": "GET"})
    assert response.status_code == 200
    assert response.json()["id"] == shop.location.public_id
    assert "ETag" in response.headers
