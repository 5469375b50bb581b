"""Every order is created by `orders.service.create_order`; on PostgreSQL its repository
writes it by one statement, alone or (an Idempotency-Key, a customer, an account token)
inside the request's transaction: both give the same order, the same event and the same
reads."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from comptoir.auth.tokens import resolve
from comptoir.db.engine import Database
from comptoir.db.unit import Unit
from comptoir.kit import clock
from comptoir.models import Change
from comptoir.orders import service
from comptoir.orders.repository import OrderRepository
from comptoir.orders.schemas import OrderCreate
from tests.api.callbacks.conftest import subscribe
from tests.api.conftest import Shop
from tests.api.orders.conftest import order
from tests.factories import World


def _without_ids(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: ("<id>" if k in ("id", "order_id") else _without_ids(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_ids(v) for v in value]
    return value


async def _listener(client: httpx.AsyncClient, shop: Shop, world: World) -> str:
    app = await world.client(name="Kitchen display")
    token = await world.token("location[orders.read]", location=shop.location, client=app)
    await subscribe(client, token, {"order": ["create"]})
    return token


async def test_both_paths_give_the_same_order_event_and_reads(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    clock.freeze(datetime(2026, 6, 24, 15, 7, 53, tzinfo=UTC))
    listener = await _listener(client, shop, world)
    one = await client.post("/v1/location/orders", json=order(), headers=shop.headers())
    keyed = await client.post("/v1/location/orders", json=order(), headers={**shop.headers(), "Idempotency-Key": "k-1"})
    assert one.status_code == keyed.status_code == 200
    assert one.json()["id"] != keyed.json()["id"]
    assert _without_ids(one.json()) == _without_ids(keyed.json())
    reads = [
        (await client.get(f"/v1/location/orders/{created.json()['id']}", headers=shop.headers())).json()
        for created in (one, keyed)
    ]
    assert reads == [one.json(), keyed.json()]
    events = (await client.get("/v1/callback/events", headers={"X-Access-Token": listener})).json()
    assert [event["order_id"] for event in events] == [one.json()["id"], keyed.json()["id"]]
    states = [
        (await client.get(f"/v1/callback/events/{event['id']}", headers={"X-Access-Token": listener})).json()
        for event in events
    ]
    assert _without_ids(states[0]) == _without_ids(states[1])
    assert states[0]["new_state"]["private_ref"] is None  # nobody's private refs in events
    assert states[0]["new_state"]["id"] == one.json()["id"]
    listed = (
        await client.get("/v1/location/orders", params={"private_ref": "pos-1001"}, headers=shop.headers())
    ).json()
    assert [o["id"] for o in listed] == [keyed.json()["id"], one.json()["id"]]


@pytest.mark.parametrize(
    "body",
    [
        order(items=[{"product_name": "X", "price": "1 USD", "quantity": 1}]),
        order(custom_fields={"x": "y" * 20_000}),
    ],
)
async def test_a_refused_order_writes_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World, body: dict[str, Any]
) -> None:
    await _listener(client, shop, world)
    before = await world.snapshot()
    refused = await client.post("/v1/location/orders", json=body, headers=shop.headers())
    assert refused.status_code == 422, refused.text
    assert await world.snapshot() == before


@pytest.mark.parametrize(("key", "in_transaction"), [(None, False), ("k-1", True)])
async def test_every_order_is_written_by_the_one_insert(
    client: httpx.AsyncClient,
    shop: Shop,
    db_kind: str,
    monkeypatch: pytest.MonkeyPatch,
    key: str | None,
    in_transaction: bool,
) -> None:
    """One creation path: every order goes through `OrderRepository.insert`, which joins the
    request's transaction when it has one (always on SQLite) and otherwise writes alone."""
    calls: list[bool] = []
    insert = OrderRepository.insert

    async def spy(self: OrderRepository, *args: Any) -> None:
        calls.append(self.unit.open_session is not None)
        await insert(self, *args)

    monkeypatch.setattr(OrderRepository, "insert", spy)
    headers = {**shop.headers(), **({"Idempotency-Key": key} if key else {})}
    created = await client.post("/v1/location/orders", json=order(), headers=headers)
    assert created.status_code == 200, created.text
    assert calls == [in_transaction or db_kind == "sqlite"]
    read = await client.get(f"/v1/location/orders/{created.json()['id']}", headers=shop.headers())
    assert read.json() == created.json()


async def test_exact_numbers_of_an_order_read_back_exactly(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    """The view and the event state, written once for both (`orders.service.create_order`), keep
    the numbers as sent: the stored text is only marked for the fast parser without any."""
    listener = await _listener(client, shop, world)
    fields = b'{"rate":0.10,"big":123456789012345678901234567890,"n":[1,2.50]}'
    body = order(custom_fields={}).copy()
    raw = httpx.Request("POST", "http://x", json=body).content.replace(
        b'"custom_fields":{}', b'"custom_fields":' + fields
    )
    created = await client.post(
        "/v1/location/orders", content=raw, headers={**shop.headers(), "Content-Type": "application/json"}
    )
    assert created.status_code == 200, created.text
    assert b'"custom_fields":' + fields in created.content
    read = await client.get(f"/v1/location/orders/{created.json()['id']}", headers=shop.headers())
    assert b'"custom_fields":' + fields in read.content
    events = (await client.get("/v1/callback/events", headers={"X-Access-Token": listener})).json()
    event = await client.get(f"/v1/callback/events/{events[0]['id']}", headers={"X-Access-Token": listener})
    assert b'"custom_fields":' + fields in event.content


@pytest.mark.parametrize("with_ref", [True, False])
@pytest.mark.parametrize("with_listener", [True, False])
async def test_an_order_with_or_without_ref_and_listener_is_written_whole(
    client: httpx.AsyncClient, shop: Shop, world: World, with_ref: bool, with_listener: bool
) -> None:
    """The one statement leaves out what it has nothing to write: a private ref, events."""
    listener = await _listener(client, shop, world) if with_listener else None
    body = order()
    if not with_ref:
        body.pop("private_ref")
    created = await client.post("/v1/location/orders", json=body, headers=shop.headers())
    assert created.status_code == 200, created.text
    assert created.json()["private_ref"] == ("pos-1001" if with_ref else None)
    read = await client.get(f"/v1/location/orders/{created.json()['id']}", headers=shop.headers())
    assert read.json() == created.json()
    listed = await client.get("/v1/location/orders", params={"private_ref": "pos-1001"}, headers=shop.headers())
    assert [o["id"] for o in listed.json()] == ([created.json()["id"]] if with_ref else [])
    async with world.db.transaction(write=False) as session:
        written = (await session.execute(select(Change.resource_type, Change.event_type))).all()
        assert [tuple(row) for row in written if row[0] == "order"] == [("order", "create")]
    if listener is not None:
        events = (await client.get("/v1/callback/events", headers={"X-Access-Token": listener})).json()
        assert [event["order_id"] for event in events] == [created.json()["id"]]


@pytest.mark.parametrize("element_ref", [True, False])
async def test_the_creation_answers_what_a_read_gives(client: httpx.AsyncClient, shop: Shop, element_ref: bool) -> None:
    """Without any private ref of the caller's, the answer is the stored rendering as is."""
    body = order()
    body.pop("private_ref")
    if not element_ref:
        for item in body["items"]:
            item.pop("private_ref", None)
    created = await client.post("/v1/location/orders", json=body, headers=shop.headers())
    assert created.status_code == 200, created.text
    assert created.headers["content-type"] == "application/json"
    assert int(created.headers["content-length"]) == len(created.content)
    assert [item["private_ref"] for item in created.json()["items"]] == (
        ["line-1", None] if element_ref else [None, None]
    )
    read = await client.get(f"/v1/location/orders/{created.json()['id']}", headers=shop.headers())
    assert read.json() == created.json()


async def test_a_repository_made_of_a_session_creates_and_reads_as_the_api_does(
    app: FastAPI, client: httpx.AsyncClient, shop: Shop, world: World, database: Database
) -> None:
    """One construction for every caller: a repository on a caller's session (the back
    office, the CLI, the jobs), without the direct driver or the connection cache, writes by
    the same insert (the one statement inside that transaction on PostgreSQL) and reads back
    what the API reads, events included."""
    clock.freeze(datetime(2026, 6, 24, 15, 7, 53, tzinfo=UTC))
    listener = await _listener(client, shop, world)
    state = app.state.comptoir
    ctx = await resolve(state.fast, state.cache, state.key, shop.location_token)
    assert ctx.location is not None
    assert ctx.account is not None
    body = OrderCreate.model_validate(order())
    async with database.transaction() as session:
        created = await service.create_order(OrderRepository(Unit.of(session)), ctx, ctx.location, ctx.account, body)
    async with database.transaction(write=False) as session:
        read = await service.get_order(OrderRepository(Unit.of(session)), ctx, ctx.location, created["id"])
    assert read == created
    api = await client.get(f"/v1/location/orders/{created['id']}", headers=shop.headers())
    assert api.json() == read
    events = (await client.get("/v1/callback/events", headers={"X-Access-Token": listener})).json()
    assert [event["order_id"] for event in events] == [created["id"]]
    listed = await client.get("/v1/location/orders", params={"private_ref": "pos-1001"}, headers=shop.headers())
    assert [o["id"] for o in listed.json()] == [created["id"]]
