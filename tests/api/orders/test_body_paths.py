"""An order's body is read one of two ways (docs/architecture.md "Request bodies"): a small body
whose length is declared arrives whole and is validated whole by the model; any other body
(chunked, or large) is streamed, each element of its arrays checked as it completes. The
answers are the same whichever way a body came: the same order, the same 422 (also when
the elements hold more errors than a 422 names), the same refusal of a NUL, and a refused
body creates nothing."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
from sqlalchemy import func, select

from comptoir.errors import MAX_ERRORS
from comptoir.models import Order
from tests.api.conftest import Shop
from tests.api.orders.conftest import order
from tests.factories import World

BAD_ITEM = {"product_name": "Soup", "price": "7.50 EUR", "quantity": "0"}


async def _orders(world: World) -> int:
    async with world.db.transaction(write=False) as session:
        return await session.scalar(select(func.count()).select_from(Order))


async def _both(client: httpx.AsyncClient, shop: Shop, raw: bytes) -> tuple[httpx.Response, httpx.Response]:
    """`raw` sent whole with its length, then streamed in chunks of 100 bytes without one."""

    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(raw), 100):
            yield raw[start : start + 100]

    headers = {**shop.headers(), "Content-Type": "application/json"}
    whole = await client.post("/v1/location/orders", content=raw, headers=headers)
    streamed = await client.post("/v1/location/orders", content=chunks(), headers=headers)
    return whole, streamed


def _without_ids(read: dict[str, Any]) -> dict[str, Any]:
    same = {key: value for key, value in read.items() if key not in ("id", "created_at", "updated_at")}
    for collection in ("items", "discounts", "charges", "payments"):
        same[collection] = [{k: v for k, v in e.items() if k != "id"} for e in read[collection]]
    return same


async def test_a_small_order_reads_the_same_sent_whole_or_streamed(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    whole, streamed = await _both(client, shop, json.dumps(order()).encode())
    assert (whole.status_code, streamed.status_code) == (200, 200)
    assert _without_ids(whole.json()) == _without_ids(streamed.json())
    assert whole.json()["total"] == "32.70 EUR"
    assert await _orders(world) == 2


async def test_more_bad_items_than_a_422_names_are_refused_alike_whole_or_streamed(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    """The elements' errors first (as the stream found them), the rest of the body's counted:
    here the status, which the model would have named first."""
    raw = json.dumps(order(status="lost", items=[BAD_ITEM] * (MAX_ERRORS + 10))).encode()
    assert len(raw) < 64 * 1024
    whole, streamed = await _both(client, shop, raw)
    assert (whole.status_code, streamed.status_code) == (422, 422)
    assert whole.json() == streamed.json()
    answer = whole.json()
    assert len(answer["errors"]) == MAX_ERRORS
    assert answer["errors"][0] == {"field": "items[0].quantity", "message": "must be greater than 0"}
    assert answer["errors"][-1]["field"] == f"items[{MAX_ERRORS - 1}].quantity"
    # 60 items' errors and the status: 50 named, 11 counted
    assert answer["message"] == "items[0].quantity: must be greater than 0 (and 60 more)"
    assert await _orders(world) == 0


async def test_a_few_bad_items_are_named_in_the_models_order_whole_or_streamed(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    raw = json.dumps(order(status="lost", items=[BAD_ITEM] * 2)).encode()
    whole, streamed = await _both(client, shop, raw)
    assert (whole.status_code, streamed.status_code) == (422, 422)
    assert whole.json() == streamed.json()
    assert [error["field"] for error in whole.json()["errors"]] == ["status", "items[0].quantity", "items[1].quantity"]
    assert await _orders(world) == 0


async def test_a_nul_in_a_key_the_order_ignores_is_refused_alike_whole_or_streamed(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    raw = json.dumps(order(unknown={"note": "a\u0000b"})).encode()
    whole, streamed = await _both(client, shop, raw)
    assert (whole.status_code, streamed.status_code) == (422, 422)
    assert whole.json() == streamed.json()
    assert whole.json()["errors"] == [{"field": "body", "message": whole.json()["errors"][0]["message"]}]
    assert whole.json()["errors"][0]["message"].startswith("a key ")
    assert await _orders(world) == 0


async def test_a_nul_in_a_field_is_named_alike_whole_or_streamed(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    raw = json.dumps(order(customer_notes="ring\u0000twice")).encode()
    whole, streamed = await _both(client, shop, raw)
    assert (whole.status_code, streamed.status_code) == (422, 422)
    assert whole.json() == streamed.json()
    assert [error["field"] for error in whole.json()["errors"]] == ["customer_notes"]
    assert await _orders(world) == 0
