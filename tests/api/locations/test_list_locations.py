"""spec 4.8 GET /locations/ (account tokens), paginated as spec 8.1 says."""

from __future__ import annotations

import httpx
import pytest

from tests.api.conftest import Shop
from tests.factories import World


async def test_lists_the_accounts_locations_in_order(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    await world.location(name="Elsewhere")  # another account's location is not listed
    response = await client.get("/v1/locations", headers=shop.headers(shop.account_token))
    assert response.status_code == 200
    assert [loc["id"] for loc in response.json()] == [shop.location.public_id, shop.other_location.public_id]
    assert response.json()[1]["name"] == "Chez Ada Lyon"
    assert "X-Cursor-Next" not in response.headers


async def test_trailing_slash_form_of_the_spec_works(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.get("/v1/locations/", headers=shop.headers(shop.account_token))
    assert response.status_code == 200
    assert len(response.json()) == 2


async def test_location_tokens_cannot_list_locations(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.get("/v1/locations", headers=shop.headers())
    assert response.status_code == 403
    assert response.json() == {"error_type": "forbidden", "message": "This endpoint needs an account-level token"}


async def test_pages_walk_every_location_once(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    for i in range(5):
        await world.location(shop.account, name=f"Extra {i}")
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        params = {"count": "3", **({"cursor": cursor} if cursor else {})}
        response = await client.get("/v1/locations", params=params, headers=shop.headers(shop.account_token))
        assert response.status_code == 200
        seen += [loc["id"] for loc in response.json()]
        pages += 1
        cursor = response.headers.get("X-Cursor-Next")
        if cursor is None:
            break
        assert len(response.json()) == 3
    assert pages == 3
    assert seen == [f"{shop.account.public_id}-{n}" for n in range(1, 8)]


async def test_a_walk_sees_locations_created_meanwhile_exactly_once(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    first = await client.get("/v1/locations", params={"count": "1"}, headers=shop.headers(shop.account_token))
    await world.location(shop.account, name="Newcomer")
    second = await client.get(
        "/v1/locations",
        params={"count": "5", "cursor": first.headers["X-Cursor-Next"]},
        headers=shop.headers(shop.account_token),
    )
    ids = [loc["id"] for loc in first.json() + second.json()]
    assert ids == [f"{shop.account.public_id}-{n}" for n in (1, 2, 3)]
    assert "X-Cursor-Next" not in second.headers


async def test_no_cursor_header_when_the_page_is_exactly_the_rest(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.get("/v1/locations", params={"count": "2"}, headers=shop.headers(shop.account_token))
    assert len(response.json()) == 2
    assert "X-Cursor-Next" not in response.headers


async def test_count_above_100_is_taken_as_100(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.get("/v1/locations", params={"count": "1000"}, headers=shop.headers(shop.account_token))
    assert response.status_code == 200
    assert len(response.json()) == 2


@pytest.mark.parametrize("count", ["0", "-1", "abc", "1.5", ""])
async def test_count_that_is_not_a_positive_integer_is_400(client: httpx.AsyncClient, shop: Shop, count: str) -> None:
    response = await client.get("/v1/locations", params={"count": count}, headers=shop.headers(shop.account_token))
    assert response.status_code == 400
    assert response.json() == {
        "error_type": "bad_request",
        "message": f"count must be a positive integer, not {count!r}",
    }


@pytest.mark.parametrize("cursor", ["garbage", "eyJ4IjoxfQ", "WyIxIiwiYSJd", "WyIxIl0", "%%%"])
async def test_a_bad_cursor_is_400(client: httpx.AsyncClient, shop: Shop, cursor: str) -> None:
    response = await client.get("/v1/locations", params={"cursor": cursor}, headers=shop.headers(shop.account_token))
    assert response.status_code == 400
    assert response.json()["error_type"] == "bad_request"
