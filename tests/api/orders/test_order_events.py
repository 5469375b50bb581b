"""spec 6.2, 6.3 and docs/api/orders.md "Events": order.create, order.update and
own_order.update events, with order_id and location_id, states without private refs."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx

from comptoir.kit import clock
from tests.api.callbacks.conftest import subscribe
from tests.api.conftest import Shop
from tests.api.orders.conftest import created, order
from tests.factories import World


async def full_events(client: httpx.AsyncClient, token: str) -> list[dict]:
    headers = {"X-Access-Token": token}
    listed = (await client.get("/v1/callback/events", headers=headers)).json()
    return [(await client.get(f"/v1/callback/events/{e['id']}", headers=headers)).json() for e in listed]


async def test_create_and_update_events_carry_ids_and_states(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    listener = await world.token("account[orders.read]", account=shop.account, client=await world.client("POS"))
    await subscribe(client, listener, {"order": ["create", "update"]})
    clock.freeze(datetime(2026, 6, 24, 15, 7, 53, tzinfo=UTC))
    placed = await created(client, shop, order())
    response = await client.patch(
        f"/v1/location/orders/{placed['id']}", json={"status": "accepted"}, headers=shop.headers()
    )
    updated = response.json()

    def without_refs(read: dict) -> dict:
        copy = {**read, "private_ref": None}
        for collection in ("items", "discounts", "charges", "payments"):
            copy[collection] = [{**e, "private_ref": None} for e in read[collection]]
        return copy

    create, update = await full_events(client, listener)
    head = {"created_at": "2026-06-24T17:07:53+02:00", "order_id": placed["id"], "location_id": shop.location.public_id}
    assert create == {
        "id": create["id"],
        "resource_type": "order",
        "event_type": "create",
        **head,
        "new_state": without_refs(placed),
    }
    assert update == {
        "id": update["id"], "resource_type": "order", "event_type": "update", **head,
        "new_state": without_refs(updated), "previous_state": without_refs(placed),
    }  # fmt: skip


async def test_own_order_update_reaches_the_creating_connection_only(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    marketplace = await world.client("Marketplace")
    creator = await world.token("location[orders.write]", location=shop.location, client=marketplace)
    sibling = await world.token("location[orders.write]", location=shop.location, client=await world.client("Other"))
    await subscribe(client, creator, {"own_order": ["update"]})
    await subscribe(client, sibling, {"own_order": ["update"]})
    placed = await created(client, shop, {"status": "new"}, creator)
    await client.patch(f"/v1/location/orders/{placed['id']}", json={"status": "accepted"}, headers=shop.headers())
    [event] = await full_events(client, creator)
    assert (event["resource_type"], event["event_type"], event["order_id"]) == ("own_order", "update", placed["id"])
    assert await full_events(client, sibling) == []


async def test_the_causing_client_gets_no_event(client: httpx.AsyncClient, shop: Shop) -> None:
    await subscribe(client, shop.location_token, {"order": ["create", "update"]})
    await created(client, shop, {"status": "new"})
    assert await full_events(client, shop.location_token) == []
