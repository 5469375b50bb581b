"""spec 2.5 rules 4-6, 4.6 item 3 and docs/api/orders.md "Customers": orders
attached to customers, their snapshot, counters and loyalty operations."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Context, Decimal, localcontext
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from comptoir.kit import clock, ids
from comptoir.models import Customer
from tests.api.callbacks.conftest import subscribe
from tests.api.conftest import Shop
from tests.api.customers.conftest import lists_of, new_card, new_customer
from tests.api.orders.conftest import create, created
from tests.factories import World

ITEM = {"product_name": "Soup", "price": "8.00 EUR", "quantity": 1}


@pytest.fixture
async def ann(client: httpx.AsyncClient, shop: Shop) -> dict[str, Any]:
    list_id = await lists_of(client, shop)
    return await new_customer(
        client, shop, list_id, {"first_name": "Ann", "email": "ann@example.com", "private_ref": "crm-ann"}
    )


async def customer(client: httpx.AsyncClient, shop: Shop, ann: dict[str, Any]) -> dict[str, Any]:
    url = f"/v1/customer_lists/{ann['customer_list_id']}/customers/{ann['id']}"
    return (await client.get(url, headers=shop.headers())).json()


async def test_customer_id_attaches_with_a_snapshot(client: httpx.AsyncClient, shop: Shop, ann: dict[str, Any]) -> None:
    read = await created(client, shop, {"status": "new", "customer_id": ann["id"], "items": [ITEM]})
    assert read["customer_id"] == ann["id"]
    assert read["customer_list_id"] == ann["customer_list_id"]
    snapshot = read["customer"]
    assert (snapshot["id"], snapshot["customer_list_id"], snapshot["private_ref"]) == (
        ann["id"], ann["customer_list_id"], "crm-ann",
    )  # fmt: skip
    assert (snapshot["first_name"], snapshot["email"]) == ("Ann", "ann@example.com")
    # a later change of the customer does not change the snapshot
    url = f"/v1/customer_lists/{ann['customer_list_id']}/customers/{ann['id']}"
    await client.patch(url, json={"first_name": "Anna"}, headers=shop.headers())
    again = (await client.get(f"/v1/location/orders/{read['id']}", headers=shop.headers())).json()
    assert again["customer"]["first_name"] == "Ann"


async def test_customer_private_ref_attaches(client: httpx.AsyncClient, shop: Shop, ann: dict[str, Any]) -> None:
    body = {"status": "new", "customer_list_id": ann["customer_list_id"], "customer_private_ref": "crm-ann"}
    assert (await created(client, shop, body))["customer_id"] == ann["id"]


async def test_orders_move_the_customers_counters(client: httpx.AsyncClient, shop: Shop, ann: dict[str, Any]) -> None:
    clock.freeze(datetime(2026, 6, 24, 10, 0, tzinfo=UTC))
    first = await created(client, shop, {"status": "new", "customer_id": ann["id"], "items": [ITEM]})
    clock.travel(timedelta(days=2))
    await created(client, shop, {"status": "new", "customer_id": ann["id"], "items": [ITEM, ITEM]})
    now = await customer(client, shop, ann)
    assert (now["nb_orders"], now["order_total"]) == (2, "24.00 EUR")
    assert (now["first_order_date"], now["last_order_date"]) == (
        "2026-06-24T12:00:00+02:00",
        "2026-06-26T12:00:00+02:00",
    )
    # deleting an item of an order moves the total
    item_id = first["items"][0]["id"]
    await client.patch(
        f"/v1/location/orders/{first['id']}", json={"items": [{"id": item_id, "deleted": True}]}, headers=shop.headers()
    )
    assert (await customer(client, shop, ann))["order_total"] == "16.00 EUR"


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"customer_id": "zzzzzz"}, "customer_id", "no customer with id 'zzzzzz'"),
        ({"customer_list_id": "zzzzzz", "customer_private_ref": "x"}, "customer_list_id", "no customer list with id 'zzzzzz'"),
        ({"customer_private_ref": "x"}, "customer_list_id", "is required with customer_private_ref"),
        ({"loyalty_operations": [{"delta": "1"}]}, "loyalty_operations",
         "are only for orders linked to a customer (customer_id or customer_private_ref)"),
    ],
)  # fmt: skip
async def test_unknown_customers_are_refused(
    client: httpx.AsyncClient, shop: Shop, world: World, body: dict[str, Any], field: str, message: str
) -> None:
    before = await world.snapshot()
    response = await create(client, shop, {"status": "new", **body})
    assert response.status_code == 422
    assert response.json()["errors"] == [{"field": field, "message": message}]
    assert await world.snapshot() == before


async def test_identifiers_exclude_each_other(
    client: httpx.AsyncClient, shop: Shop, world: World, ann: dict[str, Any]
) -> None:
    before = await world.snapshot()
    by_ref = {"customer_list_id": ann["customer_list_id"], "customer_private_ref": "crm-ann"}
    response = await create(client, shop, {"status": "new", **by_ref, "customer": {"first_name": "X"}})
    assert response.json()["errors"] == [
        {"field": "customer", "message": "is used only when no customer identifier is given"}
    ]
    for extra in (by_ref, {"customer": {}}):
        response = await create(client, shop, {"status": "new", "customer_id": ann["id"], **extra})
        assert response.json()["errors"] == [
            {"field": "customer_id", "message": "excludes customer_list_id, customer_private_ref and customer"}
        ]
    response = await create(
        client, shop, {"status": "new", "customer_list_id": ann["customer_list_id"], "customer_private_ref": "nope"}
    )
    assert response.json()["errors"] == [
        {"field": "customer_private_ref", "message": "no customer with private ref 'nope' in that list"}
    ]
    assert await world.snapshot() == before


async def test_a_customer_of_another_location_cannot_be_attached(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    lyon = await world.customer_list(location=shop.other_location, name="Lyon")
    someone = await new_customer(client, shop, lyon.public_id, {}, token=shop.account_token)
    before = await world.snapshot()
    response = await create(client, shop, {"status": "new", "customer_id": someone["id"]})
    assert response.status_code == 422
    assert response.json()["errors"] == [{"field": "customer_id", "message": f"no customer with id {someone['id']!r}"}]
    assert await world.snapshot() == before


async def test_loyalty_operations_move_cards_and_create_a_missing_one(
    client: httpx.AsyncClient, shop: Shop, ann: dict[str, Any]
) -> None:
    list_id = ann["customer_list_id"]
    card = await new_card(client, shop, list_id, ann["id"], ref="P")
    body = {
        "status": "new",
        "customer_id": ann["id"],
        "loyalty_operations": [
            {"ref": "P", "delta": "10", "reason": "Order points"},
            {"ref": None, "name": "Stamps", "delta": "1"},
        ],
    }
    read = await created(client, shop, body)
    assert read["loyalty_operations"] == [
        {"ref": "P", "name": None, "delta": "10.0", "reason": "Order points", "new_balance": "10.0"},
        {"ref": None, "name": "Stamps", "delta": "1.0", "reason": None, "new_balance": "1.0"},
    ]
    cards = (await customer(client, shop, ann))["loyalty_cards"]
    assert [(c["ref"], c["name"], c["balance"]) for c in cards] == [("P", None, "10.0"), (None, "Stamps", "1.0")]
    operations = await client.get(
        f"/v1/customer_lists/{list_id}/loyalty_cards/{card['id']}/operations", headers=shop.headers()
    )
    [operation] = operations.json()
    assert (operation["order_id"], operation["order_location_id"]) == (read["id"], shop.location.public_id)


async def test_a_loyalty_operation_may_name_an_existing_order(
    client: httpx.AsyncClient, shop: Shop, ann: dict[str, Any]
) -> None:
    list_id = ann["customer_list_id"]
    read = await created(client, shop, {"status": "new"})
    card = await new_card(client, shop, list_id, ann["id"])
    response = await client.post(
        f"/v1/customer_lists/{list_id}/loyalty_cards/{card['id']}/operations",
        json={"delta": "5", "order_id": read["id"]},
        headers=shop.headers(),
    )
    assert response.status_code == 200
    assert (response.json()["order_id"], response.json()["order_location_id"]) == (read["id"], shop.location.public_id)


async def test_anonymising_the_customer_anonymises_its_orders_with_an_update_event(
    client: httpx.AsyncClient, shop: Shop, world: World, ann: dict[str, Any]
) -> None:
    listener = await world.token("location[orders.read]", location=shop.location, client=await world.client("Listener"))
    read = await created(client, shop, {"status": "new", "customer_id": ann["id"]})
    await subscribe(client, listener, {"order": ["update"]})
    url = f"/v1/customer_lists/{ann['customer_list_id']}/customers/{ann['id']}/anonymise"
    anonymised = await client.post(url, headers=shop.headers())
    assert (anonymised.status_code, anonymised.json()["anonymised"], anonymised.json()["email"]) == (200, True, None)
    after = (await client.get(f"/v1/location/orders/{read['id']}", headers=shop.headers())).json()
    assert (after["customer"]["first_name"], after["customer"]["email"]) == (None, None)
    assert after["customer"]["id"] == ann["id"]
    [event] = (await client.get("/v1/callback/events", headers={"X-Access-Token": listener})).json()
    assert (event["resource_type"], event["event_type"], event["order_id"]) == ("order", "update", read["id"])


async def test_the_snapshot_ids_disappear_with_the_customer(
    client: httpx.AsyncClient, shop: Shop, ann: dict[str, Any]
) -> None:
    read = await created(client, shop, {"status": "new", "customer_id": ann["id"]})
    assert (
        await client.delete(f"/v1/customer_lists/{ann['customer_list_id']}", headers=shop.headers())
    ).status_code == 200
    after = (await client.get(f"/v1/location/orders/{read['id']}", headers=shop.headers())).json()
    assert (after["customer_id"], after["customer_list_id"]) == (None, None)
    assert (after["customer"]["id"], after["customer"]["customer_list_id"], after["customer"]["private_ref"]) == (
        None,
        None,
        None,
    )
    assert after["customer"]["first_name"] == "Ann"


async def test_the_customers_order_total_stays_exact_beyond_28_digits(
    client: httpx.AsyncClient, shop: Shop, world: World, ann: dict[str, Any]
) -> None:
    # a 30-decimal quantity makes a 46-digit subtotal: the counters never round it
    bulk = {"product_name": "Bulk", "price": "999999999999999.99 EUR", "quantity": "1.000000000000000000000000000001"}
    placed = await created(client, shop, {"status": "new", "customer_id": ann["id"], "items": [bulk, ITEM]})
    soup = placed["items"][1]["id"]
    url = f"/v1/location/orders/{placed['id']}"
    response = await client.patch(url, json={"items": [{"id": soup, "deleted": True}]}, headers=shop.headers())
    assert response.status_code == 200
    assert [item["deleted"] for item in response.json()["items"]] == [False, True]
    assert response.json()["total"] == "999999999999999.99 EUR"  # the bulk item alone, rounded to the cent
    with localcontext(Context(prec=100)):
        expected = Decimal("999999999999999.99") * Decimal("1.000000000000000000000000000001")
    async with world.db.transaction(write=False) as session:
        stored = await session.scalar(
            select(Customer.order_total).where(Customer.id == ids.decode("customer", ann["id"]))
        )
    assert stored == expected


async def test_anonymising_again_touches_no_order(
    client: httpx.AsyncClient, shop: Shop, world: World, ann: dict[str, Any]
) -> None:
    await created(client, shop, {"status": "new", "customer_id": ann["id"]})
    url = f"/v1/customer_lists/{ann['customer_list_id']}/customers/{ann['id']}/anonymise"
    first = await client.post(url, headers=shop.headers())
    before = await world.snapshot()
    again = await client.post(url, headers=shop.headers())
    assert again.json() == first.json()
    assert await world.snapshot() == before


async def test_an_order_read_shows_the_readers_own_ref_on_its_customer(
    client: httpx.AsyncClient, shop: Shop, ann: dict[str, Any], world: World
) -> None:
    # the order, its delivery and the reader's ref on its customer come in one statement
    read = await created(client, shop, {"status": "new", "customer_id": ann["id"], "items": [ITEM]})
    other = await world.token("location[orders.read]", location=shop.location)
    paths = (f"/v1/location/orders/{read['id']}", f"/v1/locations/{shop.location.public_id}/orders/{read['id']}")
    for path in paths:
        mine = await client.get(path, headers=shop.headers())
        theirs = await client.get(path, headers=shop.headers(other))
        assert (mine.status_code, theirs.status_code) == (200, 200)
        assert (mine.json()["customer"]["private_ref"], theirs.json()["customer"]["private_ref"]) == ("crm-ann", None)
        assert mine.json()["customer"]["id"] == theirs.json()["customer"]["id"] == ann["id"]
