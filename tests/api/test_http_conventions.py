"""HTTP conventions of the API: spec 4 (method override), 5.4 item 3 (CORS), 7 (errors),
docs/api/conventions.md "Errors" and "Methods"."""

from __future__ import annotations

import httpx
import pytest

from tests.api.conftest import Shop
from tests.factories import World


async def test_non_json_body_is_415_and_changes_nothing(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    before = await world.snapshot()
    for content_type in ("application/x-www-form-urlencoded", "text/plain", None):
        headers = shop.headers() | ({"Content-Type": content_type} if content_type else {})
        response = await client.patch("/v1/location", content=b'{"preparation_time": 3}', headers=headers)
        assert response.status_code == 415, content_type
        assert response.json() == {
            "error_type": "unsupported_media_type",
            "message": "Request bodies must be JSON (Content-Type: application/json)",
        }
    assert await world.snapshot() == before


async def test_json_with_charset_is_accepted(client: httpx.AsyncClient, shop: Shop) -> None:
    headers = shop.headers() | {"Content-Type": "application/json; charset=utf-8"}
    response = await client.patch("/v1/location", content=b'{"preparation_time": 3}', headers=headers)
    assert (response.status_code, response.json()["preparation_time"]) == (200, 3)


@pytest.mark.parametrize("content", [b'{"preparation_time": ', b"{'a': 1}", b'{"a": NaN}', b"\xff\xfe"])
async def test_malformed_json_is_400(client: httpx.AsyncClient, shop: Shop, content: bytes) -> None:
    headers = shop.headers() | {"Content-Type": "application/json"}
    response = await client.patch("/v1/location", content=content, headers=headers)
    assert response.status_code == 400
    assert response.json()["error_type"] == "bad_request"
    assert response.json()["message"].startswith("Malformed JSON body")


@pytest.mark.parametrize("content", [b"[]", b'"text"', b"12"])
async def test_a_body_that_is_not_an_object_is_400(client: httpx.AsyncClient, shop: Shop, content: bytes) -> None:
    headers = shop.headers() | {"Content-Type": "application/json"}
    response = await client.patch("/v1/location", content=content, headers=headers)
    assert response.status_code == 400
    assert response.json() == {"error_type": "bad_request", "message": "The request body must be a JSON object"}


async def test_a_missing_body_is_400(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.patch("/v1/location", headers=shop.headers())
    assert response.status_code == 400
    assert response.json() == {"error_type": "bad_request", "message": "The request body must be a JSON object"}


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/v1/nothing"), ("GET", "/oauth2/v1/nothing"), ("DELETE", "/v1/location"), ("POST", "/v1/accounts")],
)
async def test_unknown_urls_and_methods_are_404_routing_error(
    client: httpx.AsyncClient, shop: Shop, method: str, path: str
) -> None:
    response = await client.request(method, path, headers=shop.headers())
    assert response.status_code == 404
    assert response.json() == {"error_type": "routing_error", "message": f"No route matches [{method}] {path}"}


async def test_an_unknown_back_office_url_is_an_html_page(client: httpx.AsyncClient) -> None:
    """docs/back-office.md "Layout, navigation and words": outside the API's paths."""
    response = await client.get("/nothing")
    assert (response.status_code, response.headers["content-type"]) == (404, "text/html; charset=utf-8")


async def test_method_override_on_post_runs_the_named_method(client: httpx.AsyncClient, shop: Shop) -> None:
    for method in ("PATCH", "PUT", "patch"):
        headers = shop.headers() | {"X-Http-Method-Override": method}
        response = await client.post("/v1/location", json={"preparation_time": 33}, headers=headers)
        assert response.status_code == 200, method
        assert response.json()["preparation_time"] == 33


async def test_method_override_on_get_is_400(client: httpx.AsyncClient, shop: Shop) -> None:
    headers = shop.headers() | {"X-Http-Method-Override": "PATCH"}
    response = await client.get("/v1/location", headers=headers)
    assert response.status_code == 400
    assert response.json() == {"error_type": "bad_request", "message": "X-Http-Method-Override is not accepted on GET"}
    assert response.headers["X-Request-Id"]


async def test_method_override_to_an_unknown_method_is_400(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    before = await world.snapshot()
    headers = shop.headers() | {"X-Http-Method-Override": "TRACE"}
    response = await client.post("/v1/location", json={"preparation_time": 1}, headers=headers)
    assert response.status_code == 400
    assert response.json() == {"error_type": "bad_request", "message": "X-Http-Method-Override cannot be 'TRACE'"}
    assert await world.snapshot() == before


async def test_api_answers_any_origin_and_exposes_the_cursor(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.get("/v1/location", headers=shop.headers() | {"Origin": "https://shop.example"})
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "X-Cursor-Next" in response.headers["Access-Control-Expose-Headers"]
    error = await client.get("/v1/location", headers={"Origin": "https://shop.example"})
    assert error.status_code == 401
    assert error.headers["Access-Control-Allow-Origin"] == "*"


async def test_preflight_allows_the_token_header(client: httpx.AsyncClient) -> None:
    response = await client.options(
        "/v1/location",
        headers={
            "Origin": "https://shop.example",
            "Access-Control-Request-Method": "PATCH",
            "Access-Control-Request-Headers": "x-access-token, content-type",
        },
    )
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "PATCH" in response.headers["Access-Control-Allow-Methods"]
    assert response.headers["Access-Control-Allow-Headers"] == "x-access-token, content-type"


async def test_no_cors_outside_the_api(client: httpx.AsyncClient) -> None:
    response = await client.get("/", headers={"Origin": "https://shop.example"})
    assert "Access-Control-Allow-Origin" not in response.headers


async def test_every_response_has_a_request_id(client: httpx.AsyncClient, shop: Shop) -> None:
    ids = set()
    for path, headers in (("/v1/location", shop.headers()), ("/v1/location", {}), ("/v1/nowhere", {}), ("/", {})):
        response = await client.get(path, headers=headers)
        assert len(response.headers["X-Request-Id"]) == 16
        ids.add(response.headers["X-Request-Id"])
    assert len(ids) == 4


async def test_a_sane_caller_request_id_is_kept(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.get("/v1/location", headers=shop.headers() | {"X-Request-Id": "trace-42.a_b"})
    assert response.headers["X-Request-Id"] == "trace-42.a_b"
    response = await client.get("/v1/location", headers=shop.headers() | {"X-Request-Id": "bad id\t<script>"})
    assert response.headers["X-Request-Id"] != "bad id\t<script>"


async def test_get_has_an_etag_and_a_matching_if_none_match_is_304(client: httpx.AsyncClient, shop: Shop) -> None:
    first = await client.get("/v1/location", headers=shop.headers())
    etag = first.headers["ETag"]
    assert etag.startswith('"')
    assert etag.endswith('"')
    again = await client.get("/v1/location", headers=shop.headers())
    assert again.headers["ETag"] == etag
    cached = await client.get("/v1/location", headers=shop.headers() | {"If-None-Match": etag})
    assert cached.status_code == 304
    assert cached.content == b""
    assert cached.headers["ETag"] == etag
    assert "content-type" not in cached.headers
    for header in (f"W/{etag}", f'"other", {etag}', "*"):
        assert (await client.get("/v1/location", headers=shop.headers() | {"If-None-Match": header})).status_code == 304


async def test_the_etag_changes_with_the_resource(client: httpx.AsyncClient, shop: Shop) -> None:
    etag = (await client.get("/v1/location", headers=shop.headers())).headers["ETag"]
    await client.patch("/v1/location", json={"preparation_time": 44}, headers=shop.headers())
    response = await client.get("/v1/location", headers=shop.headers() | {"If-None-Match": etag})
    assert response.status_code == 200
    assert response.headers["ETag"] != etag


async def test_errors_and_writes_carry_no_etag(client: httpx.AsyncClient, shop: Shop) -> None:
    assert "ETag" not in (await client.get("/v1/location")).headers
    assert "ETag" not in (await client.patch("/v1/location", json={}, headers=shop.headers())).headers


async def test_error_bodies_have_error_type_and_message_only_or_errors_on_422(
    client: httpx.AsyncClient, shop: Shop
) -> None:
    responses = [
        await client.get("/v1/location"),
        await client.get("/v1/account", headers=shop.headers()),
        await client.get("/v1/locations/x-1", headers=shop.headers()),
        await client.get("/v1/nothing"),
        await client.patch("/v1/location", json={"preparation_time": "x"}, headers=shop.headers()),
    ]
    assert [r.status_code for r in responses] == [401, 403, 404, 404, 422]
    for response in responses:
        expected_keys = (
            {"error_type", "message", "errors"} if response.status_code == 422 else {"error_type", "message"}
        )
        assert set(response.json()) == expected_keys
        assert response.headers["content-type"] == "application/json"
