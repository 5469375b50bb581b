from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.conftest import Shop
from tests.factories import World


async def lists_of(client: httpx.AsyncClient, shop: Shop) -> str:
    """The public id of the shop's location-level list (bound to its location token)."""
    response = await client.get("/v1/location/customer_lists", headers=shop.headers())
    assert response.status_code == 200, response.text
    return response.json()[0]["id"]


@pytest.fixture
async def list_id(client: httpx.AsyncClient, shop: Shop) -> str:
    return await lists_of(client, shop)


async def new_customer(
    client: httpx.AsyncClient, shop: Shop, list_id: str, body: dict[str, Any] | None = None, token: str | None = None
) -> dict[str, Any]:
    response = await client.post(
        f"/v1/customer_lists/{list_id}/customers", json=body or {}, headers=shop.headers(token)
    )
    assert response.status_code == 200, response.text
    return response.json()


async def new_card(
    client: httpx.AsyncClient, shop: Shop, list_id: str, customer_id: str, **fields: Any
) -> dict[str, Any]:
    response = await client.post(
        f"/v1/customer_lists/{list_id}/loyalty_cards",
        json={"customer_id": customer_id, **fields},
        headers=shop.headers(),
    )
    assert response.status_code == 200, response.text
    return response.json()


__all__ = ["World", "lists_of", "new_card", "new_customer"]
