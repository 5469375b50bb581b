"""Bodies made to be expensive to refuse: long arrays of empty objects, just under the size
limits. Each is refused with a 422 naming the first 50 errors, in order, and counting the
rest, in a small answer, and changes nothing stored (docs/api/conventions.md "Errors",
docs/architecture.md "Request bodies"). Their memory and the other requests' latency meanwhile
are measured on a real server process: tests/security/test_huge_invalid_bodies_memory.py."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from comptoir.kit.jsonstream import STEP
from tests.api import conftest as api
from tests.api.catalogs.conftest import create, full
from tests.api.conftest import Shop
from tests.factories import World

app, client, shop, world = api.app, api.client, api.shop, api.world  # the API's fixtures, here too

JSON = {"Content-Type": "application/json"}


def empty_objects(prefix: bytes, count: int, suffix: bytes) -> bytes:
    """`prefix` + `[{},{},...]` of `count` empty objects + `suffix`, as an attacker writes it."""
    return prefix + b"[" + b",".join([b"{}"] * count) + b"]" + suffix


def opening_hours_body(count: int) -> bytes:
    return empty_objects(b'{"opening_hours":{"monday":', count, b"}}")


def products_body(count: int) -> bytes:
    return empty_objects(b'{"data":{"products":', count, b"}}")


def catalog_of_empty_products(limit: int) -> bytes:
    """A catalog of as many empty products as `limit` bytes hold."""
    prefix, suffix = b'{"data":{"products":', b"}}"
    count = (limit - len(prefix) - len(suffix) - 1) // 3  # "[" + "{}," * count, the last "," a "]"
    body = products_body(count)
    assert limit - 3 < len(body) <= limit
    return body


def refusal(errors: list[tuple[str, str]], total: int) -> dict[str, Any]:
    """The 422 naming the first 50 of `total` errors."""
    named = errors[:50]
    first_field, first_message = named[0]
    return {
        "error_type": "unprocessable_entity",
        "message": f"{first_field}: {first_message} (and {total - 1} more)",
        "errors": [{"field": field, "message": message} for field, message in named],
    }


def slot_errors(count: int) -> list[tuple[str, str]]:
    return [(f"opening_hours.monday[{i}].{key}", "is required") for i in range(count) for key in ("from", "to")]


def product_errors(count: int) -> list[tuple[str, str]]:
    return [
        (f"data.products[{i}].{key}", message)
        for i in range(count)
        for key, message in (
            ("skus", "must hold at least one sku"),
            ("category_ref", "is required"),
            ("name", "is required"),
        )
    ]


async def test_opening_hours_of_600_000_empty_slots_is_refused_naming_the_first_50(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    count = 633_000  # 1.9 MB, under the 2 MiB limit
    content = opening_hours_body(count)
    assert 1_850_000 < len(content) < 2 * 1024 * 1024
    before = await world.snapshot()
    response = await client.patch("/v1/location", content=content, headers=shop.headers() | JSON)
    assert response.status_code == 422
    assert response.json() == refusal(slot_errors(25), 2 * count)
    assert len(response.content) < 5_000
    assert await world.snapshot() == before


async def test_a_catalog_of_a_million_empty_products_is_refused_naming_the_first_50(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    created = await create(client, shop, {"name": "Carte", "data": full()})
    assert created.status_code == 200, created.text
    count = 1_400_000  # 4.2 MB
    before = await world.snapshot()
    response = await client.put(
        f"/v1/catalogs/{created.json()['id']}",
        content=products_body(count),
        headers=shop.headers(shop.account_token) | JSON,
    )
    assert response.status_code == 422
    assert response.json() == refusal(product_errors(17), 3 * count)
    assert len(response.content) < 10_000
    assert await world.snapshot() == before


async def test_an_inventory_of_350_000_empty_entries_is_refused_naming_the_first_50(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    created = await create(client, shop, {"name": "Carte", "data": full()})
    assert created.status_code == 200, created.text
    count = 349_000  # 1 MB
    before = await world.snapshot()
    response = await client.patch(
        f"/v1/catalogs/{created.json()['id']}/location/inventory",
        content=empty_objects(b"", count, b""),
        headers=shop.headers() | JSON,
    )
    assert response.status_code == 422
    errors = [(f"[{i}]", "must have exactly one of sku_ref and option_ref") for i in range(50)]
    assert response.json() == refusal(errors, count)
    assert await world.snapshot() == before


async def test_an_order_of_64_kib_of_empty_items_is_refused_naming_the_first_50_whole_or_streamed(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    """The largest order creation reads whole (its declared length at most 64 KiB), so that the
    model refuses it and its element checks read it again: the same 422 as the same body
    streamed in without a length, which the checks refuse as it comes."""
    before = await world.snapshot()
    count = (64 * 1024 - len(b'{"status":"new","items":[]}') + 1) // 3
    content = empty_objects(b'{"status":"new","items":', count, b"}")
    assert 64 * 1024 - 3 < len(content) <= 64 * 1024

    async def chunks() -> Any:
        for start in range(0, len(content), STEP):
            yield content[start : start + STEP]

    whole = await client.post("/v1/location/orders", content=content, headers=shop.headers() | JSON)
    streamed = await client.post("/v1/location/orders", content=chunks(), headers=shop.headers() | JSON)
    assert (whole.status_code, streamed.status_code) == (422, 422)
    assert whole.json() == streamed.json()
    keys = ("product_name", "price", "quantity")
    item_errors = [(f"items[{i}].{key}", "is required") for i in range(count) for key in keys]
    assert whole.json()["errors"] == refusal(item_errors, 0)["errors"]
    assert whole.json()["message"].startswith("items[0].product_name: is required (and ")
    assert await world.snapshot() == before


async def test_under_50_errors_every_error_is_named_in_the_models_order(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    before = await world.snapshot()
    content = b'{"preparation_time": "soon", "opening_hours": {"monday": [{}, {"from": "10:00", "to": "11:00"}, {}]}}'
    response = await client.patch("/v1/location", content=content, headers=shop.headers() | JSON)
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"field": "opening_hours.monday[0].from", "message": "is required"},
        {"field": "opening_hours.monday[0].to", "message": "is required"},
        {"field": "opening_hours.monday[2].from", "message": "is required"},
        {"field": "opening_hours.monday[2].to", "message": "is required"},
        {"field": "preparation_time", "message": "must be an integer"},
    ]
    assert response.json()["message"] == "opening_hours.monday[0].from: is required (and 4 more)"
    assert await world.snapshot() == before


async def test_an_error_naming_a_huge_key_is_cut(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    before = await world.snapshot()
    key = "k" * 100_000 + "\\u0000"
    content = b'{"custom_fields": {"' + key.encode() + b'": 1}}'
    response = await client.patch("/v1/location", content=content, headers=shop.headers() | JSON)
    assert response.status_code == 422
    [error] = response.json()["errors"]
    assert error == {"field": "custom_fields." + "k" * 983 + "...", "message": "key must not contain a NUL character"}
    assert len(response.content) < 3_000
    assert await world.snapshot() == before


async def test_refusing_a_32_mib_catalog_lets_other_requests_run_between_every_step(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    """docs/architecture.md "Request bodies": no step holds the event loop. The body comes in
    one 32 MiB chunk; the loop turns (another task runs) at least once between two steps of
    STEP bytes, whatever the machine's speed."""
    created = await create(client, shop, {"name": "Carte", "data": full()})
    assert created.status_code == 200, created.text
    content = catalog_of_empty_products(32 * 1024 * 1024)
    turns = 0

    async def another_task() -> None:
        nonlocal turns
        while True:
            turns += 1
            await asyncio.sleep(0)

    before = await world.snapshot()
    other = asyncio.create_task(another_task())
    try:
        response = await client.put(
            f"/v1/catalogs/{created.json()['id']}", content=content, headers=shop.headers(shop.account_token) | JSON
        )
    finally:
        other.cancel()
    assert response.status_code == 422
    assert len(response.json()["errors"]) == 50
    assert turns >= len(content) // STEP - 1
    assert await world.snapshot() == before
