"""spec 6.3: every event names its resource and what it belongs to. Order events carry
`order_id` and `location_id`; delivery events `order_id`, `location_id` and `delivery_id`;
location events `location_id` and `account_id`; catalog events `catalog_id` and the catalog's
`location_id` or `account_id`; inventory events `catalog_id` and `location_id`; customer
list events `customer_list_id`; customer events `customer_id` and `customer_list_id`.

Checked for every (resource type, event type) an event can have, on the polling reads
(`GET /callback/events` and `/callback/events/:id`) and on the body POSTed to a callback."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import orjson
import pytest

from comptoir.callbacks.worker import DeliveryWorker
from comptoir.events import RESOURCE_EVENTS
from tests.api.callbacks.conftest import Listener, subscribe
from tests.api.callbacks.test_delivery import wait_until_listed
from tests.api.conftest import Shop
from tests.factories import World
from tests.receiver import Receiver

BASE = {"id", "resource_type", "event_type", "created_at"}
STATES = {"new_state", "previous_state", "state_change"}
LISTENER_SCOPE = "account[orders.write,all_catalogs.read,all_customer_lists.read,inventory.read]"
CATALOG_DATA = {
    "categories": [{"ref": "drinks", "name": "Drinks"}],
    "products": [{"category_ref": "drinks", "name": "Cola", "skus": [{"ref": "cola", "price": "3 EUR"}]}],
}


class Scene:
    """The shop (another client) acting, and the listening connection when it must act
    itself (the orders it created, for own_order events)."""

    def __init__(self, client: httpx.AsyncClient, shop: Shop, listener: str) -> None:
        self.client = client
        self.shop = shop
        self.listener = listener
        self.made = 0  # names of catalogs and lists are unique: one per act

    def name(self, base: str) -> str:
        self.made += 1
        return f"{base} {self.made}"

    async def ok(self, method: str, path: str, body: Any = None, token: str | None = None) -> dict[str, Any]:
        response = await self.client.request(
            method, path, json=body, headers={"X-Access-Token": token or self.shop.account_token}
        )
        assert response.status_code == 200, response.text
        return response.json()

    @property
    def location(self) -> str:
        return self.shop.location.public_id

    async def order(self, token: str | None = None, **fields: Any) -> dict[str, Any]:
        return await self.ok("POST", f"/v1/locations/{self.location}/orders", {"status": "new", **fields}, token)

    async def catalog(self, at_account: bool) -> dict[str, Any]:
        path = "/v1/account/catalogs" if at_account else f"/v1/locations/{self.location}/catalogs"
        return await self.ok("POST", path, {"name": self.name("Carte"), "data": CATALOG_DATA})

    async def customer_list(self) -> dict[str, Any]:
        return await self.ok("POST", f"/v1/locations/{self.location}/customer_lists", {"name": self.name("Fidèles")})


Act = Callable[[Scene], Awaitable[dict[str, str]]]


def order_ids(scene: Scene, order: dict[str, Any]) -> dict[str, str]:
    return {"order_id": order["id"], "location_id": scene.location}


def delivery_ids(scene: Scene, order: dict[str, Any], delivery: dict[str, Any]) -> dict[str, str]:
    return {**order_ids(scene, order), "delivery_id": delivery["id"]}


async def order_create_by_location_token(scene: Scene) -> dict[str, str]:
    # a location-level guest order: written in one statement on PostgreSQL
    order = await scene.ok("POST", "/v1/location/orders", {"status": "new"}, scene.shop.location_token)
    return order_ids(scene, order)


async def order_create_by_account_token(scene: Scene) -> dict[str, str]:
    return order_ids(scene, await scene.order())


async def order_update(scene: Scene) -> dict[str, str]:
    order = await scene.order()
    await scene.ok("PATCH", f"/v1/locations/{scene.location}/orders/{order['id']}", {"status": "accepted"})
    return order_ids(scene, order)


async def own_order_update(scene: Scene) -> dict[str, str]:
    order = await scene.order(scene.listener)
    await scene.ok("PATCH", f"/v1/locations/{scene.location}/orders/{order['id']}", {"status": "accepted"})
    return order_ids(scene, order)


async def _delivery(scene: Scene, token: str | None, update: bool) -> dict[str, str]:
    order = await scene.order(token, service_type="delivery")
    path = f"/v1/locations/{scene.location}/orders/{order['id']}/delivery"
    delivery = await scene.ok("POST", path, {"carrier": "Zoom", "status": "pending"})
    if update:
        await scene.ok("PATCH", path, {"status": "pickup_enroute"})
    return delivery_ids(scene, order, delivery)


async def delivery_create(scene: Scene) -> dict[str, str]:
    return await _delivery(scene, None, update=False)


async def delivery_update(scene: Scene) -> dict[str, str]:
    return await _delivery(scene, None, update=True)


async def own_order_delivery_create(scene: Scene) -> dict[str, str]:
    return await _delivery(scene, scene.listener, update=False)


async def own_order_delivery_update(scene: Scene) -> dict[str, str]:
    return await _delivery(scene, scene.listener, update=True)


async def location_update(scene: Scene) -> dict[str, str]:
    await scene.ok("PATCH", f"/v1/locations/{scene.location}", {"preparation_time": 25})
    return {"location_id": scene.location, "account_id": scene.shop.account.public_id}


def catalog_ids(scene: Scene, catalog: dict[str, Any], at_account: bool) -> dict[str, str]:
    owner = {"account_id": scene.shop.account.public_id} if at_account else {"location_id": scene.location}
    return {"catalog_id": catalog["id"], **owner}


def catalog_act(event_type: str, at_account: bool) -> Act:
    async def act(scene: Scene) -> dict[str, str]:
        catalog = await scene.catalog(at_account)
        if event_type == "update":
            await scene.ok("PUT", f"/v1/catalogs/{catalog['id']}", {"name": scene.name("La carte")})
        if event_type == "delete":
            await scene.ok("DELETE", f"/v1/catalogs/{catalog['id']}")
        return catalog_ids(scene, catalog, at_account)

    act.__name__ = f"catalog_{event_type}_{'account' if at_account else 'location'}_level"
    return act


def inventory_act(event_type: str) -> Act:
    async def act(scene: Scene) -> dict[str, str]:
        catalog = await scene.catalog(at_account=False)
        path = f"/v1/catalogs/{catalog['id']}/locations/{scene.location}/inventory"
        entries = [{"sku_ref": "cola", "stock": "3"}]
        await scene.ok("PUT" if event_type == "update" else "PATCH", path, entries)
        return {"catalog_id": catalog["id"], "location_id": scene.location}

    act.__name__ = f"inventory_{event_type}"
    return act


async def customer_list_create(scene: Scene) -> dict[str, str]:
    return {"customer_list_id": (await scene.customer_list())["id"]}


async def customer_list_update(scene: Scene) -> dict[str, str]:
    found = await scene.customer_list()
    await scene.ok("PATCH", f"/v1/customer_lists/{found['id']}", {"name": scene.name("Habitués")})
    return {"customer_list_id": found["id"]}


def customer_act(event_type: str) -> Act:
    async def act(scene: Scene) -> dict[str, str]:
        found = await scene.customer_list()
        path = f"/v1/customer_lists/{found['id']}/customers"
        customer = await scene.ok("POST", path, {"first_name": "Ann"})
        if event_type == "update":
            await scene.ok("PATCH", f"{path}/{customer['id']}", {"first_name": "Anne"})
        return {"customer_id": customer["id"], "customer_list_id": found["id"]}

    act.__name__ = f"customer_{event_type}"
    return act


# (subscribed resource type, event type, act): every event an event type can have; a
# customer list's deletion emits none (spec 4.4).
CASES: list[tuple[str, str, Act]] = [
    ("order", "create", order_create_by_location_token),
    ("order", "create", order_create_by_account_token),
    ("order", "update", order_update),
    ("own_order", "update", own_order_update),
    ("delivery", "create", delivery_create),
    ("delivery", "update", delivery_update),
    ("own_order_delivery", "create", own_order_delivery_create),
    ("own_order_delivery", "update", own_order_delivery_update),
    ("location", "update", location_update),
    *[("catalog", e, catalog_act(e, at)) for e in ("create", "update", "delete") for at in (False, True)],
    ("inventory", "update", inventory_act("update")),
    ("inventory", "patch", inventory_act("patch")),
    ("customer_list", "create", customer_list_create),
    ("customer_list", "update", customer_list_update),
    ("customer", "create", customer_act("create")),
    ("customer", "update", customer_act("update")),
]
NEVER_EMITTED = {("customer_list", "delete")}


def test_the_cases_cover_every_event_type() -> None:
    possible = {(kind, event) for kind, events in RESOURCE_EVENTS.items() for event in events}
    assert {(kind, event) for kind, event, _ in CASES} == possible - NEVER_EMITTED


async def listening(world: World, shop: Shop) -> str:
    """A connection of another client that sees every resource of the shop's account."""
    return await world.token(LISTENER_SCOPE, account=shop.account, client=await world.client(name="Listening app"))


@pytest.mark.parametrize(("resource_type", "event_type", "act"), CASES, ids=[act.__name__ for _, _, act in CASES])
async def test_an_event_carries_exactly_the_ids_of_its_resource_type(
    client: httpx.AsyncClient, shop: Shop, world: World, resource_type: str, event_type: str, act: Act
) -> None:
    token = await listening(world, shop)
    await subscribe(client, token, {resource_type: [event_type]})
    ids = await act(Scene(client, shop, token))
    headers = {"X-Access-Token": token}
    [listed] = (await client.get("/v1/callback/events", headers=headers)).json()
    assert listed == {
        "id": listed["id"],
        "resource_type": resource_type,
        "event_type": event_type,
        "created_at": listed["created_at"],
        **ids,
    }
    full = (await client.get(f"/v1/callback/events/{listed['id']}", headers=headers)).json()
    assert {name: value for name, value in full.items() if name not in STATES} == listed


async def test_the_callback_body_carries_the_same_ids(
    client: httpx.AsyncClient, shop: Shop, world: World, receiver: Receiver, worker: DeliveryWorker
) -> None:
    token = await listening(world, shop)
    await subscribe(
        client, token, {kind: list(types) for kind, types in RESOURCE_EVENTS.items()}, receiver.url("/hook")
    )
    scene = Scene(client, shop, token)
    expected: dict[tuple[str, str], list[dict[str, str]]] = {}
    for resource_type, event_type, act in CASES:
        expected.setdefault((resource_type, event_type), []).append(await act(scene))
    await wait_until_listed(client, Listener(token, 0), 0)  # all delivered and acknowledged
    posted: dict[tuple[str, str], list[dict[str, str]]] = {}
    for request in receiver.received:
        body = orjson.loads(request.body)
        ids = {name: value for name, value in body.items() if name not in BASE | STATES}
        posted.setdefault((body["resource_type"], body["event_type"]), []).append(ids)
    for key, acted in expected.items():
        for ids in acted:  # each act's own event, with its ids
            assert ids in posted.get(key, []), (key, ids, posted.get(key))
    for key, bodies in posted.items():  # and side effects (a delivery's order update) name the same fields
        assert all(any(set(ids) == set(e) for e in expected[key]) for ids in bodies), (key, bodies)
