"""Access control: spec 5.4 item 1 (X-Access-Token), 5.6 (401 messages), 5.1 and
docs/api/conventions.md "Access"/"Errors" (403 for scope or level),
docs/architecture.md "Permissions" (404 for out of reach)."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import update

from comptoir.connections.service import set_blocked
from comptoir.db.engine import Database
from comptoir.models import Account, Connection
from tests.api.conftest import Shop
from tests.factories import World

SUSPENDED = "The account/location has been suspended for non payment of the subscription"
REVOKED = "The access token is invalid or the connection has been revoked"
BLOCKED = "The connection has been blocked"


async def test_missing_token_is_401(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.get("/v1/location")
    assert response.status_code == 401
    assert response.json() == {"error_type": "unauthorized", "message": "The X-Access-Token header is missing"}


@pytest.mark.parametrize("token", ["nope", "0" * 32, "x" * 1000])
async def test_unknown_token_is_401_with_the_spec_message(client: httpx.AsyncClient, shop: Shop, token: str) -> None:
    response = await client.get("/v1/location", headers={"X-Access-Token": token})
    assert response.status_code == 401
    assert response.json() == {"error_type": "unauthorized", "message": REVOKED}


async def test_a_token_in_another_header_is_not_accepted(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await client.get("/v1/location", headers={"X-Token": shop.location_token})
    assert (response.status_code, response.json()) == (
        401,
        {"error_type": "unauthorized", "message": "The X-Access-Token header is missing"},
    )


async def test_revoked_connection_is_401(client: httpx.AsyncClient, shop: Shop, database: Database) -> None:
    from comptoir.kit import clock

    async with database.transaction() as session:
        await session.execute(update(Connection).values(revoked_at=clock.now()))
    response = await client.get("/v1/location", headers=shop.headers())
    assert response.status_code == 401
    assert response.json() == {"error_type": "unauthorized", "message": REVOKED}


async def _connection(database: Database, world: World, token: str) -> Connection:
    from comptoir.connections.service import find_connection_by_token

    async with database.transaction() as session:
        found = await find_connection_by_token(session, world.key, token)
        assert found is not None
        return found


async def test_blocked_connection_is_401_until_unblocked(
    client: httpx.AsyncClient, shop: Shop, world: World, database: Database
) -> None:
    connection = await _connection(database, world, shop.location_token)
    async with database.transaction() as session:
        await set_blocked(session, connection, True)
    response = await client.get("/v1/location", headers=shop.headers())
    assert response.status_code == 401
    assert response.json() == {"error_type": "unauthorized", "message": BLOCKED}
    # the account token of the same account is not blocked
    account = await client.get("/v1/account", headers=shop.headers(shop.account_token))
    assert (account.status_code, account.json()["id"]) == (200, shop.account.public_id)
    async with database.transaction() as session:
        await set_blocked(session, connection, False)
    location = await client.get("/v1/location", headers=shop.headers())
    assert (location.status_code, location.json()["id"]) == (200, shop.location.public_id)


async def test_suspended_account_tokens_are_401(client: httpx.AsyncClient, shop: Shop, database: Database) -> None:
    async with database.transaction() as session:
        await session.execute(update(Account).where(Account.id == shop.account.id).values(suspended=True))
    for token, path in ((shop.location_token, "/v1/location"), (shop.account_token, "/v1/account")):
        response = await client.get(path, headers=shop.headers(token))
        assert response.status_code == 401
        assert response.json() == {"error_type": "unauthorized", "message": SUSPENDED}


async def test_a_refused_token_changes_nothing(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    before = await world.snapshot()
    response = await client.patch("/v1/location", json={"preparation_time": 1}, headers={"X-Access-Token": "nope"})
    assert (response.status_code, response.json()) == (401, {"error_type": "unauthorized", "message": REVOKED})
    assert await world.snapshot() == before


@pytest.mark.parametrize(
    "scope",
    [
        "location[orders.read]",
        "location[inventory.read]",
        "location[all_catalogs.read]",
        "location[all_customer_lists.read]",
    ],
)
async def test_any_permission_at_the_level_reads_the_location(
    client: httpx.AsyncClient, shop: Shop, world: World, scope: str
) -> None:
    token = await world.token(scope, location=shop.location)
    response = await client.get("/v1/location", headers=shop.headers(token))
    assert (response.status_code, response.json()["id"]) == (200, shop.location.public_id)


@pytest.mark.parametrize(
    "scope", ["location[orders.write]", "location[inventory.write]", "location[all_catalogs.write]"]
)
async def test_any_write_permission_updates_the_location(
    client: httpx.AsyncClient, shop: Shop, world: World, scope: str
) -> None:
    token = await world.token(scope, location=shop.location)
    response = await client.patch("/v1/location", json={"preparation_time": 9}, headers=shop.headers(token))
    assert (response.status_code, response.json()["preparation_time"]) == (200, 9)
    assert (await client.get("/v1/location", headers=shop.headers())).json()["preparation_time"] == 9


async def test_reauthorising_replaces_the_scope_of_the_same_token(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    app_client = await world.client(name="Reauth app")
    token = await world.token("location[orders.write]", location=shop.location, client=app_client)
    assert (
        await client.patch("/v1/location", json={"preparation_time": 9}, headers=shop.headers(token))
    ).status_code == 200
    again = await world.token("location[orders.read]", location=shop.location, client=app_client)
    assert again == token
    assert (
        await client.patch("/v1/location", json={"preparation_time": 8}, headers=shop.headers(token))
    ).status_code == 403
