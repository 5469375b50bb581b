"""docs/api/orders.md "Reads": an order GET and a list answer an order's stored view as it is
stored when the reader reads nothing else in it (`orders.render.view_json`), and render it
otherwise; either way each listed order is, to the byte, the order's own GET."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from comptoir.orders import render
from comptoir.orders.render import view_json
from comptoir.orders.rows import OrderRow
from tests.api.conftest import Shop
from tests.api.customers.conftest import lists_of, new_customer
from tests.api.orders.conftest import created, order
from tests.factories import World


def plain(**changes: Any) -> dict[str, Any]:
    """The realistic order without private refs but those in `changes`."""
    body = order(**changes)
    body["items"] = [{key: value for key, value in item.items() if key != "private_ref"} for item in body["items"]]
    if "private_ref" not in changes:
        del body["private_ref"]
    return body


async def _read(client: httpx.AsyncClient, shop: Shop, order_id: str, token: str | None = None) -> bytes:
    response = await client.get(f"/v1/location/orders/{order_id}", headers=shop.headers(token))
    assert response.status_code == 200, response.text
    return response.content


async def test_each_listed_order_is_its_get_to_the_byte(
    client: httpx.AsyncClient, shop: Shop, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann = await new_customer(client, shop, await lists_of(client, shop), {"first_name": "Ann"})
    attached = {key: value for key, value in plain(customer_id=ann["id"]).items() if key != "customer"}
    placed = [
        await created(client, shop, plain()),  # a guest, no ref: as stored
        await created(client, shop, plain(private_ref="mine")),  # the order's ref set in
        # a ref before the order's private ref that holds braces and the very key: read, not searched
        await created(client, shop, plain(ref='x{[,"private_ref":null,"status":', private_ref="r")),
        # the same words inside a payment's free-form info and the custom fields
        await created(
            client,
            shop,
            plain(
                private_ref="p",
                payments=[{"type": "online", "amount": "1.00 EUR", "info": {"private_ref": None, "status": "x"}}],
                custom_fields={"private_ref": "x", "delivery": "y"},
            ),
        ),
        await created(client, shop, attached),  # attached: rendered
        await created(client, shop, {**attached, "private_ref": "a"}),
        await created(client, shop, plain(status="accepted", service_type="delivery")),  # a delivery joined
        await created(client, shop, plain()),  # an element's private ref set below
    ]
    delivered = placed[6]["id"]
    made = await client.post(
        f"/v1/location/orders/{delivered}/delivery",
        json={"carrier": "Zoom", "status": "pending"},
        headers=shop.headers(),
    )
    assert made.status_code == 200, made.text
    item = placed[7]["items"][0]["id"]
    changed = await client.patch(
        f"/v1/location/orders/{placed[7]['id']}",
        json={"items": [{"id": item, "private_ref": "line-1"}]},
        headers=shop.headers(),
    )
    assert changed.status_code == 200, changed.text

    other = await world.token("location[orders.read]", location=shop.location, client=await world.client("Kiosk"))

    as_stored: list[str] = []  # the orders answered from their view's text

    def counted(order: OrderRow, *args: Any) -> Any:
        answer = view_json(order, *args)
        if answer is not None:
            as_stored.append(order.public_id)
        return answer

    monkeypatch.setattr(render, "view_json", counted)

    async def each_listed_order_is_its_get() -> None:
        for token, stored in ((None, [6, 3, 1, 0]), (other, [7, 6, 3, 2, 1, 0])):
            # the shop's app (its refs) and another app (none of them)
            as_stored.clear()
            listed = await client.get("/v1/location/orders", headers=shop.headers(token))
            assert listed.status_code == 200, listed.text
            assert as_stored == [placed[i]["id"] for i in stored]
            as_stored.clear()
            each = [await _read(client, shop, one["id"], token) for one in reversed(placed)]
            assert as_stored == [placed[i]["id"] for i in stored]  # each GET as the list
            assert listed.content == b"[" + b",".join(each) + b"]"

    await each_listed_order_is_its_get()
    mine = (await client.get("/v1/location/orders", headers=shop.headers())).json()
    by_id = {order["id"]: order for order in mine}
    assert by_id[placed[1]["id"]]["private_ref"] == "mine"
    assert by_id[placed[2]["id"]]["ref"] == 'x{[,"private_ref":null,"status":'
    assert by_id[placed[2]["id"]]["private_ref"] == "r"
    assert by_id[placed[3]["id"]]["payments"][0]["info"] == {"private_ref": None, "status": "x"}
    assert by_id[placed[3]["id"]]["custom_fields"] == {"private_ref": "x", "delivery": "y"}
    assert [by_id[placed[i]["id"]]["customer_id"] for i in [4, 5]] == [ann["id"], ann["id"]]
    assert by_id[delivered]["delivery"]["carrier"] == "Zoom"
    assert by_id[placed[7]["id"]]["items"][0]["private_ref"] == "line-1"
    assert [order["delivery"] for order in mine if order["id"] != delivered] == [None] * 7

    # the customer deleted: its orders' views still hold its ids, which no reader sees any more
    deleted = await client.delete(f"/v1/customer_lists/{ann['customer_list_id']}", headers=shop.headers())
    assert deleted.status_code == 200
    await each_listed_order_is_its_get()
    mine = (await client.get("/v1/location/orders", headers=shop.headers())).json()
    by_id = {order["id"]: order for order in mine}
    for i in [4, 5]:
        customer = by_id[placed[i]["id"]]["customer"]
        assert (by_id[placed[i]["id"]]["customer_id"], customer["id"], customer["private_ref"]) == (None, None, None)
        assert customer["first_name"] == "Ann"


async def test_an_order_whose_view_is_in_another_timezone_reads_in_the_locations(
    client: httpx.AsyncClient, shop: Shop, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an operator moved the location to another timezone after the order was written: its
    # view holds times in the old one, so a GET and a list render it from its body, alike
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from sqlalchemy import update

    from comptoir.models import Location

    placed = await created(client, shop, plain())
    async with world.db.transaction() as session:
        await session.execute(update(Location).values(timezone="America/New_York"))
    as_stored: list[OrderRow] = []

    def counted(order: OrderRow, *args: Any) -> Any:
        answer = view_json(order, *args)
        if answer is not None:
            as_stored.append(order)
        return answer

    monkeypatch.setattr(render, "view_json", counted)
    read = await _read(client, shop, placed["id"])
    listed = await client.get("/v1/location/orders", headers=shop.headers())
    assert listed.status_code == 200, listed.text
    assert (as_stored, listed.content) == ([], b"[" + read + b"]")
    created_at = datetime.fromisoformat(json.loads(read)["created_at"])
    written = datetime.fromisoformat(placed["created_at"])
    assert (created_at, created_at.utcoffset() == written.utcoffset()) == (written, False)  # the same instant
    assert created_at.utcoffset() == created_at.astimezone(ZoneInfo("America/New_York")).utcoffset()
