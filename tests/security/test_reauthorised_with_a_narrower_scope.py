"""Re-authorising with a narrower grant to keep reading what it no longer allows
(docs/api/callbacks-events.md "Who receives an event"): an app whose scope read a customer
list is authorised again, same client, location and name (so the same token), with
`location[orders.read]`. The customers are then a 403, and the `customer` events it held,
pending or delivered, must go with the access: not listed, not read, not POSTed once a callback
URL is set, not resent, not replayed. Events the new grant still allows stay."""

# ruff: noqa: F811 - the API's fixtures are imported, then named as parameters
from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import httpx
import pytest

from comptoir.callbacks.worker import DeliveryWorker
from comptoir.kit import clock
from comptoir.models import CustomerList, OAuthClient
from tests.api.callbacks.conftest import fast_retries, subscribe, touch_location, worker  # noqa: F401
from tests.api.callbacks.test_delivery import listed, received, wait_until_listed
from tests.api.conftest import Shop, app, client, shop, world  # noqa: F401 - the API's fixtures
from tests.factories import World
from tests.receiver import Receiver, running_receiver

WIDE = "location[orders.read,customer_list.read]"
NARROW = "location[orders.read]"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver() as running:
        yield running


class App:
    """Another client's location-level connection to the shop's location, bound to a list."""

    def __init__(self, world: World, shop: Shop, client: OAuthClient, customers: CustomerList, token: str) -> None:
        self.world = world
        self.shop = shop
        self.client = client
        self.customers = customers
        self.token = token

    def headers(self) -> dict[str, str]:
        return {"X-Access-Token": self.token}

    async def authorise_again(self, scope: str, customers: CustomerList | None = None) -> None:
        granted = await self.world.grant(
            scope, location=self.shop.location, client=self.client, customer_list=customers
        )
        assert granted["access_token"] == self.token  # the same token, its scope replaced


@pytest.fixture
async def app_connection(world: World, shop: Shop) -> App:
    customers = await world.customer_list(location=shop.location, name="Regulars")
    client = await world.client(name="Listening app")
    token = await world.token(WIDE, location=shop.location, client=client, customer_list=customers)
    return App(world, shop, client, customers, token)


async def add_customer(client: httpx.AsyncClient, shop: Shop, customers: CustomerList, name: str) -> dict[str, Any]:
    body = {"first_name": name, "email": f"{name.lower()}@example.com", "phone": "+33 6 12 34 56 78"}
    response = await client.post(
        f"/v1/customer_lists/{customers.public_id}/customers", json=body, headers=shop.headers(shop.account_token)
    )
    assert response.status_code == 200, response.text
    return response.json()


def kinds(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(str(event["resource_type"]), str(event["event_type"])) for event in events]


async def test_reauthorised_without_the_list_the_app_no_longer_lists_or_reads_its_customer_events(
    client: httpx.AsyncClient, shop: Shop, world: World, app_connection: App
) -> None:
    app = app_connection
    await subscribe(client, app.token, {"customer": ["create"], "location": ["update"]})
    await add_customer(client, shop, app.customers, "Ann")
    await touch_location(client, shop, 41)
    [customer_event, location_event] = (await client.get("/v1/callback/events", headers=app.headers())).json()
    assert kinds([customer_event, location_event]) == [("customer", "create"), ("location", "update")]
    read = await client.get(f"/v1/callback/events/{customer_event['id']}", headers=app.headers())
    assert read.json()["new_state"]["email"] == "ann@example.com"

    await app.authorise_again(NARROW)

    customers = await client.get(f"/v1/customer_lists/{app.customers.public_id}/customers", headers=app.headers())
    assert (customers.status_code, customers.json()) == (
        403,
        {
            "error_type": "forbidden",
            "message": f"The connection's scope ({NARROW}) does not allow this request: "
            "it needs customer_list.read or all_customer_lists.read",
        },
    )
    assert await listed(client, app) == [location_event]  # what orders.read still reaches stays
    before = await world.snapshot()
    one = await client.get(f"/v1/callback/events/{customer_event['id']}", headers=app.headers())
    assert (one.status_code, one.json()) == (
        404,
        {"error_type": "not_found", "message": f"No event with id '{customer_event['id']}'"},
    )
    acknowledged = await client.delete(f"/v1/callback/events/{customer_event['id']}", headers=app.headers())
    assert (acknowledged.status_code, acknowledged.json()) == (404, one.json())
    assert await world.snapshot() == before


async def test_reauthorised_without_the_list_the_app_is_not_posted_its_pending_customer_events(
    client: httpx.AsyncClient,
    shop: Shop,
    app_connection: App,
    receiver: Receiver,
    worker: DeliveryWorker,
) -> None:
    app = app_connection
    await subscribe(client, app.token, {"customer": ["create"], "location": ["update"]})  # passive
    await add_customer(client, shop, app.customers, "Bea")
    await app.authorise_again(NARROW)
    await subscribe(client, app.token, {"customer": ["create"], "location": ["update"]}, receiver.url("/hook"))
    await touch_location(client, shop, 42)
    # a pending customer event, older, would go out first: the one POST is the location's
    [request] = await received(receiver, "/hook", 1)
    assert json.loads(request.body)["resource_type"] == "location"
    await wait_until_listed(client, app, 0)
    assert len(receiver.requests_to("/hook")) == 1


async def test_reauthorised_without_the_list_the_app_cannot_resend_or_replay_its_delivered_customer_events(
    client: httpx.AsyncClient,
    shop: Shop,
    world: World,
    app_connection: App,
    receiver: Receiver,
    worker: DeliveryWorker,
) -> None:
    app = app_connection
    start = clock.now() - timedelta(seconds=1)
    await subscribe(client, app.token, {"customer": ["create"], "location": ["update"]}, receiver.url("/hook"))
    await add_customer(client, shop, app.customers, "Cleo")
    [delivered] = await received(receiver, "/hook", 1)
    assert json.loads(delivered.body)["new_state"]["phone"] == "+33612345678"
    await wait_until_listed(client, app, 0)
    event_id = delivered.headers["X-Event-Id"]

    await app.authorise_again(NARROW)

    before = await world.snapshot()
    resent = await client.post(f"/v1/callback/events/{event_id}/resend", headers=app.headers())
    assert (resent.status_code, resent.json()) == (
        404,
        {"error_type": "not_found", "message": f"No event with id '{event_id}'"},
    )
    assert await world.snapshot() == before
    span = {"from": start.isoformat(), "to": (clock.now() + timedelta(seconds=1)).isoformat()}
    replayed = await client.post("/v1/callback/replay", json=span, headers=app.headers())
    assert (replayed.status_code, replayed.json()) == (202, {"count": 0})
    await touch_location(client, shop, 43)
    # a replayed customer event, older, would go out before this one
    [_, after] = await received(receiver, "/hook", 2)
    assert json.loads(after.body)["resource_type"] == "location"
    await wait_until_listed(client, app, 0)
    assert len(receiver.requests_to("/hook")) == 2


async def test_rebound_to_another_list_the_app_keeps_no_event_of_the_former_one(
    client: httpx.AsyncClient, shop: Shop, world: World, app_connection: App
) -> None:
    """The token loses access to the former list, and so do the events about it."""
    app = app_connection
    other = await world.customer_list(location=shop.location, name="Newcomers")
    await subscribe(client, app.token, {"customer": ["create"]})
    await add_customer(client, shop, app.customers, "Dan")
    await app.authorise_again(WIDE, customers=other)
    assert await listed(client, app) == []
    made = await add_customer(client, shop, other, "Eve")
    [event] = await listed(client, app)
    assert (event["customer_id"], event["customer_list_id"]) == (made["id"], other.public_id)


async def test_authorised_again_with_the_same_grant_the_app_keeps_its_events(
    client: httpx.AsyncClient, shop: Shop, app_connection: App
) -> None:
    app = app_connection
    await subscribe(client, app.token, {"customer": ["create"]})
    await add_customer(client, shop, app.customers, "Fay")
    events = await listed(client, app)
    assert kinds(events) == [("customer", "create")]
    await app.authorise_again(WIDE, customers=app.customers)
    assert await listed(client, app) == events


async def test_a_bound_catalog_deleted_still_sends_its_delete_event_to_the_connection_bound_to_it(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    """A deletion changes no grant: the delete event of the bound catalog stays pending."""
    menu = await world.catalog(location=shop.location, name="Summer menu")
    token = await world.token(
        "location[catalog.read]", location=shop.location, catalog=menu, client=await world.client(name="Menu app")
    )
    await subscribe(client, token, {"catalog": ["delete"]})
    deleted = await client.delete(f"/v1/catalogs/{menu.public_id}", headers=shop.headers(shop.account_token))
    assert deleted.status_code == 200, deleted.text
    [event] = (await client.get("/v1/callback/events", headers={"X-Access-Token": token})).json()
    assert (event["resource_type"], event["event_type"], event["catalog_id"]) == ("catalog", "delete", menu.public_id)
