"""spec 2.6 and 4.7: loyalty operations (exact decimal delta, computed new_balance, newest
first, never updated or deleted; an order_id must name an existing order)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from comptoir.kit import clock
from tests.api.conftest import Shop
from tests.api.customers.conftest import new_card, new_customer
from tests.factories import World


@pytest.fixture
async def card(client: httpx.AsyncClient, shop: Shop, list_id: str) -> dict[str, Any]:
    customer = await new_customer(client, shop, list_id)
    return await new_card(client, shop, list_id, customer["id"], ref="P-1")


def ops(list_id: str, card: dict[str, Any], op_id: str | None = None) -> str:
    return f"/v1/customer_lists/{list_id}/loyalty_cards/{card['id']}/operations" + (f"/{op_id}" if op_id else "")


async def operate(
    client: httpx.AsyncClient, shop: Shop, list_id: str, card: dict[str, Any], body: Any
) -> httpx.Response:
    return await client.post(ops(list_id, card), json=body, headers=shop.headers())


async def test_an_operation_answers_its_new_balance_and_moves_the_card(
    client: httpx.AsyncClient, shop: Shop, list_id: str, card: dict[str, Any]
) -> None:
    clock.freeze(datetime(2026, 6, 24, 15, 7, 53, tzinfo=UTC))
    response = await operate(client, shop, list_id, card, {"delta": "10.5", "reason": "Welcome bonus"})
    assert response.status_code == 200
    operation = response.json()
    assert operation == {
        "id": operation["id"],
        "customer_id": card["customer_id"],
        "created_at": "2026-06-24T17:07:53+02:00",
        "order_location_id": None,
        "order_id": None,
        "reason": "Welcome bonus",
        "delta": "10.5",
        "new_balance": "10.5",
    }
    card_now = (
        await client.get(f"/v1/customer_lists/{list_id}/loyalty_cards/{card['id']}", headers=shop.headers())
    ).json()
    assert card_now["balance"] == "10.5"
    assert (await client.get(ops(list_id, card, operation["id"]), headers=shop.headers())).json() == operation


async def test_balances_are_exact_decimals(
    client: httpx.AsyncClient, shop: Shop, list_id: str, card: dict[str, Any]
) -> None:
    balances = []
    for delta in (
        "0.1",
        0.2,
        "-0.3",
        "3",
        "123456789012345678901234567890.123456789",
        "-123456789012345678901234567890",
    ):
        balances.append((await operate(client, shop, list_id, card, {"delta": delta})).json()["new_balance"])
    assert balances == ["0.1", "0.3", "0.0", "3.0", "123456789012345678901234567893.123456789", "3.123456789"]


async def test_a_balance_may_go_negative(
    client: httpx.AsyncClient, shop: Shop, list_id: str, card: dict[str, Any]
) -> None:
    response = await operate(client, shop, list_id, card, {"delta": "-5"})
    assert (response.json()["delta"], response.json()["new_balance"]) == ("-5.0", "-5.0")


async def test_operations_are_listed_newest_first(
    client: httpx.AsyncClient, shop: Shop, list_id: str, card: dict[str, Any]
) -> None:
    made = [(await operate(client, shop, list_id, card, {"delta": str(i)})).json() for i in range(1, 4)]
    response = await client.get(ops(list_id, card), headers=shop.headers())
    assert response.json() == list(reversed(made))
    first = await client.get(ops(list_id, card), params={"count": 2}, headers=shop.headers())
    assert [item["new_balance"] for item in first.json()] == ["6.0", "3.0"]
    rest = await client.get(
        ops(list_id, card), params={"cursor": first.headers["X-Cursor-Next"]}, headers=shop.headers()
    )
    assert [item["new_balance"] for item in rest.json()] == ["1.0"]


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({}, "delta", "is required"),
        ({"delta": None}, "delta", "is required"),  # docs/api/conventions.md "Null fields"
        ({"delta": "ten"}, "delta", "'ten' is not a valid decimal (expected e.g. \"13.5\")"),
        ({"delta": True}, "delta", "true is not a valid decimal"),
        ({"delta": "1", "reason": 5}, "reason", "must be a string"),
        ({"delta": "1", "order_id": "zzzzzz"}, "order_id", "no order with id 'zzzzzz'"),
    ],
)
async def test_invalid_operations_are_refused_and_the_balance_stays(
    client: httpx.AsyncClient,
    shop: Shop,
    list_id: str,
    card: dict[str, Any],
    world: World,
    body: dict[str, Any],
    field: str,
    message: str,
) -> None:
    await operate(client, shop, list_id, card, {"delta": "2"})
    before = await world.snapshot()
    response = await operate(client, shop, list_id, card, body)
    assert response.status_code == 422
    assert response.json()["errors"] == [{"field": field, "message": message}]
    assert await world.snapshot() == before


async def test_operations_cannot_be_updated_or_deleted(
    client: httpx.AsyncClient, shop: Shop, list_id: str, card: dict[str, Any], world: World
) -> None:
    operation = (await operate(client, shop, list_id, card, {"delta": "2"})).json()
    before = await world.snapshot()
    path = ops(list_id, card, operation["id"])
    for method in ("PATCH", "PUT", "DELETE"):
        response = await client.request(method, path, json={"delta": "5"}, headers=shop.headers())
        assert response.status_code == 404
        assert response.json() == {"error_type": "routing_error", "message": f"No route matches [{method}] {path}"}
    assert await world.snapshot() == before


async def test_an_unknown_operation_or_card_is_404(
    client: httpx.AsyncClient, shop: Shop, list_id: str, card: dict[str, Any], world: World
) -> None:
    read = await client.get(ops(list_id, card, "zzzzzz"), headers=shop.headers())
    assert (read.status_code, read.json()) == (
        404,
        {"error_type": "not_found", "message": "No loyalty operation with id 'zzzzzz'"},
    )
    before = await world.snapshot()
    response = await operate(client, shop, list_id, {"id": "zzzzzz"}, {"delta": "1"})
    assert (response.status_code, response.json()) == (
        404,
        {"error_type": "not_found", "message": "No loyalty card with id 'zzzzzz'"},
    )
    assert await world.snapshot() == before
