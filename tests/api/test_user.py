"""spec 2.3 User and 4.8 GET /user: profile scopes; email only with profile_with_email."""

from __future__ import annotations

import httpx

from tests.api.conftest import Shop
from tests.factories import World


async def test_user_with_profile_with_email(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    response = await client.get("/v1/user", headers=shop.headers())
    assert response.status_code == 200
    body = response.json()
    assert body == {
        "id": body["id"],
        "first_name": "Ada",
        "last_name": "Lovelace",
        "timezone": {"name": "UTC", "offset": 0},
        "locales": ["en-GB"],
        "email": "owner@example.com",
    }
    assert len(body["id"]) == 6


async def test_profile_scope_hides_the_email(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    token = await world.token("location[orders.read],profile", location=shop.location)
    response = await client.get("/v1/user", headers=shop.headers(token))
    assert response.status_code == 200
    assert "email" not in response.json()
    assert response.json()["first_name"] == "Ada"


async def test_a_profile_only_connection_reads_the_user_and_nothing_else(
    client: httpx.AsyncClient, world: World
) -> None:
    user = await world.user(email="solo@example.com", timezone="Europe/London", locales=["en-GB", "fr-FR"])
    token = await world.token("profile_with_email", user=user)
    response = await client.get("/v1/user", headers={"X-Access-Token": token})
    assert response.status_code == 200
    assert response.json()["email"] == "solo@example.com"
    assert response.json()["timezone"] == {"name": "Europe/London", "offset": 0}
    assert response.json()["locales"] == ["en-GB", "fr-FR"]
    response = await client.get("/v1/location", headers={"X-Access-Token": token})
    assert response.status_code == 403
    response = await client.get("/v1/locations/x-1", headers={"X-Access-Token": token})
    assert response.status_code == 403
    assert response.json() == {
        "error_type": "forbidden",
        "message": "This endpoint needs a location-level or account-level token",
    }


async def test_user_needs_a_profile_scope(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    token = await world.token("location[orders.read]", location=shop.location)
    response = await client.get("/v1/user", headers=shop.headers(token))
    assert response.status_code == 403
    assert response.json() == {
        "error_type": "forbidden",
        "message": "The connection's scope (location[orders.read]) does not allow this request: it needs the profile or profile_with_email scope",
    }
