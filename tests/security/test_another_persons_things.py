"""A signed-in person reaching for someone else's things by id, on every back-office route
that names one (docs/back-office.md "Who sees what"): each answers the one 404 page, shows
none of the owner's data, and a refused form changes nothing. An application's developer sees
its connections but manages none of them."""

# ruff: noqa: F811 - the API's fixtures, imported
from __future__ import annotations

import importlib
import pkgutil

import httpx
import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute

import comptoir.web
from comptoir.applications.service import create_client
from tests.api.conftest import Shop, app, client, shop, world  # noqa: F401 - fixtures
from tests.api.orders.conftest import order
from tests.api.web.test_back_office_connections import connection_of
from tests.api.web.test_back_office_login import csrf_of, log_in
from tests.factories import World


def _routes_with_ids() -> list[tuple[str, str]]:
    """(method, path) of every back-office route with a path parameter."""
    found: set[tuple[str, str]] = set()
    for module_info in pkgutil.iter_modules(comptoir.web.__path__):
        router = getattr(importlib.import_module(f"comptoir.web.{module_info.name}"), "router", None)
        for route in getattr(router, "routes", ()):
            if isinstance(route, APIRoute) and "{" in route.path:
                found |= {(method, route.path) for method in route.methods if method in ("GET", "POST")}
    return sorted(found)


ROUTES = _routes_with_ids()


async def _owners_ids(app: FastAPI, client: httpx.AsyncClient, shop: Shop, world: World) -> dict[str, str]:
    """A public id of each kind the back office names in a path, all of the shop's owner."""
    catalog = await world.catalog(location=shop.location, name="Ada's menu")
    customer_list = await world.customer_list(location=shop.location, name="Ada's regulars")
    owner = await world.user(email="ada.developer@example.com")
    async with world.db.transaction() as session:
        application = await create_client(
            session, name="Ada's app", redirect_uris=["https://app.example/cb"], owner=owner
        )
    created = await client.post("/v1/location/orders", json=order(), headers=shop.headers())
    assert created.status_code == 200, created.text
    customer = await client.post(
        f"/v1/customer_lists/{customer_list.public_id}/customers", json={}, headers=shop.headers(shop.account_token)
    )
    assert customer.status_code == 200, customer.text
    connection = await connection_of(world, shop.location_token)

    await app.state.comptoir.request_log.flush()  # the connections' last use, written now, not in the middle
    return {
        "account_id": shop.account.public_id,
        "location_id": shop.location.public_id,
        "catalog_id": catalog.public_id,
        "list_id": customer_list.public_id,
        "client_id": application.public_id,
        "connection_id": connection.public_id,
        "order_id": created.json()["id"],
        "customer_id": customer.json()["id"],
        "notice_id": "1",
    }


def test_every_route_with_an_id_is_checked() -> None:
    """The routes below are all the back office has with an id (a new one joins the test)."""
    assert {path.split("/")[1] for _, path in ROUTES} == {
        "accounts",
        "locations",
        "catalogs",
        "customer-lists",
        "connections",
        "developers",
    }


async def test_someone_elses_things_are_not_found_on_every_route_and_nothing_changes(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    ids = await _owners_ids(app, client, shop, world)
    await world.user(email="stranger@example.com")
    await log_in(client, "stranger@example.com")
    csrf = csrf_of((await client.get("/")).text)
    before = await world.snapshot()
    for method, path in ROUTES:
        url = path.format(**ids)
        answer = await client.request(method, url, data={"csrf": csrf} if method == "POST" else None)
        assert answer.status_code == 404, f"{method} {url}"
        assert "of yours has this id" in answer.text, f"{method} {url}"
        assert "Chez Ada" not in answer.text, f"{method} {url}"
    assert await world.snapshot() == before


@pytest.mark.parametrize("action", ["revoke", "block", "unblock"])
async def test_an_applications_developer_sees_its_connection_but_cannot_manage_it(
    client: httpx.AsyncClient, shop: Shop, world: World, action: str
) -> None:
    developer = await world.user(email="dev@example.com")
    connection = await connection_of(world, shop.location_token)
    async with world.db.transaction() as session:
        application = await create_client(
            session, name="Dev app", redirect_uris=["https://dev.example/cb"], owner=developer
        )
        row = await session.merge(connection)
        row.client_id = application.id
    await log_in(client, "dev@example.com")
    seen = await client.get(f"/connections/{connection.public_id}")
    assert seen.status_code == 200
    assert "Dev app" in seen.text
    before = await world.snapshot()
    refused = await client.post(f"/connections/{connection.public_id}/{action}", data={"csrf": csrf_of(seen.text)})
    assert refused.status_code == 404
    assert "No connection of yours has this id." in refused.text
    assert await world.snapshot() == before
