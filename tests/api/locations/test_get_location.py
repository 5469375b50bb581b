"""spec 2.3 Location, 4.8 GET /locations/:id and GET /location;
docs/api/conventions.md "Fields"."""

from __future__ import annotations

import httpx

from tests.api.conftest import Shop
from tests.factories import World


def expected_location(shop: Shop, location_id: str | None = None, **overrides: object) -> dict[str, object]:
    body: dict[str, object] = {
        "id": location_id or shop.location.public_id,
        "name": "Chez Ada Paris",
        "account": {"id": shop.account.public_id, "name": "Chez Ada", "currency": "EUR"},
        "address": None,
        "postal_code": None,
        "city": "Paris",
        "country": "FR",
        "timezone": {"name": "Europe/Paris", "offset": 3600},
        "cutoff_time": "06:00",
        "opening_hours": None,
        "preparation_time": 15,
        "order_acceptance": {"mode": "normal", "resume_at": None, "extra_preparation_time": None, "reason": None},
        "custom_fields": {},
    }
    body.update(overrides)
    return body


async def test_location_short_form_returns_the_connections_location(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.get("/v1/location", headers=shop.headers())
    assert response.status_code == 200
    assert response.json() == expected_location(shop)


async def test_location_id_is_account_id_dash_number(client: httpx.AsyncClient, shop: Shop) -> None:
    assert shop.location.public_id == f"{shop.account.public_id}-1"
    assert shop.other_location.public_id == f"{shop.account.public_id}-2"


async def test_get_location_by_id_with_location_token(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.get(f"/v1/locations/{shop.location.public_id}", headers=shop.headers())
    assert response.status_code == 200
    assert response.json() == expected_location(shop)


async def test_location_token_gets_404_for_another_location_of_its_account(
    client: httpx.AsyncClient, shop: Shop
) -> None:
    response = await client.get(f"/v1/locations/{shop.other_location.public_id}", headers=shop.headers())
    assert response.status_code == 404
    assert response.json()["error_type"] == "not_found"


async def test_account_token_reads_any_location_of_its_account(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.get(
        f"/v1/locations/{shop.other_location.public_id}", headers=shop.headers(shop.account_token)
    )
    assert response.status_code == 200
    assert response.json() == expected_location(shop, shop.other_location.public_id, name="Chez Ada Lyon", city="Lyon")


async def test_location_of_another_account_is_404_not_403(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    foreign = await world.location(name="Elsewhere")
    for token in (shop.location_token, shop.account_token):
        response = await client.get(f"/v1/locations/{foreign.public_id}", headers=shop.headers(token))
        assert response.status_code == 404
        assert response.json() == {"error_type": "not_found", "message": f"No location with id '{foreign.public_id}'"}


async def test_unknown_and_malformed_location_ids_are_404(client: httpx.AsyncClient, shop: Shop) -> None:
    for bad in (f"{shop.account.public_id}-9", "zzzzzz-1", "nonsense", f"{shop.account.public_id}-01", "-1"):
        response = await client.get(f"/v1/locations/{bad}", headers=shop.headers(shop.account_token))
        assert response.status_code == 404, bad
        assert response.json()["error_type"] == "not_found"


async def test_location_short_form_needs_a_location_token(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.get("/v1/location", headers=shop.headers(shop.account_token))
    assert response.status_code == 403
    assert response.json() == {"error_type": "forbidden", "message": "This endpoint needs a location-level token"}


async def test_timezone_offset_ignores_daylight_saving(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    from datetime import UTC, datetime

    from comptoir.kit import clock

    clock.freeze(datetime(2026, 7, 1, 12, tzinfo=UTC))  # summer: Paris is UTC+2, standard +1
    response = await client.get("/v1/location", headers=shop.headers())
    assert response.json()["timezone"] == {"name": "Europe/Paris", "offset": 3600}
    ny = await world.location(shop.account, name="NY", timezone="America/New_York", country="US")
    response = await client.get(f"/v1/locations/{ny.public_id}", headers=shop.headers(shop.account_token))
    assert response.json()["timezone"] == {"name": "America/New_York", "offset": -18000}
