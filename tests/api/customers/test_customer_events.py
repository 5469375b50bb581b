"""spec 6.2, 6.3 and docs/api/customers.md "Events": customer and customer_list events (ids, states, who
receives them); deleting a list and loyalty operations emit none."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx

from comptoir.kit import clock
from tests.api.callbacks.conftest import subscribe
from tests.api.conftest import Shop
from tests.api.customers.conftest import new_card, new_customer
from tests.factories import World

EVERYTHING = {"customer": ["create", "update"], "customer_list": ["create", "update", "delete"]}


async def listener(world: World, shop: Shop, client: httpx.AsyncClient, scope: str, **bind: Any) -> str:
    """A connection of another client, subscribed to every customer and list event."""
    token = await world.token(scope, client=await world.client(name="CRM"), **bind)
    await subscribe(client, token, EVERYTHING)
    return token


async def full_events(client: httpx.AsyncClient, token: str) -> list[dict[str, Any]]:
    listed = (await client.get("/v1/callback/events", headers={"X-Access-Token": token})).json()
    return [
        (await client.get(f"/v1/callback/events/{item['id']}", headers={"X-Access-Token": token})).json()
        for item in listed  # oldest first
    ]


async def test_customer_create_and_update_carry_ids_and_states(
    client: httpx.AsyncClient, shop: Shop, world: World, list_id: str
) -> None:
    token = await listener(world, shop, client, "account[all_customer_lists.read]", account=shop.account)
    clock.freeze(datetime(2026, 6, 24, 15, 7, 53, tzinfo=UTC))
    created = await new_customer(client, shop, list_id, {"first_name": "Ann", "private_ref": "mine"})
    updated = (
        await client.patch(
            f"/v1/customer_lists/{list_id}/customers/{created['id']}",
            json={"last_name": "Smith"},
            headers=shop.headers(),
        )
    ).json()
    create, update = await full_events(client, token)
    # the causing client's private ref is nobody else's business (spec 2.2 item 7)
    assert create == {
        "id": create["id"],
        "resource_type": "customer",
        "event_type": "create",
        "created_at": "2026-06-24T17:07:53+02:00",
        "customer_id": created["id"],
        "customer_list_id": list_id,
        "new_state": {**created, "private_ref": None},
    }
    assert update == {
        "id": update["id"],
        "resource_type": "customer",
        "event_type": "update",
        "created_at": "2026-06-24T17:07:53+02:00",
        "customer_id": created["id"],
        "customer_list_id": list_id,
        "new_state": {**updated, "private_ref": None},
        "previous_state": {**created, "private_ref": None},
    }


async def test_custom_fields_and_anonymisation_emit_updates_and_no_op_writes_do_not(
    client: httpx.AsyncClient, shop: Shop, world: World, list_id: str
) -> None:
    token = await listener(world, shop, client, "account[all_customer_lists.read]", account=shop.account)
    customer = await new_customer(client, shop, list_id, {"first_name": "Ann"})
    url = f"/v1/customer_lists/{list_id}/customers/{customer['id']}"
    await client.patch(url, json={"custom_fields": {"tier": "gold"}}, headers=shop.headers())
    await client.patch(url, json={"first_name": "Ann"}, headers=shop.headers())  # no change
    await client.patch(url, json={"private_ref": "p"}, headers=shop.headers())  # invisible to others
    anonymised = (await client.post(url + "/anonymise", headers=shop.headers())).json()
    events = await full_events(client, token)
    assert [(e["resource_type"], e["event_type"]) for e in events] == [
        ("customer", "create"),
        ("customer", "update"),
        ("customer", "update"),
    ]
    assert events[1]["new_state"]["custom_fields"] == {"tier": "gold"}
    assert events[2]["previous_state"]["first_name"] == "Ann"
    assert events[2]["new_state"] == {**anonymised, "private_ref": None}


async def test_loyalty_cards_and_operations_emit_no_customer_update(
    client: httpx.AsyncClient, shop: Shop, world: World, list_id: str
) -> None:
    token = await listener(world, shop, client, "account[all_customer_lists.read]", account=shop.account)
    customer = await new_customer(client, shop, list_id)
    card = await new_card(client, shop, list_id, customer["id"])
    await client.post(
        f"/v1/customer_lists/{list_id}/loyalty_cards/{card['id']}/operations",
        json={"delta": "1"},
        headers=shop.headers(),
    )
    assert [e["event_type"] for e in await full_events(client, token)] == ["create"]


async def test_list_create_and_rename_carry_the_list_id_and_states_and_delete_emits_none(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    token = await listener(world, shop, client, "account[all_customer_lists.read]", account=shop.account)
    clock.freeze(datetime(2026, 6, 24, 15, 7, 53, tzinfo=UTC))
    headers = shop.headers(shop.account_token)
    created = (
        await client.post(
            f"/v1/accounts/{shop.account.public_id}/customer_lists", json={"name": "VIP"}, headers=headers
        )
    ).json()
    renamed = (await client.patch(f"/v1/customer_lists/{created['id']}", json={"name": "VIP+"}, headers=headers)).json()
    assert (await client.delete(f"/v1/customer_lists/{created['id']}", headers=headers)).status_code == 200
    create, update = await full_events(client, token)
    assert create == {
        "id": create["id"],
        "resource_type": "customer_list",
        "event_type": "create",
        "created_at": "2026-06-24T15:07:53+00:00",
        "customer_list_id": created["id"],
        "new_state": created,
    }
    assert update == {
        "id": update["id"],
        "resource_type": "customer_list",
        "event_type": "update",
        "created_at": "2026-06-24T15:07:53+00:00",
        "customer_list_id": created["id"],
        "new_state": renamed,
        "previous_state": created,
    }


async def test_a_connection_bound_to_another_list_gets_no_event(
    client: httpx.AsyncClient, shop: Shop, world: World, list_id: str
) -> None:
    elsewhere = await world.customer_list(location=shop.location, name="Elsewhere")
    bound = await listener(
        world, shop, client, "location[customer_list.read]", location=shop.location, customer_list=elsewhere
    )
    other_location = await listener(
        world, shop, client, "location[all_customer_lists.read]", location=shop.other_location
    )
    await new_customer(client, shop, list_id)
    assert await full_events(client, bound) == []
    assert await full_events(client, other_location) == []


async def test_the_causing_client_gets_no_event(client: httpx.AsyncClient, shop: Shop, list_id: str) -> None:
    await subscribe(client, shop.location_token, EVERYTHING)
    await new_customer(client, shop, list_id)
    assert await full_events(client, shop.location_token) == []
