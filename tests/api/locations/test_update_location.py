"""spec 4.8 PATCH /locations/:id and /location; spec 2.2 custom fields;
docs/architecture.md "Tests": refusals change nothing, writes record a location update
(docs/api/callbacks-events.md "Event payloads")."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.conftest import Shop
from tests.factories import World


async def patch(
    client: httpx.AsyncClient, shop: Shop, body: Any, token: str | None = None, path: str = "/v1/location"
) -> httpx.Response:
    return await client.patch(path, json=body, headers=shop.headers(token))


async def test_patch_updates_the_five_updatable_fields(client: httpx.AsyncClient, shop: Shop) -> None:
    body = {
        "cutoff_time": "04:00",
        "opening_hours": {"monday": [{"from": "11:30", "to": "14:00"}, {"from": "18:30", "to": "23:00"}]},
        "preparation_time": 25,
        "order_acceptance": {"mode": "paused", "reason": "Kitchen closed"},
        "custom_fields": {"pos": {"table_count": 12}},
    }
    response = await patch(client, shop, body)
    assert response.status_code == 200
    location = response.json()
    assert location["cutoff_time"] == "04:00"
    assert location["opening_hours"] == body["opening_hours"]
    assert location["preparation_time"] == 25
    assert location["order_acceptance"] == {
        "mode": "paused",
        "resume_at": None,
        "extra_preparation_time": None,
        "reason": "Kitchen closed",
    }
    assert location["custom_fields"] == {"pos": {"table_count": 12}}
    assert (await client.get("/v1/location", headers=shop.headers())).json() == location


async def test_put_is_accepted_wherever_patch_is(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.put("/v1/location", json={"preparation_time": 30}, headers=shop.headers())
    assert response.status_code == 200
    assert response.json()["preparation_time"] == 30
    response = await client.put(
        f"/v1/locations/{shop.location.public_id}", json={"preparation_time": 31}, headers=shop.headers()
    )
    assert response.json()["preparation_time"] == 31


async def test_account_token_patches_a_location_by_id(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await patch(
        client, shop, {"preparation_time": 40}, shop.account_token, f"/v1/locations/{shop.other_location.public_id}"
    )
    assert response.status_code == 200
    assert response.json()["id"] == shop.other_location.public_id
    assert response.json()["preparation_time"] == 40


async def test_other_fields_are_ignored_including_name(client: httpx.AsyncClient, shop: Shop) -> None:
    # spec 2.3: name changes only from the back office; docs/api/conventions.md "Requests": unknown and
    # read-only fields are ignored
    response = await patch(
        client, shop, {"name": "Renamed", "id": "x", "country": "DE", "unknown": 1, "preparation_time": 5}
    )
    assert response.status_code == 200
    assert response.json()["name"] == "Chez Ada Paris"
    assert response.json()["country"] == "FR"
    assert response.json()["preparation_time"] == 5


async def test_empty_patch_changes_nothing_and_records_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    read = (await client.get("/v1/location", headers=shop.headers())).json()
    before = await world.snapshot()
    response = await patch(client, shop, {})
    assert (response.status_code, response.json()) == (200, read)
    assert await world.snapshot() == before


async def test_update_records_a_location_change_with_both_states(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    before = (await client.get("/v1/location", headers=shop.headers())).json()
    after = (await patch(client, shop, {"preparation_time": 22})).json()
    [change] = await world.changes()
    assert (change.resource_type, change.event_type) == ("location", "update")
    assert change.ids == {"location_id": shop.location.public_id, "account_id": shop.account.public_id}
    assert change.previous_state == before
    assert change.new_state == after
    assert change.location_id == shop.location.id
    assert change.account_id == shop.account.id
    assert change.connection_id is not None
    assert change.client_id is not None


async def test_patch_with_the_same_values_records_no_change(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await patch(client, shop, {"preparation_time": 15, "cutoff_time": "06:00"})
    assert await world.changes() == []


# --- custom fields (spec 2.2) ------------------------------------------------------------


async def test_custom_fields_merge_add_replace_remove_keep(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    await patch(client, shop, {"custom_fields": {"a": 1, "b": {"nested": [1, 2]}, "c": "keep"}})
    response = await patch(client, shop, {"custom_fields": {"a": None, "b": "replaced", "d": True}})
    assert response.json()["custom_fields"] == {"b": "replaced", "c": "keep", "d": True}
    changes = await world.changes()
    assert len(changes) == 2  # spec 2.2 item 6: custom field updates trigger the update event


async def test_custom_field_numbers_keep_their_exact_text(client: httpx.AsyncClient, shop: Shop) -> None:
    content = b'{"custom_fields": {"ratio": 0.10000000000000000001, "big": 12345678901234567890}}'
    response = await client.patch(
        "/v1/location", content=content, headers={**shop.headers(), "Content-Type": "application/json"}
    )
    assert response.status_code == 200
    assert b'"ratio":0.10000000000000000001' in response.content
    assert b'"big":12345678901234567890' in response.content


@pytest.mark.parametrize("value", [[1, 2], "text", 3])
async def test_custom_fields_must_be_an_object(client: httpx.AsyncClient, shop: Shop, world: World, value: Any) -> None:
    before = await world.snapshot()
    response = await patch(client, shop, {"custom_fields": value})
    assert response.status_code == 422
    assert response.json()["errors"] == [{"field": "custom_fields", "message": "must be a JSON object"}]
    assert await world.snapshot() == before


async def test_custom_fields_larger_than_8_kb_are_refused(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    await patch(client, shop, {"custom_fields": {"a": "x" * 4000}})
    before = await world.snapshot()
    response = await patch(client, shop, {"custom_fields": {"b": "y" * 4200}})  # merged result exceeds 8192 bytes
    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert error["field"] == "custom_fields"
    assert error["message"].startswith("must not exceed 8192 bytes as JSON")
    assert await world.snapshot() == before


async def test_custom_fields_of_exactly_8_kb_are_accepted(client: httpx.AsyncClient, shop: Shop) -> None:
    value = "x" * (8192 - len('{"k":""}'))
    response = await patch(client, shop, {"custom_fields": {"k": value}})
    assert (response.status_code, response.json()["custom_fields"]) == (200, {"k": value})


# --- refusals ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"cutoff_time": "6:00"}, "cutoff_time", "'6:00' is not a valid time of day (expected HH:mm, e.g. \"06:00\")"),
        (
            {"cutoff_time": "24:00"},
            "cutoff_time",
            "'24:00' is not a valid time of day (expected HH:mm, e.g. \"06:00\")",
        ),
        ({"preparation_time": "20"}, "preparation_time", "must be an integer"),
        ({"preparation_time": 20.5}, "preparation_time", "must be an integer"),
        ({"preparation_time": -1}, "preparation_time", "must be between 0 and 10080 minutes"),
        ({"order_acceptance": []}, "order_acceptance", "must be a JSON object"),
        ({"order_acceptance": {}}, "order_acceptance.mode", "is required"),
        ({"order_acceptance": {"mode": "closed"}}, "order_acceptance.mode", "must be 'normal', 'busy' or 'paused'"),
    ],
)
async def test_invalid_values_are_422_naming_the_field(
    client: httpx.AsyncClient, shop: Shop, world: World, body: dict[str, Any], field: str, message: str
) -> None:
    before = await world.snapshot()
    response = await patch(client, shop, body)
    assert response.status_code == 422
    assert response.json() == {
        "error_type": "unprocessable_entity",
        "message": f"{field}: {message}",
        "errors": [{"field": field, "message": message}],
    }
    assert await world.snapshot() == before


async def test_every_invalid_field_is_reported_at_once(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await patch(
        client,
        shop,
        {"preparation_time": -5, "order_acceptance": {"mode": "busy"}, "opening_hours": {"monday": []}},
    )
    assert response.status_code == 422
    assert [e["field"] for e in response.json()["errors"]] == [
        "opening_hours",
        "preparation_time",
        "order_acceptance.extra_preparation_time",
    ]


async def test_a_refused_patch_changes_nothing_even_when_other_fields_are_valid(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    before = await world.snapshot()
    response = await patch(client, shop, {"preparation_time": 45, "custom_fields": {"a": 1}, "cutoff_time": "bad"})
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"field": "cutoff_time", "message": "'bad' is not a valid time of day (expected HH:mm, e.g. \"06:00\")"}
    ]
    assert await world.snapshot() == before


async def test_patch_needs_a_write_permission(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    read_only = await world.token(
        "location[orders.read,catalog.read]",
        location=shop.location,
        catalog=await world.catalog(location=shop.location, name="RO"),
    )
    before = await world.snapshot()
    response = await patch(client, shop, {"preparation_time": 1}, read_only)
    assert response.status_code == 403
    assert response.json() == {
        "error_type": "forbidden",
        "message": "The connection's scope (location[orders.read,catalog.read]) does not allow this request: it needs a write permission",
    }
    assert await world.snapshot() == before
    read = await client.get("/v1/location", headers=shop.headers(read_only))
    assert (read.status_code, read.json()["id"], read.json()["preparation_time"]) == (
        200,
        shop.location.public_id,
        shop.location.preparation_time,
    )


async def test_patch_of_a_location_out_of_reach_is_404_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    before = await world.snapshot()
    response = await patch(client, shop, {"preparation_time": 1}, path=f"/v1/locations/{shop.other_location.public_id}")
    assert (response.status_code, response.json()) == (
        404,
        {"error_type": "not_found", "message": f"No location with id {shop.other_location.public_id!r}"},
    )
    assert await world.snapshot() == before
