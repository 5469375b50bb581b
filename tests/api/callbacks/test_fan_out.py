"""spec 6.1 item 4, 6.2, 6.3 and docs/api/callbacks-events.md "Who receives an event": which
connections get an event of a change, and what it holds. The changes here are location updates."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx

from comptoir.db.engine import Database
from comptoir.kit import clock
from comptoir.locations.service import revert_due_acceptances
from tests.api.callbacks.conftest import Listener, subscribe, touch_location
from tests.api.conftest import Shop
from tests.factories import World


async def events_of(client: httpx.AsyncClient, token: str) -> list[dict[str, object]]:
    response = await client.get("/v1/callback/events", headers={"X-Access-Token": token})
    assert response.status_code == 200
    return response.json()


async def test_a_location_update_event_carries_ids_and_both_states(
    client: httpx.AsyncClient, shop: Shop, listener: Listener
) -> None:
    clock.freeze(datetime(2026, 6, 24, 15, 7, 53, tzinfo=UTC))
    await subscribe(client, listener.token, {"location": ["update"]})
    before = (await client.get("/v1/location", headers=shop.headers())).json()
    await touch_location(client, shop, 50)
    after = (await client.get("/v1/location", headers=shop.headers())).json()
    [listed] = await events_of(client, listener.token)
    full = (await client.get(f"/v1/callback/events/{listed['id']}", headers=listener.headers())).json()
    assert full == {
        "id": listed["id"],
        "resource_type": "location",
        "event_type": "update",
        "created_at": "2026-06-24T17:07:53+02:00",  # in the location's timezone
        "location_id": shop.location.public_id,
        "account_id": shop.account.public_id,
        "new_state": after,
        "previous_state": before,
    }


async def test_the_causing_clients_connections_get_no_event(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    # the shop's location token is a connection of a client; another connection of the same
    # client (another name) subscribes:
    # docs/api/callbacks-events.md "Who receives an event": suppression is per client
    from comptoir.models import Connection, OAuthClient

    async with world.db.transaction(write=False) as session:
        from sqlalchemy import select

        client_id = (await session.execute(select(Connection.client_id).order_by(Connection.id).limit(1))).scalar_one()
        same_client = await session.get(OAuthClient, client_id)
    sibling = await world.token("location[orders.read]", location=shop.location, client=same_client, name="till-2")
    await subscribe(client, sibling, {"location": ["update"]})
    await subscribe(client, shop.location_token, {"location": ["update"]})
    await touch_location(client, shop, 51)
    assert await events_of(client, sibling) == []
    assert await events_of(client, shop.location_token) == []


async def test_account_connections_receive_events_of_their_locations(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    other_app = await world.client(name="Group app")
    account_token = await world.token("account[orders.read]", account=shop.account, client=other_app)
    await subscribe(client, account_token, {"location": ["update"]})
    await touch_location(client, shop, 52)
    [event] = await events_of(client, account_token)
    assert event["location_id"] == shop.location.public_id


async def test_connections_without_access_get_nothing(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    app = await world.client(name="Outsider app")
    other_location = await world.token("location[orders.read]", location=shop.other_location, client=app)
    foreign_account = await world.account(name="Foreign")
    foreign = await world.token("account[orders.read]", account=foreign_account, client=app, name="f")
    for token in (other_location, foreign):
        await subscribe(client, token, {"location": ["update"]})
    await touch_location(client, shop, 53)
    assert await events_of(client, other_location) == []
    assert await events_of(client, foreign) == []


async def test_only_subscribed_combinations_produce_events(
    client: httpx.AsyncClient, shop: Shop, listener: Listener
) -> None:
    await subscribe(client, listener.token, {"order": ["create", "update"]})
    await touch_location(client, shop, 54)
    assert await events_of(client, listener.token) == []


async def test_custom_field_updates_emit_location_update(
    client: httpx.AsyncClient, shop: Shop, listener: Listener
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]})
    await client.patch("/v1/location", json={"custom_fields": {"pos_id": "A1"}}, headers=shop.headers())
    [event] = await events_of(client, listener.token)
    full = (await client.get(f"/v1/callback/events/{event['id']}", headers=listener.headers())).json()
    assert full["new_state"]["custom_fields"] == {"pos_id": "A1"}
    assert full["previous_state"]["custom_fields"] == {}


async def test_a_refused_write_emits_nothing(client: httpx.AsyncClient, shop: Shop, listener: Listener) -> None:
    await subscribe(client, listener.token, {"location": ["update"]})
    response = await client.patch(
        "/v1/location", json={"preparation_time": 1, "cutoff_time": "bad"}, headers=shop.headers()
    )
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"field": "cutoff_time", "message": "'bad' is not a valid time of day (expected HH:mm, e.g. \"06:00\")"}
    ]
    assert await events_of(client, listener.token) == []


async def test_resume_at_reversion_notifies_every_subscriber_including_the_client_that_paused(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, database: Database
) -> None:
    clock.freeze(datetime(2026, 6, 24, 10, tzinfo=UTC))
    await subscribe(client, listener.token, {"location": ["update"]})
    await subscribe(client, shop.location_token, {"location": ["update"]})
    body = {"order_acceptance": {"mode": "paused", "resume_at": "2026-06-24T12:30:00"}}
    await client.patch("/v1/location", json=body, headers=shop.headers())
    clock.travel(timedelta(minutes=31))
    assert await revert_due_acceptances(database) == 1
    assert len(await events_of(client, listener.token)) == 2  # the pause, then the reversion
    [reversion] = await events_of(client, shop.location_token)  # caused by the service
    full = (await client.get(f"/v1/callback/events/{reversion['id']}", headers=shop.headers())).json()
    assert full["previous_state"]["order_acceptance"]["mode"] == "paused"
    assert full["new_state"]["order_acceptance"]["mode"] == "normal"


async def test_revoked_connections_get_no_event(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, world: World
) -> None:
    from sqlalchemy import update

    from comptoir.models import Connection

    await subscribe(client, listener.token, {"location": ["update"]})
    async with world.db.transaction() as session:
        await session.execute(
            update(Connection).where(Connection.client_id == listener.client_id).values(revoked_at=clock.now())
        )
    await touch_location(client, shop, 55)
    async with world.db.transaction(write=False) as session:
        from sqlalchemy import func, select

        from comptoir.models import Event

        assert await session.scalar(select(func.count()).select_from(Event)) == 0
