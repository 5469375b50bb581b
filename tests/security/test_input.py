"""Hostile input: oversized bodies (refused before they are read, and after the token),
deep or huge free-form JSON, NUL characters, values at the calendar's limits, numbers
beyond any column, non-ASCII digits. Each is refused in the error format and changes
nothing stored."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest

from comptoir.auth.tokens import MISSING, REVOKED
from comptoir.config import Settings
from tests.api import conftest as api
from tests.api.conftest import Shop
from tests.api.orders.conftest import order
from tests.factories import World

app, client, shop, world = api.app, api.client, api.shop, api.world  # the API's fixtures, here too

MB = 1024 * 1024
JSON = {"Content-Type": "application/json"}


class Body:
    """A streamed request body of `size` bytes in 64 KB chunks, counting what was read."""

    def __init__(self, size: int, *, prefix: bytes = b'{"name": "x", "pad": "', suffix: bytes = b'"}') -> None:
        self.size, self.prefix, self.suffix = size, prefix, suffix
        self.sent = 0

    async def stream(self) -> AsyncIterator[bytes]:
        chunk = 64 * 1024
        yield self.prefix
        self.sent += len(self.prefix)
        left = self.size - len(self.prefix) - len(self.suffix)
        while left > 0:
            part = b"a" * min(chunk, left)
            left -= len(part)
            self.sent += len(part)
            yield part
        self.sent += len(self.suffix)
        yield self.suffix


class _Fields:
    """A streamed form body of `count` fields of `size` bytes each, one field a chunk,
    counting what was read."""

    def __init__(self, count: int, size: int) -> None:
        self.count, self.size = count, size
        self.sent = 0

    async def stream(self) -> AsyncIterator[bytes]:
        for n in range(self.count):
            part = (b"&" if n else b"") + f"f{n}=".encode() + b"a" * self.size
            self.sent += len(part)
            yield part


def _declared(size: int) -> dict[str, str]:
    return {**JSON, "Content-Length": str(size)}


def _too_large(limit: int) -> dict[str, str]:
    return {"error_type": "payload_too_large", "message": f"The request body must not exceed {limit} bytes"}


# --- bodies: the token before the body -----------------------------------------------------


@pytest.mark.parametrize(("token", "message"), [(None, MISSING), ("forged", REVOKED)])
async def test_a_30_mb_body_without_a_valid_token_is_401_and_never_read(
    client: httpx.AsyncClient, shop: Shop, world: World, token: str | None, message: str
) -> None:
    before = await world.snapshot()
    auth = {} if token is None else {"X-Access-Token": token}
    for method, path in [
        ("POST", "/v1/location/orders"),  # served directly
        ("POST", f"/v1/locations/{shop.location.public_id}/customer_lists"),
        ("PATCH", "/v1/location"),
        ("PUT", f"/v1/catalogs/{shop.location.public_id}"),
    ]:
        for declared in (True, False):  # with a Content-Length, and chunked
            body = Body(30 * MB)
            headers = {**(_declared(30 * MB) if declared else JSON), **auth}
            response = await client.request(method, path, content=body.stream(), headers=headers)
            assert (response.status_code, response.json()) == (
                401,
                {"error_type": "unauthorized", "message": message},
            ), (method, path)
            assert body.sent == 0, (method, path)
    assert await world.snapshot() == before


async def test_a_body_declared_over_the_limit_is_413_before_it_is_read(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    before = await world.snapshot()
    for method, path in [
        ("POST", "/v1/location/orders"),
        ("POST", "/v1/account/customer_lists"),
        ("PATCH", "/v1/location"),
    ]:
        body = Body(30 * MB)
        token = shop.headers(shop.account_token if "account" in path else None)
        response = await client.request(method, path, content=body.stream(), headers=_declared(30 * MB) | token)
        assert (response.status_code, response.json()) == (413, _too_large(2 * MB)), (method, path)
        assert body.sent == 0
    assert await world.snapshot() == before


async def test_a_chunked_body_over_the_limit_is_413_once_the_limit_is_passed(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    before = await world.snapshot()
    for method, path in [("POST", "/v1/location/orders"), ("PATCH", "/v1/location")]:
        body = Body(30 * MB)
        response = await client.request(method, path, content=body.stream(), headers=JSON | shop.headers())
        assert (response.status_code, response.json()) == (413, _too_large(2 * MB)), (method, path)
        assert body.sent <= 2 * MB + 64 * 1024 + 100  # read no further than one chunk past the limit
    assert await world.snapshot() == before


async def test_a_body_just_under_the_limit_is_read(client: httpx.AsyncClient, shop: Shop) -> None:
    padded = b'{"custom_fields": {"k": 1}' + b" " * (2 * MB - 100) + b"}"
    response = await client.patch("/v1/location", content=padded, headers=JSON | shop.headers())
    assert response.status_code == 200
    assert response.json()["custom_fields"] == {"k": 1}


async def test_a_catalog_may_be_larger_than_other_bodies_but_not_without_bound(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    token = shop.headers(shop.account_token)
    created = await client.post("/v1/account/catalogs", json={"name": "Big"}, headers=token)
    assert created.status_code == 200, created.text
    path = f"/v1/catalogs/{created.json()['id']}"
    padded = b'{"name": "Bigger"' + b" " * (3 * MB) + b"}"
    renamed = await client.put(path, content=padded, headers=JSON | token)
    assert (renamed.status_code, renamed.json()["name"]) == (200, "Bigger")
    before = await world.snapshot()
    body = Body(40 * MB)
    refused = await client.put(path, content=body.stream(), headers=_declared(40 * MB) | token)
    assert (refused.status_code, refused.json()) == (413, _too_large(32 * MB))
    assert body.sent == 0
    assert await world.snapshot() == before


async def test_an_oversized_oauth_or_back_office_form_is_refused_unread(
    client: httpx.AsyncClient, world: World
) -> None:
    before = await world.snapshot()
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    for path in ("/oauth2/v1/token", "/oauth2/v1/revoke", "/login"):
        body = Body(30 * MB, prefix=b"code=", suffix=b"")
        response = await client.post(path, content=body.stream(), headers=form | {"Content-Length": str(30 * MB)})
        assert (response.status_code, response.json()) == (413, _too_large(2 * MB)), path
        assert body.sent == 0
        # Chunked: one form field is refused past 1 MB (400), ...
        body = Body(30 * MB, prefix=b"code=", suffix=b"")
        response = await client.post(path, content=body.stream(), headers=form)
        assert (response.status_code, response.json()) == (
            400,
            {"error_type": "bad_request", "message": "Field exceeded maximum size of 1024KB."},
        ), path
        assert body.sent <= MB + 64 * 1024 + 100
        # ... and fields each under 1 MB, the body past 2 MB (413); never all of it.
        fields = _Fields(60, 512 * 1024)
        response = await client.post(path, content=fields.stream(), headers=form)
        assert (response.status_code, response.json()) == (413, _too_large(2 * MB)), path
        assert fields.sent <= 2 * MB + 512 * 1024 + 100
    assert await world.snapshot() == before


# --- free-form JSON --------------------------------------------------------------------------


def _with_info(info: Any) -> dict[str, Any]:
    body = order()
    body["payments"][0]["info"] = info
    return body


def _nested(levels: int) -> Any:
    value: Any = {}
    for _ in range(levels - 1):
        value = {"k": value}
    return value


async def test_payment_info_nested_300_deep_is_422_naming_the_field(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    before = await world.snapshot()
    content = (
        orjson.dumps(order())[:-1]
        + b', "payments": [{"amount": "32.30 EUR", "info": '
        + b'{"k":' * 299
        + b"{}"
        + b"}" * 299
        + b"}]}"
    )
    response = await client.post("/v1/location/orders", content=content, headers=JSON | shop.headers())
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"field": "payments[0].info", "message": "must not nest objects and arrays more than 64 levels deep"}
    ]
    assert await world.snapshot() == before


async def test_payment_info_of_100_kb_is_422_naming_the_field(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    before = await world.snapshot()
    response = await client.post(
        "/v1/location/orders", json=_with_info({"blob": "x" * 100_000}), headers=shop.headers()
    )
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"field": "payments[0].info", "message": "must not exceed 65536 bytes as JSON (it is 100011 bytes)"}
    ]
    assert await world.snapshot() == before


async def test_payment_info_64_deep_and_under_64_kb_is_stored(client: httpx.AsyncClient, shop: Shop) -> None:
    info = {"deep": _nested(63), "blob": "x" * 60_000}
    response = await client.post("/v1/location/orders", json=_with_info(info), headers=shop.headers())
    assert response.status_code == 200, response.text
    assert response.json()["payments"][0]["info"] == info


# --- NUL characters --------------------------------------------------------------------------


async def test_a_nul_character_in_any_body_field_is_422_naming_each_field(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    before = await world.snapshot()
    body = order(ref="W\u00001", private_ref="p\u0000")
    body["customer"]["email"] = "ann\u0000@example.com"
    body["items"][0]["product_name"] = "Marg\u0000herita"
    body["custom_fields"] = {"k\u0000": 1}
    response = await client.post("/v1/location/orders", json=body, headers=shop.headers())
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"field": "ref", "message": "must not contain a NUL character"},
        {"field": "private_ref", "message": "must not contain a NUL character"},
        {"field": "items[0].product_name", "message": "must not contain a NUL character"},
        {"field": "customer.email", "message": "must not contain a NUL character"},
        {"field": "custom_fields.k\\0", "message": "key must not contain a NUL character"},
    ]
    for method, path, payload, field in [
        ("PATCH", "/v1/location", {"custom_fields": {"k": "v\u0000"}}, "custom_fields.k"),
        ("POST", "/v1/account/customer_lists", {"name": "L\u0000"}, "name"),
    ]:
        token = shop.headers(shop.account_token if "account" in path else None)
        refused = await client.request(method, path, json=payload, headers=token)
        assert refused.status_code == 422, (path, refused.text)
        assert refused.json()["errors"] == [{"field": field, "message": "must not contain a NUL character"}]
    assert await world.snapshot() == before


async def test_a_nul_character_in_a_query_parameter_is_400_naming_it(client: httpx.AsyncClient, shop: Shop) -> None:
    for query in ("created_by=a%00b", "private_ref=%00", "email=x%00@example.com", "status=new&channel=%00"):
        response = await client.get(f"/v1/location/orders?{query}", headers=shop.headers())
        name = query.rsplit("&", 1)[-1].split("=", 1)[0]
        assert (response.status_code, response.json()) == (
            400,
            {
                "error_type": "bad_request",
                "message": f"Invalid query parameter {name!r}: must not contain a NUL character",
            },
        )


async def test_an_escaped_backslash_zero_is_ordinary_text(client: httpx.AsyncClient, shop: Shop) -> None:
    content = b'{"custom_fields": {"k": "a\\\\u0000b"}}'
    response = await client.patch("/v1/location", content=content, headers=JSON | shop.headers())
    assert (response.status_code, response.json()["custom_fields"]) == (200, {"k": "a\\u0000b"})


# --- dates, numbers, digits ------------------------------------------------------------------


async def test_times_at_the_calendars_limits_are_4xx(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    before = await world.snapshot()
    listed = await client.get("/v1/location/orders?before=0001-01-01T00:00:00", headers=shop.headers())
    assert (listed.status_code, listed.json()) == (
        400,
        {
            "error_type": "bad_request",
            "message": "Invalid query parameter 'before': '0001-01-01T00:00:00' is out of range"
            " (dates run from 1900-01-01 to 8999-12-31)",
        },
    )
    limit = "9999-12-31T23:59:59-14:00"
    message = f"'{limit}' is out of range (dates run from 1900-01-01 to 8999-12-31)"
    for field in ("expected_time", "confirmed_time"):
        response = await client.post("/v1/location/orders", json=order(**{field: limit}), headers=shop.headers())
        assert response.status_code == 422
        assert response.json()["errors"] == [{"field": field, "message": message}]
    paused = await client.patch(
        "/v1/location", json={"order_acceptance": {"paused": True, "resume_at": limit}}, headers=shop.headers()
    )
    assert paused.status_code == 422, paused.text
    assert await world.snapshot() == before


async def test_a_quantity_beyond_any_column_is_422(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    before = await world.snapshot()
    body = order()
    body["items"][0]["quantity"] = "999999999999999999999999999999"
    response = await client.post("/v1/location/orders", json=body, headers=shop.headers())
    assert response.status_code == 422, response.text
    assert response.json()["errors"][0]["field"] == "items[0].quantity"
    assert await world.snapshot() == before


async def test_fullwidth_digits_are_not_numbers(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    before = await world.snapshot()
    body = order()
    body["items"][1]["price"] = "１０ EUR"
    body["items"][1]["quantity"] = "３"
    response = await client.post("/v1/location/orders", json=body, headers=shop.headers())
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {
            "field": "items[1].price",
            "message": "'１０ EUR' is not a valid monetary amount (expected e.g. \"12.50 EUR\")",
        },
        {"field": "items[1].quantity", "message": "'３' is not a valid decimal (expected e.g. \"13.5\")"},
    ]
    assert await world.snapshot() == before


async def test_a_nul_character_in_a_login_or_oauth_form_is_400(client: httpx.AsyncClient, world: World) -> None:
    before = await world.snapshot()
    login = await client.get("/login")
    csrf = login.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    for path, content in [
        ("/login", f"csrf={csrf}&email=ann%00@example.com&password=x".encode()),
        ("/oauth2/v1/token", b"grant_type=authorization_code&code=a%00b&client_id=c%00&client_secret=s"),
        ("/oauth2/v1/revoke", b"token=a\x00b&client_id=c&client_secret=s"),
    ]:
        response = await client.post(path, content=content, headers=form)
        refused = {"error_type": "bad_request", "message": "Form fields must not contain a NUL character"}
        if path.startswith("/oauth2"):  # spec 5.3: the OAuth error adds `error`
            refused = {**refused, "error": "invalid_request"}
        assert (response.status_code, response.json()) == (400, refused), path
    assert await world.snapshot() == before


async def test_the_body_limits_are_the_operators_settings(
    client: httpx.AsyncClient, shop: Shop, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPTOIR_MAX_BODY_BYTES", "10000")
    monkeypatch.setenv("COMPTOIR_MAX_CATALOG_BODY_BYTES", "20000")
    configured = Settings(database_url=settings.database_url)
    assert (configured.max_body_bytes, configured.max_catalog_body_bytes) == (10_000, 20_000)
    monkeypatch.setattr(settings, "max_body_bytes", configured.max_body_bytes)
    monkeypatch.setattr(settings, "max_catalog_body_bytes", configured.max_catalog_body_bytes)
    padded = b'{"custom_fields": {"k": 1}' + b" " * 15_000 + b"}"
    refused = await client.patch("/v1/location", content=padded, headers=JSON | shop.headers())
    assert (refused.status_code, refused.json()) == (413, _too_large(10_000))
    token = shop.headers(shop.account_token)
    created = await client.post(
        "/v1/account/catalogs", content=b'{"name": "A"' + b" " * 15_000 + b"}", headers=JSON | token
    )
    assert (created.status_code, created.json()["name"], created.json()["account_id"]) == (
        200,
        "A",
        shop.account.public_id,
    )
    refused = await client.post(
        "/v1/account/catalogs", content=b'{"name": "A"' + b" " * 25_000 + b"}", headers=JSON | token
    )
    assert (refused.status_code, refused.json()) == (413, _too_large(20_000))
