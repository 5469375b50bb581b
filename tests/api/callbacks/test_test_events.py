"""docs/api/callbacks-events.md "Testing, resending and replaying": a test event's id has an
event id's form (13 characters of the ids' alphabet) and is never a real event's, and its
`created_at` reads with the offset a real event of the connection would have: the location's
timezone for a location-level connection, UTC for an account-level one."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import httpx

from comptoir.callbacks.service import TEST_EVENT_KEYS
from comptoir.kit import clock, ids
from comptoir.models import Event
from tests.api.callbacks.conftest import Listener, new_listener, subscribe, touch_location
from tests.api.conftest import Shop
from tests.factories import World
from tests.receiver import Receiver

TEST_EVENT_ID = re.compile(f"[{ids.ALPHABET}]{{13}}")
REAL_EVENT_ID = re.compile(f"[{ids.ALPHABET}]{{6}}")


async def send_test(client: httpx.AsyncClient, token: str) -> dict[str, object]:
    response = await client.post("/v1/callback/test", headers={"X-Access-Token": token})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["delivered"] is True
    return body["event"]


async def test_a_test_events_id_has_an_events_form_but_is_never_a_real_events(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, receiver: Receiver
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    await touch_location(client, shop, 51)  # a real event, pending (no worker here)
    [real] = (await client.get("/v1/callback/events", headers=listener.headers())).json()
    assert REAL_EVENT_ID.fullmatch(real["id"])
    first, second = [await send_test(client, listener.token) for _ in range(2)]
    for event in (first, second):
        event_id = str(event["id"])
        assert TEST_EVENT_ID.fullmatch(event_id), event_id
        assert not event_id.startswith("test_")
        key = ids.decode(Event.KIND, event_id)
        assert key is not None
        assert key >= TEST_EVENT_KEYS  # beyond every key a real event gets
        read = await client.get(f"/v1/callback/events/{event_id}", headers=listener.headers())
        assert (read.status_code, read.json()) == (
            404,
            {"error_type": "not_found", "message": f"No event with id {event_id!r}"},
        )
    assert first["id"] != second["id"]
    assert [request.headers["webhook-id"] for request in receiver.requests_to("/hook")] == [first["id"], second["id"]]


async def test_a_location_connections_test_event_reads_its_time_in_the_locations_timezone(
    client: httpx.AsyncClient, listener: Listener, receiver: Receiver
) -> None:
    clock.freeze(datetime(2026, 6, 24, 15, 7, 53, tzinfo=UTC))
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    event = await send_test(client, listener.token)
    assert event["created_at"] == "2026-06-24T17:07:53+02:00"  # Paris, summer


async def test_an_account_connections_test_event_reads_its_time_in_utc(
    client: httpx.AsyncClient, shop: Shop, world: World, receiver: Receiver
) -> None:
    clock.freeze(datetime(2026, 6, 24, 15, 7, 53, tzinfo=UTC))
    token = await world.token("account[orders.read]", account=shop.account, client=await world.client(name="Books"))
    await subscribe(client, token, {"order": ["create"]}, receiver.url("/hook"))
    event = await send_test(client, token)
    assert event["created_at"] == "2026-06-24T15:07:53+00:00"


async def test_a_test_events_time_is_in_the_timezone_of_the_connections_own_location(
    client: httpx.AsyncClient, shop: Shop, world: World, receiver: Receiver
) -> None:
    clock.freeze(datetime(2026, 1, 15, 12, 0, 0, tzinfo=UTC))
    location = await world.location(shop.account, name="Chez Ada Montréal", timezone="America/Montreal")
    other = await new_listener(world, Shop(shop.account, location, shop.other_location, "", ""), "Montreal app")
    await subscribe(client, other.token, {"location": ["update"]}, receiver.url("/hook"))
    event = await send_test(client, other.token)
    assert event["created_at"] == "2026-01-15T07:00:00-05:00"
