"""docs/api/conventions.md "Null fields" on locations: `cutoff_time`, `preparation_time`,
`order_acceptance` and `custom_fields` sent as null change nothing; `opening_hours: null`
unsets the opening hours and `resume_at: null` means no automatic resume; a custom field's
key set to null is removed; a required field sent as null is a 422 naming it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from comptoir.kit import clock
from tests.api.conftest import Shop
from tests.factories import World

HOURS = {"monday": [{"from": "11:30", "to": "14:30"}]}


async def patch(client: httpx.AsyncClient, shop: Shop, body: Any) -> httpx.Response:
    return await client.patch("/v1/location", json=body, headers=shop.headers())


@pytest.fixture
async def configured(client: httpx.AsyncClient, shop: Shop) -> dict[str, Any]:
    body = {
        "cutoff_time": "04:00",
        "opening_hours": HOURS,
        "preparation_time": 25,
        "order_acceptance": {"mode": "busy", "extra_preparation_time": 10},
        "custom_fields": {"pos": "B-11", "floor": 2},
    }
    response = await patch(client, shop, body)
    assert response.status_code == 200, response.text
    return response.json()


async def test_null_fields_leave_the_location_unchanged(
    client: httpx.AsyncClient, shop: Shop, world: World, configured: dict[str, Any]
) -> None:
    before = await world.snapshot()
    body = {"cutoff_time": None, "preparation_time": None, "order_acceptance": None, "custom_fields": None}
    response = await patch(client, shop, body)
    assert response.status_code == 200
    assert response.json() == configured
    assert await world.snapshot() == before  # not even a location.update


async def test_null_opening_hours_unset_them(client: httpx.AsyncClient, shop: Shop, configured: dict[str, Any]) -> None:
    response = await patch(client, shop, {"opening_hours": None, "preparation_time": None})
    assert response.status_code == 200
    assert response.json() == {**configured, "opening_hours": None}


async def test_a_null_day_is_a_closed_day(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await patch(client, shop, {"opening_hours": {**HOURS, "tuesday": None}})
    assert response.status_code == 200
    assert response.json()["opening_hours"] == HOURS


async def test_a_null_resume_at_means_no_automatic_resume(
    client: httpx.AsyncClient, shop: Shop, configured: dict[str, Any]
) -> None:
    clock.freeze(datetime(2026, 6, 24, 10, 0, tzinfo=UTC))
    await patch(client, shop, {"order_acceptance": {"mode": "paused", "resume_at": "2026-06-24T13:30:00+02:00"}})
    body = {"order_acceptance": {"mode": "paused", "resume_at": None, "reason": None}}
    response = await patch(client, shop, body)
    assert response.status_code == 200
    assert response.json()["order_acceptance"] == {
        "mode": "paused",
        "resume_at": None,
        "extra_preparation_time": None,
        "reason": None,
    }


async def test_a_custom_field_set_to_null_is_removed(
    client: httpx.AsyncClient, shop: Shop, configured: dict[str, Any]
) -> None:
    response = await patch(client, shop, {"custom_fields": {"floor": None}})
    assert response.json() == {**configured, "custom_fields": {"pos": "B-11"}}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"order_acceptance": {"mode": None}}, "order_acceptance.mode"),
        ({"opening_hours": {"monday": [{"from": None, "to": "14:30"}]}}, "opening_hours.monday[0].from"),
        ({"opening_hours": {"monday": [{"from": "11:30", "to": None}]}}, "opening_hours.monday[0].to"),
    ],
)
async def test_a_required_field_sent_as_null_is_422_naming_it(
    client: httpx.AsyncClient, shop: Shop, world: World, configured: dict[str, Any], body: dict[str, Any], field: str
) -> None:
    before = await world.snapshot()
    response = await patch(client, shop, body)
    assert response.status_code == 422
    assert response.json()["errors"] == [{"field": field, "message": "is required"}]
    assert await world.snapshot() == before
