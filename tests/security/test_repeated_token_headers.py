"""Smuggling a second token in a repeated header (docs/api/oauth.md "Bearer tokens"): two
`X-Access-Token` headers, or two `Authorization: Bearer` headers, with different tokens are
refused as the mixed pair is (400 `invalid_request`), whichever comes first, and change and
count nothing; copies of one token are that token. Both databases: the token is looked up in
each."""

from __future__ import annotations

import httpx
import pytest

from tests.api.conftest import Shop, app, client, shop, world  # noqa: F401 - fixtures
from tests.api.orders.conftest import order
from tests.factories import World

TWO_HEADERS = "Two X-Access-Token headers hold different tokens; send one"
TWO_BEARERS = "Two Authorization: Bearer headers hold different tokens; send one"

Headers = list[tuple[str, str]]


def doubled(name: str, first: str, second: str) -> Headers:
    if name == "Authorization":
        return [(name, f"Bearer {first}"), (name, f"Bearer {second}")]
    return [(name, first), (name, second)]


def refused_with(response: httpx.Response, message: str) -> None:
    assert response.status_code == 400
    assert response.json() == {"error_type": "bad_request", "message": message}
    assert response.headers["WWW-Authenticate"] == (
        f'Bearer realm="comptoir", error="invalid_request", error_description="{message}"'
    )
    assert "RateLimit" not in response.headers  # no connection was charged for it


@pytest.mark.parametrize(
    ("name", "message"),
    [("X-Access-Token", TWO_HEADERS), ("Authorization", TWO_BEARERS)],
    ids=["x-access-token", "authorization"],
)
@pytest.mark.parametrize("valid_first", [True, False], ids=["valid-first", "valid-second"])
async def test_two_different_tokens_in_a_repeated_header_are_refused_and_change_nothing(
    client: httpx.AsyncClient,  # noqa: F811
    shop: Shop,  # noqa: F811
    world: World,  # noqa: F811
    name: str,
    message: str,
    valid_first: bool,
) -> None:
    tokens = (shop.location_token, shop.account_token) if valid_first else (shop.account_token, shop.location_token)
    before = await world.snapshot()
    patched = await client.patch("/v1/location", json={"preparation_time": 7}, headers=doubled(name, *tokens))
    refused_with(patched, message)
    ordered = await client.post("/v1/location/orders", json=order(), headers=doubled(name, *tokens))  # direct path
    refused_with(ordered, message)
    assert await world.snapshot() == before
    counted = await client.get("/v1/location", headers=shop.headers())
    assert counted.headers["RateLimit"].startswith('"minute";r=499;')  # the refusals counted nothing


@pytest.mark.parametrize("name", ["X-Access-Token", "Authorization"])
async def test_a_known_token_beside_an_unknown_one_is_refused_not_used(
    client: httpx.AsyncClient,  # noqa: F811
    shop: Shop,  # noqa: F811
    name: str,
) -> None:
    response = await client.get("/v1/location", headers=doubled(name, shop.location_token, "not-a-token"))
    refused_with(response, TWO_HEADERS if name == "X-Access-Token" else TWO_BEARERS)


@pytest.mark.parametrize("name", ["X-Access-Token", "Authorization"])
async def test_copies_of_one_token_in_a_repeated_header_are_that_token_counted_once(
    client: httpx.AsyncClient,  # noqa: F811
    shop: Shop,  # noqa: F811
    name: str,
) -> None:
    response = await client.get("/v1/location", headers=doubled(name, shop.location_token, shop.location_token))
    assert response.status_code == 200
    assert response.json()["id"] == shop.location.public_id
    assert response.headers["RateLimit"].startswith('"minute";r=499;')


async def test_three_headers_with_a_different_token_in_the_last_are_refused(
    client: httpx.AsyncClient,  # noqa: F811
    shop: Shop,  # noqa: F811
) -> None:
    headers = [
        ("X-Access-Token", shop.location_token),
        ("Authorization", f"Bearer {shop.location_token}"),
        ("X-Access-Token", shop.account_token),
    ]
    refused_with(await client.get("/v1/location", headers=headers), TWO_HEADERS)


async def test_a_bearer_token_in_a_second_authorization_header_beside_basic_is_read(
    client: httpx.AsyncClient,  # noqa: F811
    shop: Shop,  # noqa: F811
) -> None:
    """Another scheme is no token, in whichever of the headers it comes."""
    headers = [("Authorization", "Basic YTpi"), ("Authorization", f"Bearer {shop.location_token}")]
    response = await client.get("/v1/location", headers=headers)
    assert response.status_code == 200
    assert response.json()["id"] == shop.location.public_id


async def test_an_empty_copy_of_x_access_token_is_no_token(
    client: httpx.AsyncClient,  # noqa: F811
    shop: Shop,  # noqa: F811
) -> None:
    headers = [("X-Access-Token", ""), ("X-Access-Token", shop.location_token)]
    response = await client.get("/v1/location", headers=headers)
    assert response.status_code == 200
    assert response.json()["id"] == shop.location.public_id
