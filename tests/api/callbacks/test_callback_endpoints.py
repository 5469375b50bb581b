"""spec 4.9 and 6.1-6.2: the callback of a connection, its events, polling and acknowledging."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from comptoir.auth.tokens import REVOKED
from tests.api.callbacks.conftest import PUBLIC, Listener, fake_dns, subscribe, touch_location
from tests.api.conftest import Shop
from tests.factories import World

ENABLED = {"disabled_at": None, "disabled_reason": None}


@pytest.fixture(autouse=True)
def public_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """The callback host names of these tests resolve to a public address, as a receiver's would."""
    fake_dns(monkeypatch, {"pos.example": PUBLIC})


async def test_no_callback_reads_as_null_url_and_empty_events(client: httpx.AsyncClient, listener: Listener) -> None:
    response = await client.get("/v1/callback", headers=listener.headers())
    assert response.status_code == 200
    assert response.json() == {"url": None, "events": {}, **ENABLED}


async def test_post_creates_then_replaces_the_one_callback(client: httpx.AsyncClient, listener: Listener) -> None:
    body = {
        "url": "https://pos.example/hooks/comptoir",
        "events": {"order": ["create", "update"], "location": ["update"]},
    }
    response = await client.post("/v1/callback", json=body, headers=listener.headers())
    assert response.status_code == 200
    assert response.json() == {**body, **ENABLED}
    assert (await client.get("/v1/callback", headers=listener.headers())).json() == {**body, **ENABLED}
    replaced = {"url": None, "events": {"location": ["update"]}, **ENABLED}
    assert (await client.post("/v1/callback", json=replaced, headers=listener.headers())).json() == replaced
    assert (await client.get("/v1/callback", headers=listener.headers())).json() == replaced


async def test_an_absent_url_is_a_passive_callback(client: httpx.AsyncClient, listener: Listener) -> None:
    response = await client.post("/v1/callback", json={"events": {"location": ["update"]}}, headers=listener.headers())
    assert response.json() == {"url": None, "events": {"location": ["update"]}, **ENABLED}


async def test_repeated_event_types_are_kept_once(client: httpx.AsyncClient, listener: Listener) -> None:
    response = await client.post(
        "/v1/callback", json={"events": {"order": ["update", "create", "update"]}}, headers=listener.headers()
    )
    assert response.json()["events"] == {"order": ["update", "create"]}


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        (
            {"events": {"orders": ["create"]}},
            [
                (
                    "events.orders",
                    "is not a resource type (one of catalog, customer, customer_list, delivery, own_order_delivery, inventory, location, order, own_order)",
                )
            ],
        ),
        (
            {"events": {"order": ["create", "delete"]}},
            [("events.order[1]", "'delete' is not an event type of order (create, update)")],
        ),
        (
            {"events": {"own_order": ["create"]}},
            [("events.own_order[0]", "'create' is not an event type of own_order (update)")],
        ),
        ({"events": {"location": "update"}}, [("events.location", "must be an array of event types")]),
        (
            {"events": ["location"]},
            [("events", "must be a JSON object mapping resource types to arrays of event types")],
        ),
        (
            {"url": "ftp://pos.example/x", "events": {}},
            [("url", "'ftp://pos.example/x' is not an absolute http(s) URL")],
        ),
        ({"url": "/relative", "events": {}}, [("url", "'/relative' is not an absolute http(s) URL")]),
        ({"url": 12, "events": {}}, [("url", "must be a string or null")]),
        ({"url": "https://pos.example/x#frag", "events": {}}, [("url", "must not have a fragment")]),
        ({"url": "http://a..b/hook", "events": {}}, [("url", "'http://a..b/hook' does not name a valid host")]),
        ({"url": "https://pos.example/x"}, [("events", "is required")]),
    ],
)
async def test_invalid_subscriptions_are_422_naming_the_key(
    client: httpx.AsyncClient, listener: Listener, world: World, body: dict[str, Any], errors: list[tuple[str, str]]
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]})
    before = await world.snapshot()
    response = await client.post("/v1/callback", json=body, headers=listener.headers())
    assert response.status_code == 422
    assert [(e["field"], e["message"]) for e in response.json()["errors"]] == errors
    assert await world.snapshot() == before


async def test_every_allowed_combination_is_accepted(client: httpx.AsyncClient, listener: Listener) -> None:
    events = {
        "catalog": ["create", "delete", "update"],
        "customer": ["create", "update"],
        "customer_list": ["create", "delete", "update"],
        "delivery": ["create", "update"],
        "own_order_delivery": ["create", "update"],
        "inventory": ["patch", "update"],
        "location": ["update"],
        "order": ["create", "update"],
        "own_order": ["update"],
    }
    response = await client.post("/v1/callback", json={"url": None, "events": events}, headers=listener.headers())
    assert response.status_code == 200
    assert response.json()["events"] == events


async def test_events_are_listed_oldest_first_without_states(
    client: httpx.AsyncClient, shop: Shop, listener: Listener
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]})
    for minutes in [21, 22, 23]:
        await touch_location(client, shop, minutes)
    response = await client.get("/v1/callback/events", headers=listener.headers())
    assert response.status_code == 200
    listed = response.json()
    assert len(listed) == 3
    assert [set(event) for event in listed] == [
        {"id", "resource_type", "event_type", "created_at", "location_id", "account_id"}
    ] * 3
    full = [
        (await client.get(f"/v1/callback/events/{event['id']}", headers=listener.headers())).json() for event in listed
    ]
    assert [event["new_state"]["preparation_time"] for event in full] == [21, 22, 23]
    assert "X-Cursor-Next" not in response.headers


async def test_the_events_list_is_paginated(client: httpx.AsyncClient, shop: Shop, listener: Listener) -> None:
    await subscribe(client, listener.token, {"location": ["update"]})
    for minutes in range(20, 25):
        await touch_location(client, shop, minutes)
    first = await client.get("/v1/callback/events", params={"count": "2"}, headers=listener.headers())
    second = await client.get(
        "/v1/callback/events",
        params={"count": "2", "cursor": first.headers["X-Cursor-Next"]},
        headers=listener.headers(),
    )
    third = await client.get(
        "/v1/callback/events",
        params={"count": "2", "cursor": second.headers["X-Cursor-Next"]},
        headers=listener.headers(),
    )
    ids = [e["id"] for page in (first, second, third) for e in page.json()]
    assert len(ids) == len(set(ids)) == 5
    assert "X-Cursor-Next" not in third.headers


async def test_get_event_is_the_full_event(client: httpx.AsyncClient, shop: Shop, listener: Listener) -> None:
    await subscribe(client, listener.token, {"location": ["update"]})
    before = (await client.get("/v1/location", headers=shop.headers())).json()
    await touch_location(client, shop, 40)
    after = (await client.get("/v1/location", headers=shop.headers())).json()
    [listed] = (await client.get("/v1/callback/events", headers=listener.headers())).json()
    response = await client.get(f"/v1/callback/events/{listed['id']}", headers=listener.headers())
    assert response.status_code == 200
    assert response.json() == {**listed, "new_state": after, "previous_state": before}


async def test_delete_event_acknowledges_it(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, world: World
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]})
    await touch_location(client, shop, 41)
    await touch_location(client, shop, 42)
    first, second = (await client.get("/v1/callback/events", headers=listener.headers())).json()
    full = (await client.get(f"/v1/callback/events/{first['id']}", headers=listener.headers())).json()
    response = await client.delete(f"/v1/callback/events/{first['id']}", headers=listener.headers())
    assert response.status_code == 200
    assert response.json() == full
    assert [e["id"] for e in (await client.get("/v1/callback/events", headers=listener.headers())).json()] == [
        second["id"]
    ]
    again = await client.delete(f"/v1/callback/events/{first['id']}", headers=listener.headers())
    assert again.status_code == 404
    assert again.json() == {"error_type": "not_found", "message": f"No event with id {first['id']!r}"}
    assert (await client.get(f"/v1/callback/events/{first['id']}", headers=listener.headers())).status_code == 404


async def test_another_connections_event_is_404(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, world: World
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]})
    await touch_location(client, shop, 43)
    [event] = (await client.get("/v1/callback/events", headers=listener.headers())).json()
    other = await world.token("location[orders.read]", location=shop.location, client=await world.client(name="Other"))
    for method in ("GET", "DELETE"):
        response = await client.request(method, f"/v1/callback/events/{event['id']}", headers={"X-Access-Token": other})
        assert (response.status_code, response.json()) == (
            404,
            {"error_type": "not_found", "message": f"No event with id {event['id']!r}"},
        ), method
    own = await client.get(f"/v1/callback/events/{event['id']}", headers=listener.headers())
    assert (own.status_code, own.json()["id"], own.json()["resource_type"]) == (200, event["id"], "location")
    unknown = await client.get("/v1/callback/events/zzzzzz", headers=listener.headers())
    assert (unknown.status_code, unknown.json()) == (
        404,
        {"error_type": "not_found", "message": "No event with id 'zzzzzz'"},
    )


async def test_delete_callback_stops_events_and_drops_pending_ones(
    client: httpx.AsyncClient, shop: Shop, listener: Listener
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]}, "https://pos.example/hook")
    await touch_location(client, shop, 44)
    response = await client.delete("/v1/callback", headers=listener.headers())
    assert response.status_code == 200
    assert response.json() == {"url": "https://pos.example/hook", "events": {"location": ["update"]}, **ENABLED}
    assert (await client.get("/v1/callback", headers=listener.headers())).json() == {
        "url": None,
        "events": {},
        **ENABLED,
    }
    assert (await client.get("/v1/callback/events", headers=listener.headers())).json() == []
    await touch_location(client, shop, 45)
    assert (await client.get("/v1/callback/events", headers=listener.headers())).json() == []
    assert (await client.delete("/v1/callback", headers=listener.headers())).json() == {
        "url": None,
        "events": {},
        **ENABLED,
    }


async def test_any_token_may_manage_its_callback(client: httpx.AsyncClient, world: World) -> None:
    user = await world.user()
    token = await world.token("profile", user=user)
    response = await client.post(
        "/v1/callback", json={"events": {"order": ["create"]}}, headers={"X-Access-Token": token}
    )
    assert response.status_code == 200
    assert response.json() == {"url": None, "events": {"order": ["create"]}, **ENABLED}
    assert (await client.get("/v1/callback", headers={"X-Access-Token": token})).json() == response.json()
    assert (await client.get("/v1/callback/events", headers={"X-Access-Token": token})).json() == []


async def test_callback_endpoints_need_a_valid_token(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, world: World
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]})
    await touch_location(client, shop, 49)
    before = await world.snapshot()
    body = {"url": None, "events": {"order": ["create"]}}
    for method, path in (
        ("GET", "/v1/callback"),
        ("POST", "/v1/callback"),
        ("DELETE", "/v1/callback"),
        ("GET", "/v1/callback/events"),
    ):
        payload = body if method == "POST" else None
        response = await client.request(method, path, json=payload, headers={"X-Access-Token": "nope"})
        assert (response.status_code, response.json()) == (
            401,
            {"error_type": "unauthorized", "message": REVOKED},
        ), (method, path)
    assert await world.snapshot() == before


async def test_event_ids_are_never_reused(client: httpx.AsyncClient, shop: Shop, listener: Listener) -> None:
    # SQLite would reuse the largest rowid after a delete without AUTOINCREMENT
    await subscribe(client, listener.token, {"location": ["update"]})
    seen = set()
    for minutes in [46, 47, 48]:
        await touch_location(client, shop, minutes)
        [event] = await events_list(client, listener)
        assert event["id"] not in seen
        seen.add(event["id"])
        assert (
            await client.delete(f"/v1/callback/events/{event['id']}", headers=listener.headers())
        ).status_code == 200


async def events_list(client: httpx.AsyncClient, listener: Listener) -> list[dict[str, Any]]:
    return (await client.get("/v1/callback/events", headers=listener.headers())).json()
