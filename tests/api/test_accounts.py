"""spec 2.3 Account, 4.8 GET /accounts/:id and /account;
docs/api/locations-accounts.md "Accounts"."""

from __future__ import annotations

import httpx

from tests.api.conftest import Shop
from tests.factories import World


async def test_account_short_form(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.get("/v1/account", headers=shop.headers(shop.account_token))
    assert response.status_code == 200
    assert response.json() == {"id": shop.account.public_id, "name": "Chez Ada", "currency": "EUR"}


async def test_account_by_id(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.get(f"/v1/accounts/{shop.account.public_id}", headers=shop.headers(shop.account_token))
    assert response.status_code == 200
    assert response.json() == {"id": shop.account.public_id, "name": "Chez Ada", "currency": "EUR"}


async def test_accounts_lists_the_connections_own_account(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    await world.account(name="Someone else")
    response = await client.get("/v1/accounts", headers=shop.headers(shop.account_token))
    assert response.status_code == 200
    assert response.json() == [{"id": shop.account.public_id, "name": "Chez Ada", "currency": "EUR"}]
    assert "X-Cursor-Next" not in response.headers


async def test_another_account_is_404(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    other = await world.account(name="Someone else")
    for account_id in (other.public_id, "zzzzzz", "bad!"):
        response = await client.get(f"/v1/accounts/{account_id}", headers=shop.headers(shop.account_token))
        assert response.status_code == 404
        assert response.json() == {"error_type": "not_found", "message": f"No account with id {account_id!r}"}


async def test_account_endpoints_need_an_account_token(client: httpx.AsyncClient, shop: Shop) -> None:
    for path in ("/v1/account", f"/v1/accounts/{shop.account.public_id}", "/v1/accounts"):
        response = await client.get(path, headers=shop.headers())
        assert response.status_code == 403, path
        assert response.json() == {"error_type": "forbidden", "message": "This endpoint needs an account-level token"}
