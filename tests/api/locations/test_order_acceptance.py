"""spec 2.3 OrderAcceptance (three shapes), 3.3 resume_at reversion,
docs/api/locations-accounts.md "Resuming"."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from comptoir.db.engine import Database
from comptoir.kit import clock
from comptoir.locations.service import revert_due_acceptances
from tests.api.conftest import Shop
from tests.factories import World

NOON = datetime(2026, 6, 24, 10, 0, tzinfo=UTC)  # 12:00 in Paris (UTC+2)


async def patch(client: httpx.AsyncClient, shop: Shop, acceptance: Any) -> httpx.Response:
    return await client.patch("/v1/location", json={"order_acceptance": acceptance}, headers=shop.headers())


async def acceptance(client: httpx.AsyncClient, shop: Shop) -> dict[str, Any]:
    return (await client.get("/v1/location", headers=shop.headers())).json()["order_acceptance"]


async def test_busy_with_resume_at_and_extra_time(client: httpx.AsyncClient, shop: Shop) -> None:
    clock.freeze(NOON)
    response = await patch(
        client, shop, {"mode": "busy", "resume_at": "2026-06-24T13:30:00+02:00", "extra_preparation_time": 20}
    )
    assert response.status_code == 200
    assert response.json()["order_acceptance"] == {
        "mode": "busy",
        "resume_at": "2026-06-24T13:30:00+02:00",
        "extra_preparation_time": 20,
        "reason": None,
    }


async def test_resume_at_without_offset_is_read_in_the_location_timezone(client: httpx.AsyncClient, shop: Shop) -> None:
    clock.freeze(NOON)
    response = await patch(client, shop, {"mode": "paused", "resume_at": "2026-06-24T13:30:00", "reason": "Full"})
    assert response.json()["order_acceptance"]["resume_at"] == "2026-06-24T13:30:00+02:00"


async def test_resume_at_in_another_offset_is_shown_in_the_location_timezone(
    client: httpx.AsyncClient, shop: Shop
) -> None:
    clock.freeze(NOON)
    response = await patch(client, shop, {"mode": "paused", "resume_at": "2026-06-24T11:45:30.250Z"})
    assert response.json()["order_acceptance"]["resume_at"] == "2026-06-24T13:45:30+02:00"


async def test_paused_without_resume_at_stays_until_changed(
    client: httpx.AsyncClient, shop: Shop, database: Database
) -> None:
    clock.freeze(NOON)
    await patch(client, shop, {"mode": "paused"})
    clock.travel(timedelta(days=30))
    assert await revert_due_acceptances(database) == 0
    assert (await acceptance(client, shop))["mode"] == "paused"


async def test_normal_clears_the_other_fields(client: httpx.AsyncClient, shop: Shop) -> None:
    clock.freeze(NOON)
    await patch(client, shop, {"mode": "busy", "resume_at": "2026-06-24T13:30:00", "extra_preparation_time": 10})
    response = await patch(client, shop, {"mode": "normal"})
    assert response.json()["order_acceptance"] == {
        "mode": "normal",
        "resume_at": None,
        "extra_preparation_time": None,
        "reason": None,
    }


async def test_nulls_of_other_shapes_are_accepted_as_read(client: httpx.AsyncClient, shop: Shop) -> None:
    # what GET returns can be written back
    response = await patch(
        client, shop, {"mode": "normal", "resume_at": None, "extra_preparation_time": None, "reason": None}
    )
    assert response.status_code == 200
    assert response.json()["order_acceptance"] == {
        "mode": "normal",
        "resume_at": None,
        "extra_preparation_time": None,
        "reason": None,
    }


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        ({"mode": "busy"}, [("order_acceptance.extra_preparation_time", "is required when mode is busy")]),
        (
            {"mode": "busy", "extra_preparation_time": -1},
            [("order_acceptance.extra_preparation_time", "must be between 0 and 10080 minutes")],
        ),
        (
            {"mode": "busy", "extra_preparation_time": 5, "reason": "x"},
            [("order_acceptance.reason", "is not allowed when mode is busy")],
        ),
        (
            {"mode": "paused", "extra_preparation_time": 5},
            [("order_acceptance.extra_preparation_time", "is not allowed when mode is paused")],
        ),
        (
            {"mode": "normal", "resume_at": "2026-06-24T13:00:00"},
            [("order_acceptance.resume_at", "is not allowed when mode is normal")],
        ),
        ({"mode": "normal", "reason": "x"}, [("order_acceptance.reason", "is not allowed when mode is normal")]),
        (
            {"mode": "paused", "resume_at": "2026-06-24T11:59:59"},
            [("order_acceptance.resume_at", "must be in the future")],
        ),
        (
            {"mode": "paused", "resume_at": "tomorrow"},
            [
                (
                    "order_acceptance.resume_at",
                    "'tomorrow' is not a valid ISO 8601 time (expected e.g. \"2026-06-24T17:07:53+02:00\")",
                )
            ],
        ),
        (
            {"mode": "busy", "extra_preparation_time": "5"},
            [("order_acceptance.extra_preparation_time", "must be an integer")],
        ),
        ({"mode": "paused", "reason": 5}, [("order_acceptance.reason", "must be a string")]),
    ],
)
async def test_shapes_other_than_the_three_are_refused(
    client: httpx.AsyncClient, shop: Shop, world: World, body: dict[str, Any], errors: list[tuple[str, str]]
) -> None:
    clock.freeze(NOON)
    before = await world.snapshot()
    response = await patch(client, shop, body)
    assert response.status_code == 422
    assert [(e["field"], e["message"]) for e in response.json()["errors"]] == errors
    assert await world.snapshot() == before


async def test_resume_at_reverts_to_normal_and_records_an_update(
    client: httpx.AsyncClient, shop: Shop, world: World, database: Database
) -> None:
    clock.freeze(NOON)
    await patch(client, shop, {"mode": "busy", "resume_at": "2026-06-24T12:30:00", "extra_preparation_time": 15})
    busy = (await client.get("/v1/location", headers=shop.headers())).json()
    clock.travel(timedelta(minutes=29, seconds=59))
    assert await revert_due_acceptances(database) == 0
    clock.travel(timedelta(seconds=1))
    assert await revert_due_acceptances(database) == 1
    assert await revert_due_acceptances(database) == 0  # idempotent
    row = await world.location_row(shop.location)
    assert (row.acceptance_mode, row.acceptance_resume_at, row.acceptance_extra_preparation_time) == (
        "normal",
        None,
        None,
    )
    update, reversion = await world.changes()
    assert reversion.previous_state == busy
    assert reversion.new_state == {
        **busy,
        "order_acceptance": {"mode": "normal", "resume_at": None, "extra_preparation_time": None, "reason": None},
    }
    assert reversion.connection_id is None  # caused by the service, delivered to every client
    assert reversion.client_id is None
    assert update.connection_id is not None


async def test_a_passed_resume_at_reads_as_normal_before_the_job_runs(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    clock.freeze(NOON)
    await patch(client, shop, {"mode": "paused", "resume_at": "2026-06-24T12:05:00"})
    clock.travel(timedelta(minutes=5))
    assert (await acceptance(client, shop)) == {
        "mode": "normal",
        "resume_at": None,
        "extra_preparation_time": None,
        "reason": None,
    }


async def test_a_patch_after_resume_at_first_records_the_reversion(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    clock.freeze(NOON)
    await patch(client, shop, {"mode": "paused", "resume_at": "2026-06-24T12:05:00"})
    clock.travel(timedelta(minutes=10))
    response = await client.patch("/v1/location", json={"preparation_time": 30}, headers=shop.headers())
    assert response.json()["order_acceptance"]["mode"] == "normal"
    _pause, reversion, update = await world.changes()
    assert reversion.previous_state["order_acceptance"]["mode"] == "paused"
    assert reversion.new_state["order_acceptance"]["mode"] == "normal"
    assert update.previous_state["preparation_time"] == 15
    assert update.new_state["preparation_time"] == 30
