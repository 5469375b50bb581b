"""spec 8.2 through HTTP: 429 with Retry-After, rate-limit headers, COMPTOIR_RATE_LIMITS=off."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI

from comptoir.app import create_app
from comptoir.config import Settings
from comptoir.db.engine import Database
from comptoir.kit import clock
from tests.api.conftest import Shop
from tests.factories import World
from tests.response_schemas import CheckedASGITransport

START = datetime(2026, 3, 2, 10, 0, 0, tzinfo=UTC)


async def fill_minute(app: FastAPI, world: World, token: str, n: int = 500) -> None:
    from comptoir.connections.service import find_connection_by_token

    async with world.db.transaction() as session:
        connection = await find_connection_by_token(session, world.key, token)
    assert connection is not None
    for _ in range(n):
        await app.state.comptoir.limiter.hit(connection.id)


async def test_over_the_limit_is_429_with_retry_after(
    client: httpx.AsyncClient, shop: Shop, app: FastAPI, world: World
) -> None:
    clock.freeze(START + timedelta(seconds=15.5))
    await fill_minute(app, world, shop.location_token, 499)
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
    response = await client.get("/v1/location", headers=shop.headers())
    assert response.status_code == 429
    assert response.headers["Retry-After"] == "45"
    assert response.json() == {
        "error_type": "too_many_requests",
        "message": "Rate limit reached (minute); retry in 45 seconds",
    }
    assert response.headers["RateLimit"].startswith('"minute";r=0;t=45')
    # another connection of the same account is not limited
    assert (await client.get("/v1/account", headers=shop.headers(shop.account_token))).status_code == 200
    clock.freeze(START + timedelta(minutes=1))
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200


async def test_a_refused_write_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, app: FastAPI, world: World
) -> None:
    clock.freeze(START)
    await fill_minute(app, world, shop.location_token)
    before = await world.snapshot()
    response = await client.patch("/v1/location", json={"preparation_time": 3}, headers=shop.headers())
    assert (response.status_code, response.json()) == (
        429,
        {"error_type": "too_many_requests", "message": "Rate limit reached (minute); retry in 60 seconds"},
    )
    assert await world.snapshot() == before


async def test_responses_carry_ratelimit_headers(client: httpx.AsyncClient, shop: Shop) -> None:
    clock.freeze(START + timedelta(seconds=30))
    response = await client.get("/v1/location", headers=shop.headers())
    assert response.headers["RateLimit-Policy"] == '"minute";q=500;w=60, "hour";q=2500;w=3600, "day";q=10000;w=86400'
    assert response.headers["RateLimit"] == '"minute";r=499;t=30, "hour";r=2499;t=3570, "day";r=9999;t=50370'
    response = await client.get("/v1/location", headers=shop.headers())
    assert response.headers["RateLimit"] == '"minute";r=498;t=30, "hour";r=2498;t=3570, "day";r=9998;t=50370'


async def test_unauthenticated_requests_are_not_counted(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.get("/v1/location")
    assert "RateLimit" not in response.headers


@pytest.fixture
async def unlimited_client(settings: Settings, database: Database) -> AsyncIterator[tuple[httpx.AsyncClient, FastAPI]]:
    app = create_app(settings.model_copy(update={"rate_limits": "off"}), database=database, background=False)
    async with httpx.AsyncClient(transport=CheckedASGITransport(app=app), base_url="http://testserver") as http:
        yield http, app
    await app.state.comptoir.fast.close()


async def test_rate_limits_off_disables_them(
    unlimited_client: tuple[httpx.AsyncClient, FastAPI], shop: Shop, world: World
) -> None:
    client, app = unlimited_client
    clock.freeze(START)
    await fill_minute(app, world, shop.location_token, 600)
    response = await client.get("/v1/location", headers=shop.headers())
    assert response.status_code == 200
    assert "RateLimit" not in response.headers
