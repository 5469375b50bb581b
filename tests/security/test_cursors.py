"""Cursors tell nothing and open only on their own list (docs/api/conventions.md
"Pagination"): a cursor is sealed, so it shows no row id (which counted every tenant's
orders) and is different every time; it is bound to its route, its location or account,
its filters and its connection (in the back office, its user and session), so any other
use, or a cursor altered by one byte, is the same 400."""

from __future__ import annotations

import base64
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import orjson
import pytest
from fastapi import FastAPI

from comptoir.app import create_app
from comptoir.config import Settings
from comptoir.db.engine import Database
from comptoir.http import cursors as sealing
from comptoir.kit import clock, ids
from comptoir.models import Location
from tests.api import conftest as api
from tests.api.conftest import LOCATION_SCOPE, Shop
from tests.api.customers.conftest import lists_of, new_customer
from tests.api.web.test_back_office_login import log_in
from tests.factories import World
from tests.response_schemas import CheckedASGITransport

REFUSED = {"error_type": "bad_request", "message": "cursor is not a value this API gave in X-Cursor-Next"}
ORDERS = "/v1/location/orders"

app, client, shop, world = api.app, api.client, api.shop, api.world  # the API's fixtures, here too


def raw(cursor: str) -> bytes:
    return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))


def text(sealed: bytes) -> str:
    return base64.urlsafe_b64encode(sealed).decode("ascii").rstrip("=")


async def place(client: httpx.AsyncClient, token: str, n: int, status: str = "new") -> list[str]:
    placed = []
    for _ in range(n):
        response = await client.post(ORDERS, json={"status": status}, headers={"X-Access-Token": token})
        assert response.status_code == 200, response.text
        placed.append(response.json()["id"])
    return placed


def a_minute_later() -> None:
    """Each list read in a fresh rate-limit window: order lists allow 10 a minute."""
    clock.freeze(clock.now() + timedelta(seconds=61))


async def cursor_of(client: httpx.AsyncClient, url: str, token: str, **params: Any) -> tuple[str, list[str]]:
    """The X-Cursor-Next of `url`'s first page of one item, and the ids of that page."""
    a_minute_later()
    response = await client.get(url, params={"count": 1, **params}, headers={"X-Access-Token": token})
    assert response.status_code == 200, response.text
    return response.headers["X-Cursor-Next"], [item["id"] for item in response.json()]


async def get(client: httpx.AsyncClient, url: str, token: str, cursor: str, **params: Any) -> httpx.Response:
    a_minute_later()
    return await client.get(url, params={"cursor": cursor, **params}, headers={"X-Access-Token": token})


async def tenant(world: World, name: str) -> tuple[Location, str, str]:
    """Another account's location, its location token and the public id of its customer list."""
    owner = await world.user(email=f"{name.lower()}@example.com")
    location = await world.location(await world.account(owner=owner, name=name), name=f"{name} Paris")
    customer_list = await world.customer_list(location=location)
    catalog = await world.catalog(location=location)
    token = await world.token(LOCATION_SCOPE, location=location, customer_list=customer_list, catalog=catalog)
    return location, token, customer_list.public_id


async def test_counting_every_tenants_orders_from_a_cursor_is_refused(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    _, b_token, _ = await tenant(world, "Bob")
    await place(client, b_token, 2)
    first, [newest] = await cursor_of(client, ORDERS, b_token)
    again, _ = await cursor_of(client, ORDERS, b_token)
    await place(client, shop.location_token, 7)  # account A
    await place(client, b_token, 1)
    later, _ = await cursor_of(client, ORDERS, b_token)
    # the same length whatever the ids, different every time, even for the same page
    assert len({len(first), len(again), len(later)}) == 1
    assert len({first, again, later}) == 3
    assert len({raw(c)[:12] for c in (first, again, later)}) == 3
    row_id = ids.decode("order", newest)
    for cursor in (first, again):
        assert row_id.to_bytes(8, "big") not in raw(cursor)
        assert row_id.to_bytes(8, "little") not in raw(cursor)
    # both cursors of the same page still lead to the same next page
    pages = [(await get(client, ORDERS, b_token, cursor, count=1)).json() for cursor in (first, again)]
    assert pages[0] == pages[1]
    assert len(pages[0]) == 1
    assert pages[0][0]["id"] != newest


async def test_reading_a_row_id_in_a_decoded_cursor_is_refused(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    placed = await place(client, shop.location_token, 2)
    cursor, [newest] = await cursor_of(client, ORDERS, shop.location_token)
    assert newest == placed[1]
    sealed = raw(cursor)
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(sealed)
    assert not re.fullmatch(rb"[\x20-\x7e]*", sealed)  # not text at all
    row_id = ids.decode("order", newest)
    assert row_id.to_bytes(8, "big") not in sealed
    order = await client.get(f"{ORDERS}/{newest}", headers=shop.headers())
    assert order.json()["created_at"].encode() not in sealed
    assert len(cursor) <= 100  # short: 60 bytes, 80 characters


async def test_a_cursor_altered_by_one_byte_is_refused(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    await place(client, shop.location_token, 2)
    cursor, _ = await cursor_of(client, ORDERS, shop.location_token)
    sealed = raw(cursor)
    before = await world.snapshot()
    for at in (0, 11, 12, len(sealed) // 2, len(sealed) - 17, len(sealed) - 1):
        altered = sealed[:at] + bytes([sealed[at] ^ 0x01]) + sealed[at + 1 :]
        response = await get(client, ORDERS, shop.location_token, text(altered))
        assert (response.status_code, response.json()) == (400, REFUSED), at
    for altered_text in (cursor[:-1], cursor + "A", "", "x" * 2000, text(sealed[:27])):
        response = await get(client, ORDERS, shop.location_token, altered_text)
        assert (response.status_code, response.json()) == (400, REFUSED), altered_text
    assert await world.snapshot() == before
    assert (await get(client, ORDERS, shop.location_token, cursor)).status_code == 200


async def test_another_accounts_cursor_is_refused_on_its_lists(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    _, b_token, b_list = await tenant(world, "Bob")
    await place(client, shop.location_token, 2)
    await place(client, b_token, 2)
    a_list = await lists_of(client, shop)
    for list_id, token in ((a_list, shop.location_token), (b_list, b_token)):
        for _ in range(2):
            await new_customer(client, shop, list_id, {}, token)
    customers = "/v1/customer_lists/{}/customers"
    cases = [
        (ORDERS, ORDERS),
        (customers.format(a_list), customers.format(b_list)),
    ]
    for a_url, b_url in cases:
        a_cursor, _ = await cursor_of(client, a_url, shop.location_token)
        b_cursor, _ = await cursor_of(client, b_url, b_token)
        response = await get(client, b_url, b_token, a_cursor)
        assert (response.status_code, response.json()) == (400, REFUSED), a_url
        assert (await get(client, b_url, b_token, b_cursor)).status_code == 200


async def test_a_cursor_used_on_another_resource_is_refused(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await place(client, shop.location_token, 2)
    orders_cursor, _ = await cursor_of(client, ORDERS, shop.location_token)
    customers = f"/v1/customer_lists/{await lists_of(client, shop)}/customers"
    for _ in range(2):
        await new_customer(client, shop, customers.split("/")[3])
    customers_cursor, _ = await cursor_of(client, customers, shop.location_token)
    long_orders = f"/v1/locations/{shop.location.public_id}/orders"
    for cursor, url in (
        (orders_cursor, "/v1/callback/events"),
        (orders_cursor, customers),
        (orders_cursor, long_orders),  # another route, though the same orders
        (customers_cursor, ORDERS),
        (customers_cursor, "/v1/callback/events"),
    ):
        response = await get(client, url, shop.location_token, cursor)
        assert (response.status_code, response.json()) == (400, REFUSED), url


async def test_a_cursor_used_with_other_filters_is_refused(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    await place(client, shop.location_token, 3, "new")
    await place(client, shop.location_token, 1, "accepted")
    cursor, _ = await cursor_of(client, ORDERS, shop.location_token, status="new")
    for other in ({}, {"status": "accepted"}, {"status": "new", "created_by": "Test app"}, {"status": "new "}):
        response = await get(client, ORDERS, shop.location_token, cursor, **other)
        assert (response.status_code, response.json()) == (400, REFUSED), other
    # `count` is no filter: the walk may change its page size
    response = await get(client, ORDERS, shop.location_token, cursor, status="new", count=5)
    assert response.status_code == 200
    assert [order["status"] for order in response.json()] == ["new", "new"]


async def test_another_connections_cursor_of_the_same_location_is_refused(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    kiosk = await world.token("location[orders.write]", location=shop.location, client=await world.client("Kiosk"))
    await place(client, shop.location_token, 2)
    cursor, _ = await cursor_of(client, ORDERS, shop.location_token)
    response = await get(client, ORDERS, kiosk, cursor)
    assert (response.status_code, response.json()) == (400, REFUSED)
    own, _ = await cursor_of(client, ORDERS, kiosk)
    assert (await get(client, ORDERS, kiosk, own)).status_code == 200


async def test_a_back_office_next_link_of_another_session_is_refused(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, monkeypatch: pytest.MonkeyPatch
) -> None:
    from comptoir.web import data

    monkeypatch.setattr(data, "PAGE_SIZE", 1)
    await place(client, shop.location_token, 2)
    url = f"/locations/{shop.location.public_id}/orders"
    await log_in(client, "owner@example.com")
    found = re.search(r'<a href="\?cursor=([\w-]+)">Next</a>', (await client.get(url)).text)
    assert found is not None
    assert (await client.get(f"{url}?cursor={found.group(1)}")).status_code == 200
    async with httpx.AsyncClient(
        transport=CheckedASGITransport(app=app), base_url="http://testserver"
    ) as other_session:
        await log_in(other_session, "owner@example.com")  # the same user, another session
        answer = await other_session.get(f"{url}?cursor={found.group(1)}")
        assert answer.status_code == 400
        assert "Next: this link is broken or out of date; start again from the first page" in answer.text


async def test_a_cursor_outlives_a_restart_with_the_same_server_key(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, settings: Settings, database: Database
) -> None:
    placed = await place(client, shop.location_token, 2)
    cursor, _ = await cursor_of(client, ORDERS, shop.location_token)
    sealing._sealer.cache_clear()  # as a new process: nothing kept but the server key
    before = app.state.comptoir
    app.state.comptoir = create_app(settings, database=database, background=False).state.comptoir
    await before.fast.close()  # the new state's is closed by the app fixture
    response = await get(client, ORDERS, shop.location_token, cursor)
    assert response.status_code == 200
    assert [order["id"] for order in response.json()] == [placed[0]]


def test_a_cursors_length_and_bytes_tell_nothing_of_its_key() -> None:
    key, binding = b"k" * 32, b'["/v1/location/orders",[],[],["connection",1]]'
    at = datetime(2026, 11, 25, 9, 59, 58, 38410, tzinfo=UTC)
    cursors = [sealing._seal(key, binding, [at, row_id]) for row_id in (1, 211, 219, 2**40, 2**62)]
    assert len({len(cursor) for cursor in cursors}) == 1
    assert [sealing._open(key, binding, cursor) for cursor in cursors] == [
        [at, row_id] for row_id in (1, 211, 219, 2**40, 2**62)
    ]
    assert sealing._open(b"o" * 32, binding, cursors[1]) is None  # another server key
    assert sealing._open(key, binding.replace(b"1]]", b"2]]"), cursors[1]) is None  # another connection
