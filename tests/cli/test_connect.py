"""`comptoir admin connect`: the body of a successful token response (spec 5.3 item 3), with
the rules of the browser flow (spec 5.1, 5.5; docs/api/oauth.md "Connections")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.cli.conftest import Result, refused

Cli = Callable[..., Result]


@pytest.fixture
def setup(cli: Cli, database_url: str) -> dict[str, Any]:
    import asyncio

    from comptoir.config import Settings
    from comptoir.db.engine import create_database
    from tests.conftest import SECRET_KEY
    from tests.factories import World

    cli("admin", "create-user", "--email", "owner@example.com", "--password", "long-enough")
    cli("admin", "create-user", "--email", "stranger@example.com", "--password", "long-enough")
    account = cli(
        "admin", "create-account", "--owner", "owner@example.com", "--name", "Chez Ada", "--currency", "EUR"
    ).json
    other_account = cli(
        "admin", "create-account", "--owner", "stranger@example.com", "--name", "Other", "--currency", "EUR"
    ).json
    first = cli("admin", "create-location", "--account", account["id"], "--name", "Paris").json
    second = cli("admin", "create-location", "--account", account["id"], "--name", "Lyon").json
    foreign = cli("admin", "create-location", "--account", other_account["id"], "--name", "Foreign").json
    client = cli("admin", "create-client", "--name", "POS").json

    async def bindings() -> dict[str, Any]:
        settings = Settings(database_url=database_url, secret_key=SECRET_KEY)
        db = create_database(settings, pool_size=1)
        world = World(db, settings.server_key())
        try:
            from comptoir.locations.service import find_location

            async with db.transaction() as session:
                loc1 = (await find_location(session, first["id"]))[0]  # type: ignore[index]
                loc2 = (await find_location(session, second["id"]))[0]  # type: ignore[index]
            return {
                "catalog": (await world.catalog(location=loc1, name="Menu")),
                "other_catalog": (await world.catalog(location=loc1, name="Drinks")),
                "account_catalog": (
                    await world.catalog(account=await _account(db, loc1.account_id), name="Group menu")
                ),
                "second_location_catalog": (await world.catalog(location=loc2, name="Lyon menu")),
                "list": (await world.customer_list(location=loc1, name="Fans")),
            }
        finally:
            await db.dispose()

    objects = asyncio.run(bindings())
    return {
        "account": account,
        "location": first,
        "second": second,
        "foreign": foreign,
        "client": client,
        **{k: v.public_id for k, v in objects.items()},
    }


async def _account(db: Any, pk: int) -> Any:
    from comptoir.models import Account

    async with db.transaction() as session:
        return await session.get(Account, pk)


def connect(
    cli: Cli,
    setup: dict[str, Any],
    *extra: str,
    scope: str = "location[orders.write]",
    where: tuple[str, str] | None = None,
) -> Result:
    where = where or ("--location", setup["location"]["id"])
    return cli(
        "admin",
        "connect",
        "--client",
        setup["client"]["client_id"],
        "--user",
        "owner@example.com",
        "--scope",
        scope,
        *where,
        *extra,
    )


def test_connect_prints_the_token_response(cli: Cli, setup: dict[str, Any]) -> None:
    body = connect(
        cli,
        setup,
        "--catalog",
        setup["catalog"],
        "--customer-list",
        setup["list"],
        scope="location[orders.write,catalog.read,customer_list.read]",
    ).json
    assert body == {
        "access_token": body["access_token"],
        "token_type": "Bearer",
        "scope": "location[orders.write,catalog.read,customer_list.read]",
        "account_id": setup["account"]["id"],
        "location_id": setup["location"]["id"],
        "catalog_id": setup["catalog"],
        "customer_list_id": setup["list"],
        "account_name": "Chez Ada",
        "location_name": "Paris",
        "catalog_name": "Menu",
        "customer_list_name": "Fans",
    }
    assert len(body["access_token"]) == 32


def test_account_level_connection_has_null_location_fields(cli: Cli, setup: dict[str, Any]) -> None:
    body = connect(cli, setup, scope="account[orders.read]", where=("--account", setup["account"]["id"])).json
    assert body["account_id"] == setup["account"]["id"]
    assert (body["location_id"], body["location_name"], body["catalog_id"], body["customer_list_id"]) == (
        None,
        None,
        None,
        None,
    )


def test_same_client_location_and_name_give_the_same_token(cli: Cli, setup: dict[str, Any]) -> None:
    first = connect(cli, setup).json["access_token"]
    assert connect(cli, setup, scope="location[orders.read]").json["access_token"] == first
    named = connect(cli, setup, "--name", "till-2").json["access_token"]
    assert named != first
    assert connect(cli, setup, "--name", "till-2").json["access_token"] == named
    other_location = connect(cli, setup, where=("--location", setup["second"]["id"])).json["access_token"]
    assert other_location not in (first, named)


def test_a_different_catalog_replaces_the_binding(cli: Cli, setup: dict[str, Any]) -> None:
    scope = "location[catalog.read]"
    first = connect(cli, setup, "--catalog", setup["catalog"], scope=scope).json
    again = connect(cli, setup, "--catalog", setup["other_catalog"], scope=scope).json
    assert again["access_token"] == first["access_token"]
    assert (again["catalog_id"], again["catalog_name"]) == (setup["other_catalog"], "Drinks")


def test_a_location_connection_may_bind_its_accounts_catalog(cli: Cli, setup: dict[str, Any]) -> None:
    body = connect(cli, setup, "--catalog", setup["account_catalog"], scope="location[catalog.write]").json
    assert body["catalog_name"] == "Group menu"


@pytest.mark.parametrize(
    ("args", "scope", "message"),
    [
        (
            [],
            "location[nope.read]",
            "invalid scope: unknown permission 'nope.read': expected resource.right with resource one of orders, customer_list, catalog, inventory, all_customer_lists, all_catalogs and right read or write",
        ),
        (["ACCOUNT"], "location[orders.read]", "give --location or --account, not both"),
        (
            [],
            "account[orders.read]",
            "account: an account is required by an account[...] scope; location: an account[...] scope connects an account, not a location",
        ),
        ([], "profile", "scope: a scope without location[...] or account[...] connects no location or account"),
        ([], "location[catalog.read]", "catalog: a catalog is required by the catalog.* permission"),
        (
            ["--catalog", "CATALOG"],
            "location[orders.read]",
            "catalog: the scope has no catalog.read or catalog.write permission",
        ),
        (
            ["--catalog", "SECOND_CATALOG"],
            "location[catalog.read]",
            "catalog: is not a catalog of that location or account",
        ),
        (
            ["--customer-list", "LIST"],
            "location[all_customer_lists.read]",
            "customer_list: the scope has no customer_list.read or customer_list.write permission",
        ),
        (["--catalog", "zzzzzz"], "location[catalog.read]", "no catalog with id 'zzzzzz'"),
    ],
)
def test_connect_refusals(
    cli: Cli, setup: dict[str, Any], snapshot: Callable[[], Any], args: list[str], scope: str, message: str
) -> None:
    replace = {
        "ACCOUNT": ["--account", setup["account"]["id"]],
        "CATALOG": [setup["catalog"]],
        "SECOND_CATALOG": [setup["second_location_catalog"]],
        "LIST": [setup["list"]],
    }
    argv = [part for arg in args for part in replace.get(arg, [arg])]
    before = snapshot()
    refused(connect(cli, setup, *argv, scope=scope), message)
    assert snapshot() == before


def test_the_user_must_own_what_is_connected(cli: Cli, setup: dict[str, Any], snapshot: Callable[[], Any]) -> None:
    before = snapshot()
    refused(connect(cli, setup, where=("--location", setup["foreign"]["id"])), "location: the user does not own it")
    result = cli(
        "admin",
        "connect",
        "--client",
        setup["client"]["client_id"],
        "--user",
        "stranger@example.com",
        "--scope",
        "account[orders.read]",
        "--account",
        setup["account"]["id"],
    )
    refused(result, "account: the user does not own it")
    refused(
        cli("admin", "connect", "--client", "zzzzzz", "--user", "owner@example.com", "--scope", "profile"),
        "no client with id 'zzzzzz'",
    )
    refused(
        cli(
            "admin",
            "connect",
            "--client",
            setup["client"]["client_id"],
            "--user",
            "x@example.com",
            "--scope",
            "profile",
        ),
        "no user with email 'x@example.com'",
    )
    assert snapshot() == before


def test_profile_only_connections(cli: Cli, setup: dict[str, Any]) -> None:
    result = cli(
        "admin",
        "connect",
        "--client",
        setup["client"]["client_id"],
        "--user",
        "owner@example.com",
        "--scope",
        "profile",
    )
    body = result.json
    assert body["token_type"] == "Bearer"
    assert body["scope"] == "profile"
    assert all(body[k] is None for k in body if k not in ("access_token", "token_type", "scope"))
