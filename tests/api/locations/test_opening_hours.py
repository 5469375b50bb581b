"""spec 2.3 OpeningHours items 1-4 and docs/api/locations-accounts.md "Opening hours"
(cutoff rule)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.conftest import Shop
from tests.factories import World


def slots(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"from": a, "to": b} for a, b in pairs]


async def patch(client: httpx.AsyncClient, shop: Shop, body: dict[str, Any]) -> httpx.Response:
    return await client.patch("/v1/location", json=body, headers=shop.headers())


async def test_a_day_without_key_or_with_an_empty_array_is_closed(client: httpx.AsyncClient, shop: Shop) -> None:
    hours = {"monday": slots(("12:00", "14:00")), "tuesday": []}
    response = await patch(client, shop, {"opening_hours": hours})
    assert response.status_code == 200
    assert response.json()["opening_hours"] == hours


async def test_null_unsets_opening_hours(client: httpx.AsyncClient, shop: Shop) -> None:
    await patch(client, shop, {"opening_hours": {"friday": slots(("09:00", "17:00"))}})
    response = await patch(client, shop, {"opening_hours": None})
    assert response.status_code == 200
    assert response.json()["opening_hours"] is None


async def test_a_week_needs_at_least_one_slot(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    before = await world.snapshot()
    for hours in ({}, {"monday": [], "sunday": []}):
        response = await patch(client, shop, {"opening_hours": hours})
        assert response.status_code == 422
        assert response.json()["errors"] == [
            {"field": "opening_hours", "message": "must have at least one slot in the week (or be null)"}
        ]
    assert await world.snapshot() == before


async def test_to_must_follow_from(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    before = await world.snapshot()
    response = await patch(client, shop, {"opening_hours": {"monday": slots(("12:00", "14:00"), ("15:00", "15:00"))}})
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {
            "field": "opening_hours.monday[1].to",
            "message": "15:00 does not follow 15:00: with cutoff_time 06:00, times before 06:00 belong to the next day",
        }
    ]
    assert await world.snapshot() == before


async def test_slots_of_one_day_must_not_overlap(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await patch(client, shop, {"opening_hours": {"monday": slots(("18:00", "23:00"), ("12:00", "18:30"))}})
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"field": "opening_hours.monday[0]", "message": "overlaps opening_hours.monday[1]"}
    ]


async def test_adjacent_slots_do_not_overlap(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await patch(client, shop, {"opening_hours": {"monday": slots(("12:00", "14:00"), ("14:00", "16:00"))}})
    assert response.status_code == 200
    assert response.json()["opening_hours"] == {"monday": slots(("12:00", "14:00"), ("14:00", "16:00"))}


async def test_slots_of_different_days_may_share_times(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await patch(
        client, shop, {"opening_hours": {"monday": slots(("18:00", "23:00")), "tuesday": slots(("18:00", "23:00"))}}
    )
    assert response.status_code == 200
    assert response.json()["opening_hours"] == {
        "monday": slots(("18:00", "23:00")),
        "tuesday": slots(("18:00", "23:00")),
    }


async def test_a_to_before_the_cutoff_spans_midnight(client: httpx.AsyncClient, shop: Shop) -> None:
    # spec 2.3 item 4, with the default cutoff 06:00: 18:00-01:00 ends at 01:00 the next day
    response = await patch(client, shop, {"opening_hours": {"saturday": slots(("18:00", "01:00"))}})
    assert response.status_code == 200
    assert response.json()["opening_hours"] == {"saturday": slots(("18:00", "01:00"))}


async def test_with_cutoff_midnight_a_slot_ending_at_one_after_eighteen_is_rejected(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    # spec 2.3 item 4, word for word
    before = await world.snapshot()
    response = await patch(
        client, shop, {"cutoff_time": "00:00", "opening_hours": {"saturday": slots(("18:00", "01:00"))}}
    )
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {
            "field": "opening_hours.saturday[0].to",
            "message": "01:00 does not follow 18:00: with cutoff_time 00:00, times before 00:00 belong to the next day",
        }
    ]
    assert await world.snapshot() == before


async def test_a_from_before_the_cutoff_belongs_to_the_next_day_too(client: httpx.AsyncClient, shop: Shop) -> None:
    # docs/api/locations-accounts.md "Opening hours": any time (from or to) earlier than
    # cutoff_time belongs to the next day: 01:00-03:00 is the small hours after the day's
    # evening, and does not overlap 18:00-23:00
    ok = await patch(client, shop, {"opening_hours": {"friday": slots(("18:00", "23:00"), ("01:00", "03:00"))}})
    assert ok.status_code == 200
    assert ok.json()["opening_hours"] == {"friday": slots(("18:00", "23:00"), ("01:00", "03:00"))}
    # 05:00-23:00: from is the next day's 05:00, to this day's 23:00: rejected
    refused = await patch(client, shop, {"opening_hours": {"friday": slots(("05:00", "23:00"))}})
    assert refused.status_code == 422
    assert refused.json()["errors"] == [
        {
            "field": "opening_hours.friday[0].to",
            "message": "23:00 does not follow 05:00: with cutoff_time 06:00, times before 06:00 belong to the next day",
        }
    ]


async def test_a_slot_spanning_midnight_overlaps_a_small_hours_slot(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await patch(client, shop, {"opening_hours": {"friday": slots(("22:00", "02:00"), ("01:00", "04:00"))}})
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"field": "opening_hours.friday[1]", "message": "overlaps opening_hours.friday[0]"}
    ]


async def test_changing_the_cutoff_revalidates_the_stored_hours(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await patch(client, shop, {"opening_hours": {"saturday": slots(("18:00", "01:00"))}})
    before = await world.snapshot()
    response = await patch(client, shop, {"cutoff_time": "00:00"})
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "opening_hours.saturday[0].to"
    assert await world.snapshot() == before
    assert (await patch(client, shop, {"cutoff_time": "02:00"})).status_code == 200


@pytest.mark.parametrize(
    ("hours", "field", "message"),
    [
        (
            {"monday": [{"from": "9:00", "to": "12:00"}]},
            "opening_hours.monday[0].from",
            "'9:00' is not a valid time of day (expected HH:mm, e.g. \"06:00\")",
        ),
        ({"monday": [{"from": "09:00"}]}, "opening_hours.monday[0].to", "is required"),
        (
            {"monday": [{"from": "09:00", "to": "25:00"}]},
            "opening_hours.monday[0].to",
            "'25:00' is not a valid time of day (expected HH:mm, e.g. \"06:00\")",
        ),
        ({"monday": {"from": "09:00", "to": "12:00"}}, "opening_hours.monday", "must be an array"),
        ([], "opening_hours", "must be a JSON object"),
    ],
)
async def test_malformed_opening_hours_name_the_field(
    client: httpx.AsyncClient, shop: Shop, hours: Any, field: str, message: str
) -> None:
    response = await patch(client, shop, {"opening_hours": hours})
    assert response.status_code == 422
    assert response.json()["errors"] == [{"field": field, "message": message}]


async def test_unknown_day_keys_are_ignored(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await patch(client, shop, {"opening_hours": {"monday": slots(("09:00", "12:00")), "holidays": []}})
    assert response.status_code == 200
    assert response.json()["opening_hours"] == {"monday": slots(("09:00", "12:00"))}
