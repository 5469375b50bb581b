"""Order creation is served below FastAPI's dependency solving (`http.routing.DirectRoute`):
its refusals are those of every other endpoint with a body, in the same order (token, scope,
then the body), and change nothing."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import func, select

from comptoir.auth.tokens import MISSING, REVOKED
from comptoir.http.routing import DirectRoute
from comptoir.locations.endpoints import router as locations_router
from comptoir.models import Order
from comptoir.orders.endpoints import router as orders_router
from tests.api.conftest import Shop
from tests.api.orders.conftest import created, order
from tests.factories import World

JSON = {"Content-Type": "application/json"}
NOT_AN_OBJECT = {"error_type": "bad_request", "message": "The request body must be a JSON object"}


async def _orders(world: World) -> int:
    async with world.db.transaction(write=False) as session:
        return await session.scalar(select(func.count()).select_from(Order))


def _paths(shop: Shop) -> list[str]:
    return ["/v1/location/orders", f"/v1/locations/{shop.location.public_id}/orders"]


@pytest.mark.parametrize(
    ("token", "headers", "content", "status", "message"),
    [
        (None, {"Content-Type": "text/plain"}, b"hello", 401, MISSING),
        ("", JSON, b"{broken", 401, MISSING),
        ("nope", JSON, b"[" * 100_000, 401, REVOKED),
        ("nope", JSON, b"", 401, REVOKED),
    ],
)
async def test_the_token_is_checked_before_the_body(
    client: httpx.AsyncClient, shop: Shop, world: World, token: str | None, headers: dict, content: bytes,
    status: int, message: str,
) -> None:  # fmt: skip
    for path in _paths(shop):
        given = headers if token is None else {**headers, "X-Access-Token": token}
        response = await client.post(path, content=content, headers=given)
        assert (response.status_code, response.json()) == (status, {"error_type": "unauthorized", "message": message})
    assert await _orders(world) == 0


async def test_the_scope_is_checked_before_the_body(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    read_only = await world.token("location[orders.read]", location=shop.location)
    for path in _paths(shop):
        response = await client.post(path, content=b"x", headers={"X-Access-Token": read_only, **JSON})
        assert response.status_code == 403
        assert response.json() == {
            "error_type": "forbidden",
            "message": "The connection's scope (location[orders.read]) does not allow this request:"
            " it needs orders.write",
        }
    assert await _orders(world) == 0


async def test_an_account_token_cannot_use_the_location_short_form(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    response = await client.post("/v1/location/orders", json=order(), headers=shop.headers(shop.account_token))
    assert response.status_code == 403
    assert response.json() == {"error_type": "forbidden", "message": "This endpoint needs a location-level token"}
    assert await _orders(world) == 0
    created = await client.post(
        f"/v1/locations/{shop.location.public_id}/orders", json=order(), headers=shop.headers(shop.account_token)
    )
    assert (created.status_code, created.json()["location_id"]) == (200, shop.location.public_id)
    assert await _orders(world) == 1


@pytest.mark.parametrize(
    ("headers", "content", "status", "body"),
    [
        ({"Content-Type": "text/plain"}, b'{"items": []}', 415, None),
        ({}, b'{"items": []}', 415, None),
        (JSON, b"", 400, NOT_AN_OBJECT),
        (JSON, b"[]", 400, NOT_AN_OBJECT),
        (JSON, b"null", 400, NOT_AN_OBJECT),
        (JSON, b'"order"', 400, NOT_AN_OBJECT),
        (JSON, b"{broken", 400, None),
    ],
)
async def test_a_body_that_is_not_a_json_object_is_refused_as_elsewhere(
    client: httpx.AsyncClient, shop: Shop, world: World, headers: dict, content: bytes, status: int, body: dict | None
) -> None:
    # PATCH /location is served by FastAPI: the same refusal, word for word.
    elsewhere = await client.patch("/v1/location", content=content, headers={**shop.headers(), **headers})
    for path in _paths(shop):
        response = await client.post(path, content=content, headers={**shop.headers(), **headers})
        assert (response.status_code, response.json()) == (elsewhere.status_code, elsewhere.json())
        assert response.status_code == status
        if body is not None:
            assert response.json() == body
    assert await _orders(world) == 0


async def test_field_errors_are_one_422_naming_every_field(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    body = order(status="lost", items=[{"product_name": 5, "price": "1.00 EUR", "quantity": "0"}], note="ignored")
    body.pop("collection_code")
    for path in _paths(shop):
        response = await client.post(path, json=body, headers=shop.headers())
        assert response.status_code == 422
        answer = response.json()
        assert answer["error_type"] == "unprocessable_entity"
        assert answer["message"].startswith("status: must be 'new', 'received'")
        assert answer["errors"] == [
            {"field": "status", "message": answer["errors"][0]["message"]},
            {"field": "items[0].product_name", "message": "must be a string"},
            {"field": "items[0].quantity", "message": "must be greater than 0"},
        ]
    assert await _orders(world) == 0


# An order GET and a location GET are served directly too: the same answers, refusals first.


def _get_paths(shop: Shop, order_id: str) -> list[str]:
    return [
        f"/v1/location/orders/{order_id}",
        f"/v1/locations/{shop.location.public_id}/orders/{order_id}",
        "/v1/location",
        f"/v1/locations/{shop.location.public_id}",
    ]


@pytest.mark.parametrize(
    ("token", "message"), [(None, MISSING), ("", MISSING), ("nope", REVOKED)], ids=["none", "empty", "unknown"]
)
async def test_a_get_checks_the_token_first(
    client: httpx.AsyncClient, shop: Shop, token: str | None, message: str
) -> None:
    made = await created(client, shop, order())
    for path in _get_paths(shop, made["id"]):
        response = await client.get(path, headers={} if token is None else {"X-Access-Token": token})
        assert (response.status_code, response.json()) == (401, {"error_type": "unauthorized", "message": message})


async def test_a_get_checks_the_scope_and_the_level(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    made = await created(client, shop, order())
    no_orders = await world.token("location[all_catalogs.write]", location=shop.location)
    for path in _get_paths(shop, made["id"])[:2]:
        response = await client.get(path, headers={"X-Access-Token": no_orders})
        assert (response.status_code, response.json()) == (
            403,
            {
                "error_type": "forbidden",
                "message": "The connection's scope (location[all_catalogs.write]) does not allow this request:"
                " it needs orders.read",
            },
        )
    response = await client.get(f"/v1/location/orders/{made['id']}", headers=shop.headers(shop.account_token))
    assert (response.status_code, response.json()) == (
        403,
        {"error_type": "forbidden", "message": "This endpoint needs a location-level token"},
    )


async def test_a_get_answers_as_before_at_both_forms(client: httpx.AsyncClient, shop: Shop) -> None:
    made = await created(client, shop, order())
    short, long = [await client.get(path, headers=shop.headers()) for path in _get_paths(shop, made["id"])[:2]]
    assert (short.status_code, long.status_code) == (200, 200)
    assert short.json() == long.json() == made
    by_account = await client.get(_get_paths(shop, made["id"])[1], headers=shop.headers(shop.account_token))
    assert (by_account.status_code, by_account.json()["id"]) == (200, made["id"])
    other = await client.get(
        f"/v1/locations/{shop.other_location.public_id}/orders/{made['id']}", headers=shop.headers(shop.account_token)
    )
    assert (other.status_code, other.json()["error_type"]) == (404, "not_found")
    location = await client.get("/v1/location", headers=shop.headers())
    assert (location.status_code, location.json()["id"]) == (200, shop.location.public_id)


def test_the_gets_are_direct_routes() -> None:
    names = {"get_order", "get_own_order", "get_location", "get_own_location"}
    routes = [*orders_router.routes, *locations_router.routes]
    kinds = {route.name: type(route) for route in routes if getattr(route, "name", None) in names}
    assert kinds == dict.fromkeys(names, DirectRoute)
