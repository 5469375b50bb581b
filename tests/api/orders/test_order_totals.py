"""spec 2.5 rule 1: an order is never refused for its arithmetic.
When the discounts exceed the rest of the order, at creation or after an element is
deleted or added, its total reads "0.00 <currency>" and the request succeeds, on every
creation path (one statement for a location token on PostgreSQL, a session otherwise)
and every read (the answer, GET, lists, events)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.callbacks.conftest import subscribe
from tests.api.conftest import Shop
from tests.api.customers.conftest import lists_of, new_customer
from tests.api.orders.conftest import ORDER_TOTAL, order
from tests.factories import World

SOUP = {"product_name": "Soup", "price": "5.00 EUR", "quantity": 1}
LEVELS = ["location", "account"]


class Orders:
    """The orders endpoints as a location token (`/location/orders`) or an account token
    (`/locations/:id/orders`) calls them."""

    def __init__(self, client: httpx.AsyncClient, shop: Shop, level: str) -> None:
        self.client = client
        self.shop = shop
        if level == "location":
            self.base, self.token = "/v1/location/orders", shop.location_token
        else:
            self.base, self.token = f"/v1/locations/{shop.location.public_id}/orders", shop.account_token

    @property
    def headers(self) -> dict[str, str]:
        return {"X-Access-Token": self.token}

    async def create(self, body: dict[str, Any]) -> dict[str, Any]:
        response = await self.client.post(self.base, json=body, headers=self.headers)
        assert response.status_code == 200, response.text
        return response.json()

    async def patch(self, placed: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        response = await self.client.patch(f"{self.base}/{placed['id']}", json=body, headers=self.headers)
        assert response.status_code == 200, response.text
        return response.json()

    async def get(self, placed: dict[str, Any]) -> dict[str, Any]:
        response = await self.client.get(f"{self.base}/{placed['id']}", headers=self.headers)
        assert response.status_code == 200, response.text
        return response.json()

    async def listed_total(self, placed: dict[str, Any]) -> str:
        response = await self.client.get(self.base, headers=self.headers)
        assert response.status_code == 200, response.text
        [found] = [o for o in response.json() if o["id"] == placed["id"]]
        return found["total"]


@pytest.fixture(params=LEVELS)
def orders(request: pytest.FixtureRequest, client: httpx.AsyncClient, shop: Shop) -> Orders:
    return Orders(client, shop, request.param)


async def _listener(client: httpx.AsyncClient, shop: Shop, world: World) -> str:
    token = await world.token("account[orders.read]", account=shop.account, client=await world.client("Listener"))
    await subscribe(client, token, {"order": ["create", "update"]})
    return token


async def _states(client: httpx.AsyncClient, token: str) -> list[dict[str, Any]]:
    headers = {"X-Access-Token": token}
    listed = (await client.get("/v1/callback/events", headers=headers)).json()
    return [(await client.get(f"/v1/callback/events/{e['id']}", headers=headers)).json() for e in listed]


async def test_an_order_whose_discount_exceeds_its_items_is_created_with_total_zero(
    client: httpx.AsyncClient, shop: Shop, world: World, orders: Orders
) -> None:
    listener = await _listener(client, shop, world)
    body = {"status": "new", "items": [SOUP], "discounts": [{"name": "Voucher", "price_off": "8.00 EUR"}]}
    placed = await orders.create(body)
    assert placed["total"] == "0.00 EUR"
    assert placed["discounts"][0]["price_off"] == "8.00 EUR"  # the discount is kept as sent
    assert (await orders.get(placed))["total"] == "0.00 EUR"
    assert await orders.listed_total(placed) == "0.00 EUR"
    [create] = await _states(client, listener)
    assert (create["event_type"], create["new_state"]["total"]) == ("create", "0.00 EUR")


async def test_deleting_the_only_item_of_a_discounted_order_succeeds_with_total_zero(
    client: httpx.AsyncClient, shop: Shop, world: World, orders: Orders
) -> None:
    placed = await orders.create(
        {"status": "new", "items": [SOUP], "discounts": [{"name": "Voucher", "price_off": "2.00 EUR"}]}
    )
    assert placed["total"] == "3.00 EUR"
    listener = await _listener(client, shop, world)
    updated = await orders.patch(placed, {"items": [{"id": placed["items"][0]["id"], "deleted": True}]})
    assert (updated["total"], updated["items"][0]["deleted"]) == ("0.00 EUR", True)
    assert await orders.get(placed) == updated
    assert await orders.listed_total(placed) == "0.00 EUR"
    [update] = await _states(client, listener)
    assert (update["previous_state"]["total"], update["new_state"]["total"]) == ("3.00 EUR", "0.00 EUR")


async def test_deleting_a_charge_that_covered_the_discounts_makes_total_zero(orders: Orders) -> None:
    placed = await orders.create(
        {
            "status": "new",
            "items": [{"product_name": "Tea", "price": "2.00 EUR", "quantity": 1}],
            "charges": [{"type": "delivery", "name": "Delivery", "price": "3.00 EUR"}],
            "discounts": [{"name": "Welcome", "price_off": "4.00 EUR"}],
        }
    )
    assert placed["total"] == "1.00 EUR"
    updated = await orders.patch(placed, {"charges": [{"id": placed["charges"][0]["id"], "deleted": True}]})
    assert updated["total"] == "0.00 EUR"
    assert (await orders.get(placed))["total"] == "0.00 EUR"


async def test_an_added_discount_larger_than_the_rest_makes_total_zero_and_still_counts(orders: Orders) -> None:
    placed = await orders.create({"status": "new", "items": [SOUP]})
    discounted = await orders.patch(placed, {"discounts": [{"name": "Goodwill", "price_off": "15.00 EUR"}]})
    assert discounted["total"] == "0.00 EUR"
    # the discount stays whole: a later item is paid only beyond what it leaves
    more = await orders.patch(placed, {"items": [{"product_name": "Feast", "price": "20.00 EUR", "quantity": 1}]})
    assert more["total"] == "10.00 EUR"  # 5 + 20 - 15
    assert (await orders.get(placed))["total"] == "10.00 EUR"


async def test_a_normal_orders_total_is_unchanged(orders: Orders) -> None:
    placed = await orders.create(order())
    assert placed["total"] == (await orders.get(placed))["total"] == ORDER_TOTAL
    updated = await orders.patch(placed, {"discounts": [{"name": "Extra", "price_off": "0.70 EUR"}]})
    assert updated["total"] == "32.00 EUR"


async def test_the_customers_order_total_counts_a_zero_total(
    client: httpx.AsyncClient, shop: Shop, orders: Orders
) -> None:
    list_id = await lists_of(client, shop)
    ann = await new_customer(client, shop, list_id, {"first_name": "Ann"})
    placed = await orders.create(
        {
            "status": "new",
            "customer_id": ann["id"],
            "items": [SOUP, {"product_name": "Bread", "price": "1.00 EUR", "quantity": 1}],
            "discounts": [{"name": "Voucher", "price_off": "4.00 EUR"}],
        }
    )
    assert placed["total"] == "2.00 EUR"
    await orders.patch(placed, {"items": [{"id": placed["items"][0]["id"], "deleted": True}]})
    url = f"/v1/customer_lists/{list_id}/customers/{ann['id']}"
    customer = (await client.get(url, headers=shop.headers())).json()
    assert (customer["nb_orders"], customer["order_total"]) == (1, "0.00 EUR")
