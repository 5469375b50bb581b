"""The token in `Authorization: Bearer` as in `X-Access-Token` (RFC 6750 2.1), and the
`WWW-Authenticate` challenge of every 401 (RFC 6750 3; docs/api/oauth.md "Bearer tokens").
Both databases: the token is looked up in each."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import func, select, update

from comptoir.db.engine import Database
from comptoir.kit import clock
from comptoir.models import Connection, Order
from tests.api.conftest import Shop
from tests.api.orders.conftest import order

REVOKED = "The access token is invalid or the connection has been revoked"
MISSING = "The X-Access-Token header is missing"


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER", "bEaReR"])
async def test_a_bearer_token_reads_the_api_whatever_the_scheme_case(
    client: httpx.AsyncClient, shop: Shop, scheme: str
) -> None:
    response = await client.get("/v1/location", headers={"Authorization": f"{scheme} {shop.location_token}"})
    assert response.status_code == 200
    assert response.json()["id"] == shop.location.public_id


async def test_a_bearer_token_creates_an_order_on_the_direct_path(
    client: httpx.AsyncClient, shop: Shop, database: Database
) -> None:
    response = await client.post(
        "/v1/location/orders", json=order(), headers={"Authorization": f"Bearer {shop.location_token}"}
    )
    assert response.status_code == 200, response.text
    async with database.transaction(write=False) as session:
        assert await session.scalar(select(func.count()).select_from(Order)) == 1


async def test_a_bearer_request_counts_in_the_connections_rate_limit(client: httpx.AsyncClient, shop: Shop) -> None:
    first = await client.get("/v1/location", headers=shop.headers())
    second = await client.get("/v1/location", headers={"Authorization": f"Bearer {shop.location_token}"})
    assert first.headers["RateLimit"].startswith('"minute";r=499;')
    assert second.headers["RateLimit"].startswith('"minute";r=498;')


async def test_the_same_token_in_both_headers_is_accepted(client: httpx.AsyncClient, shop: Shop) -> None:
    headers = {**shop.headers(), "Authorization": f"Bearer {shop.location_token}"}
    assert (await client.get("/v1/location", headers=headers)).status_code == 200


async def test_two_different_tokens_are_a_400_in_the_apis_error_format(client: httpx.AsyncClient, shop: Shop) -> None:
    headers = {**shop.headers(), "Authorization": f"Bearer {shop.account_token}"}
    response = await client.get("/v1/location", headers=headers)
    assert response.status_code == 400
    assert response.json() == {
        "error_type": "bad_request",
        "message": "X-Access-Token and Authorization: Bearer hold different tokens; send one",
    }
    assert response.headers["WWW-Authenticate"] == (
        'Bearer realm="comptoir", error="invalid_request", '
        'error_description="X-Access-Token and Authorization: Bearer hold different tokens; send one"'
    )


async def test_another_authorization_scheme_is_no_token(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.get("/v1/location", headers={"Authorization": "Basic YTpi"})
    assert response.status_code == 401
    assert response.json() == {"error_type": "unauthorized", "message": MISSING}


async def test_a_missing_token_is_challenged_without_an_error_code(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.get("/v1/location")
    assert response.status_code == 401
    assert response.json() == {"error_type": "unauthorized", "message": MISSING}
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="comptoir"'


async def test_an_unknown_token_is_challenged_with_invalid_token(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.get("/v1/location", headers={"Authorization": "Bearer nope"})
    assert response.status_code == 401
    assert response.json() == {"error_type": "unauthorized", "message": REVOKED}
    assert response.headers["WWW-Authenticate"] == (
        f'Bearer realm="comptoir", error="invalid_token", error_description="{REVOKED}"'
    )


async def test_a_revoked_token_is_challenged_with_invalid_token(
    client: httpx.AsyncClient, shop: Shop, database: Database
) -> None:
    async with database.transaction() as session:
        await session.execute(update(Connection).values(revoked_at=clock.now()))
    response = await client.get("/v1/location", headers=shop.headers())
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == (
        f'Bearer realm="comptoir", error="invalid_token", error_description="{REVOKED}"'
    )


async def test_a_scope_refusal_is_a_403_with_insufficient_scope(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.get("/v1/account", headers=shop.headers())
    assert response.status_code == 403
    message = response.json()["message"]
    assert message == "This endpoint needs an account-level token"
    assert response.headers["WWW-Authenticate"] == (
        f'Bearer realm="comptoir", error="insufficient_scope", error_description="{message}"'
    )


async def test_a_cors_preflight_allows_the_authorization_header(client: httpx.AsyncClient) -> None:
    response = await client.options(
        "/v1/location", headers={"Origin": "https://app.example", "Access-Control-Request-Method": "GET"}
    )
    assert response.status_code == 200
    allowed = [h.strip() for h in response.headers["Access-Control-Allow-Headers"].split(",")]
    assert "Authorization" in allowed
    assert "X-Access-Token" in allowed


async def test_the_challenge_is_exposed_to_browsers(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.get("/v1/location", headers={"Origin": "https://app.example"})
    exposed = [h.strip() for h in response.headers["Access-Control-Expose-Headers"].split(",")]
    assert "WWW-Authenticate" in exposed
