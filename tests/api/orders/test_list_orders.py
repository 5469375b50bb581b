"""spec 4.1: order lists (location, account), newest first, with the filters private_ref,
status, created_by, after (inclusive), before (exclusive), customer_id; spec 8.1 pages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from comptoir.kit import clock
from tests.api.conftest import Shop
from tests.api.customers.conftest import lists_of, new_customer
from tests.api.orders.conftest import create, created
from tests.api.test_metrics import delta, scrape
from tests.factories import World

T0 = datetime(2026, 6, 24, 10, 0, tzinfo=UTC)  # 12:00 in Paris


@pytest.fixture
async def placed(client: httpx.AsyncClient, shop: Shop, world: World) -> list[dict[str, Any]]:
    """Four orders an hour apart: two by the shop's app, one by another app, one in Lyon."""
    ann = await new_customer(client, shop, await lists_of(client, shop), {"first_name": "Ann"})
    other = await world.token("location[orders.write]", location=shop.location, client=await world.client("Kiosk"))
    orders = []
    for i, (body, token, path) in enumerate(
        [
            ({"status": "new", "private_ref": "a"}, None, "/v1/location/orders"),
            ({"status": "accepted", "customer_id": ann["id"]}, None, "/v1/location/orders"),
            ({"status": "accepted"}, other, "/v1/location/orders"),
            ({"status": "new"}, shop.account_token, f"/v1/locations/{shop.other_location.public_id}/orders"),
        ]
    ):
        clock.freeze(T0 + timedelta(hours=i))
        response = await create(client, shop, body, token, path)
        assert response.status_code == 200
        orders.append(response.json())
    clock.reset()
    return orders


async def ids(
    client: httpx.AsyncClient, shop: Shop, path: str, params: dict[str, Any] | str = "", token: str | None = None
) -> list[str]:
    response = await client.get(path, params=params or None, headers=shop.headers(token))
    assert response.status_code == 200, response.text
    return [item["id"] for item in response.json()]


async def test_a_location_lists_its_orders_newest_first(
    client: httpx.AsyncClient, shop: Shop, placed: list[dict[str, Any]]
) -> None:
    expected = [placed[2]["id"], placed[1]["id"], placed[0]["id"]]
    assert await ids(client, shop, "/v1/location/orders") == expected
    listed = (await client.get("/v1/location/orders", headers=shop.headers())).json()
    assert listed[2] == placed[0]  # the full order
    by_id = f"/v1/locations/{shop.location.public_id}/orders"
    assert await ids(client, shop, by_id, token=shop.account_token) == expected


async def test_an_account_lists_every_locations_orders(
    client: httpx.AsyncClient, shop: Shop, placed: list[dict[str, Any]]
) -> None:
    expected = [o["id"] for o in reversed(placed)]
    assert await ids(client, shop, "/v1/account/orders", token=shop.account_token) == expected
    path = f"/v1/accounts/{shop.account.public_id}/orders"
    assert await ids(client, shop, path, token=shop.account_token) == expected


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"status": "accepted"}, [2, 1]),
        ({"created_by": "Kiosk"}, [2]),
        ({"created_by": "Test app"}, [1, 0]),
        ({"private_ref": "a"}, [0]),
        ({"after": "2026-06-24T13:00:00+02:00"}, [2, 1]),  # inclusive
        ({"before": "2026-06-24T13:00:00+02:00"}, [0]),  # exclusive
        ({"after": "2026-06-24T12:00:00", "before": "2026-06-24T14:00:00"}, [1, 0]),  # location time
        ({"status": "new", "created_by": "Test app"}, [0]),
    ],
)
async def test_filters(
    client: httpx.AsyncClient, shop: Shop, placed: list[dict[str, Any]], params: dict[str, str], expected: list[int]
) -> None:
    assert await ids(client, shop, "/v1/location/orders", params) == [placed[i]["id"] for i in expected]


async def test_a_plus_in_a_time_filter_need_not_be_encoded(
    client: httpx.AsyncClient, shop: Shop, placed: list[dict[str, Any]]
) -> None:
    assert await ids(client, shop, "/v1/location/orders?after=2026-06-24T13:00:00+02:00") == [
        placed[2]["id"],
        placed[1]["id"],
    ]


async def test_customer_id_filter(client: httpx.AsyncClient, shop: Shop, placed: list[dict[str, Any]]) -> None:
    customer_id = placed[1]["customer_id"]
    assert await ids(client, shop, "/v1/location/orders", {"customer_id": customer_id}) == [placed[1]["id"]]


async def test_pages(client: httpx.AsyncClient, shop: Shop, placed: list[dict[str, Any]]) -> None:
    first = await client.get("/v1/location/orders", params={"count": 2}, headers=shop.headers())
    assert [o["id"] for o in first.json()] == [placed[2]["id"], placed[1]["id"]]
    rest = await client.get(
        "/v1/location/orders", params={"cursor": first.headers["X-Cursor-Next"]}, headers=shop.headers()
    )
    assert [o["id"] for o in rest.json()] == [placed[0]["id"]]
    assert "X-Cursor-Next" not in rest.headers


@pytest.mark.parametrize("query", ["status=lost", "after=yesterday", "before=2026-13-01T00:00:00Z"])
async def test_bad_filters_are_400(client: httpx.AsyncClient, shop: Shop, query: str) -> None:
    response = await client.get(f"/v1/location/orders?{query}", headers=shop.headers())
    assert response.status_code == 400
    assert response.json()["error_type"] == "bad_request"


async def test_order_lists_are_heavy_queries(client: httpx.AsyncClient, shop: Shop) -> None:
    clock.freeze(datetime(2026, 3, 2, 10, 0, 5, tzinfo=UTC))  # one rate-limit minute for all
    statuses = [(await client.get("/v1/location/orders", headers=shop.headers())).status_code for _ in range(11)]
    assert statuses == [200] * 10 + [429]
    # a single order is not a heavy query
    assert (await create(client, shop, {"status": "new"})).status_code == 200


async def test_access(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    catalog_only = await world.token("location[inventory.read]", location=shop.location)
    refused = await client.get("/v1/location/orders", headers={"X-Access-Token": catalog_only})
    assert (refused.status_code, refused.json()) == (
        403,
        {
            "error_type": "forbidden",
            "message": "The connection's scope (location[inventory.read]) does not allow this request: "
            "it needs orders.read",
        },
    )
    refused = await client.get("/v1/account/orders", headers=shop.headers())
    assert (refused.status_code, refused.json()) == (
        403,
        {"error_type": "forbidden", "message": "This endpoint needs an account-level token"},
    )
    read = await created(client, shop, {"status": "new"})
    reader = await world.token("location[orders.read]", location=shop.location)
    response = await client.get(f"/v1/location/orders/{read['id']}", headers={"X-Access-Token": reader})
    assert (response.status_code, response.json()) == (200, read)


async def test_a_location_read_by_its_own_token_is_listed_without_a_transaction(
    client: httpx.AsyncClient, shop: Shop, placed: list[dict[str, Any]], db_kind: str
) -> None:
    """docs/architecture.md "Where things are": the page is one statement on the direct
    driver, as an order GET is; a location read by an account token is listed in the request's (read)
    transaction. Both give the same page, every filter and the cursor included."""
    clock.freeze(T0 + timedelta(hours=5))  # one second: the scrapes read the database once
    checkouts = "comptoir_db_connection_acquire_seconds_count"
    query = {"status": "accepted", "count": 1}
    long_form = f"/v1/locations/{shop.location.public_id}/orders"
    before = await scrape(client)
    own = await client.get("/v1/location/orders", params=query, headers=shop.headers())
    between = await scrape(client)
    assert own.status_code == 200
    assert [o["id"] for o in own.json()] == [placed[2]["id"]]
    assert delta(before, between, checkouts, pool="engine") == 0
    assert delta(before, between, checkouts, pool="direct") == (0 if db_kind == "sqlite" else 2)  # token, page
    by_account = await client.get(long_form, params=query, headers=shop.headers(shop.account_token))
    after = await scrape(client)
    assert delta(between, after, checkouts, pool="engine") == 1
    assert (by_account.status_code, by_account.content) == (200, own.content)
    rest = await client.get(
        "/v1/location/orders", params={**query, "cursor": own.headers["X-Cursor-Next"]}, headers=shop.headers()
    )
    rest_by_account = await client.get(
        long_form,
        params={**query, "cursor": by_account.headers["X-Cursor-Next"]},
        headers=shop.headers(shop.account_token),
    )
    assert rest.status_code == 200, rest.text
    assert [o["id"] for o in rest.json()] == [placed[1]["id"]]
    assert rest_by_account.content == rest.content
