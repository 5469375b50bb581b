"""Connections (spec 1.2-1.3, 5.1, 5.5; docs/api/oauth.md "Connections"): what a user's
authorisation of an application (`comptoir.applications`) gives it.

A connection is identified by (client, location or account, name). Authorising it again
gives back the same token and replaces its scope, catalog and customer list, so a token
loses access to a catalog or list it is no longer bound to (spec 5.5 item 2). Tokens and
client secrets are derived from the server key and a per-row seed; only HMACs are stored.
"""

from __future__ import annotations

import hmac
from typing import Any, TypedDict, Unpack

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.accounts.service import account_by_id
from comptoir.auth import people
from comptoir.auth.scopes import Scope, binding_reachable
from comptoir.connections import repository
from comptoir.connections.repository import Listed
from comptoir.errors import FieldErrors
from comptoir.events import drop_out_of_reach
from comptoir.kit import clock, crypto
from comptoir.kit.pagination import Page, PageRequest
from comptoir.models import Account, Catalog, Connection, CustomerList, Location, OAuthClient, User

MAX_NAME = 255  # characters of a connection's name


# --- connections ------------------------------------------------------------------------


_PURPOSE = "access-token"  # the purpose of a token's seed (`kit.crypto.secret_of`)


def access_token(key: bytes, connection: Connection) -> str:
    """The connection's token: derived from its seed, or the one a sandbox's seed file gave
    (`given_token_seed`)."""
    return crypto.secret_of(key, _PURPOSE, connection.token_seed)


def given_token_seed(key: bytes, token: str) -> str:
    """The token seed whose token is `token` (docs/sandbox.md "Ids, tokens and secrets")."""
    return crypto.given_seed(key, _PURPOSE, token)


def _new_token_seed(key: bytes, connection: Connection) -> None:
    connection.token_seed = crypto.new_seed()
    connection.token_hash = crypto.lookup_hash(key, access_token(key, connection))


def _token_holds(key: bytes, connection: Connection) -> bool:
    """Whether the connection's token, derived under `key`, is the one its lookup hash
    finds: not when the hash was made under another server key (docs/operations.md
    "Server key")."""
    return hmac.compare_digest(connection.token_hash, crypto.lookup_hash(key, access_token(key, connection)))


async def find_connection_by_token(session: AsyncSession, key: bytes, token: str) -> Connection | None:
    return await find_connection_by_token_hash(session, crypto.lookup_hash(key, token))


async def find_connection_by_token_hash(session: AsyncSession, token_hash: str) -> Connection | None:
    return await repository.by_token_hash(session, token_hash)


async def find_connection(session: AsyncSession, public_id: str) -> Connection | None:
    return await repository.by_public_id(session, public_id)


async def check_binding(
    session: AsyncSession,
    *,
    user: User,
    scope: Scope,
    location: Location | None = None,
    account: Account | None = None,
    catalog: Catalog | None = None,
    customer_list: CustomerList | None = None,
    name: str = "",
) -> Account | None:
    """The account the connection would belong to, once checked that `user` may connect
    what is chosen with `scope` (spec 5.1); raises Unprocessable naming each problem (the
    OAuth pages and the `admin connect` command show it)."""
    errors = FieldErrors()
    if len(name) > MAX_NAME:
        errors.add("name", f"must be at most {MAX_NAME} characters")
    if scope.level == "location":
        if location is None:
            errors.add("location", "a location is required by a location[...] scope")
        if account is not None:
            errors.add("account", "a location[...] scope connects a location, not an account")
    elif scope.level == "account":
        if account is None:
            errors.add("account", "an account is required by an account[...] scope")
        if location is not None:
            errors.add("location", "an account[...] scope connects an account, not a location")
    elif location is not None or account is not None:
        errors.add("scope", "a scope without location[...] or account[...] connects no location or account")
    owning_account = account
    if location is not None:
        owning_account = await account_by_id(session, location.account_id)
    if owning_account is not None and not people.owns(user.id, owning_account):
        errors.add("location" if location is not None else "account", "the user does not own it")

    for field, bound in (("catalog", catalog), ("customer_list", customer_list)):
        label = field.replace("_", " ")
        needed = scope.allows(field, "read")
        if needed and bound is None:
            errors.add(field, f"a {label} is required by the {field}.* permission")
        elif bound is not None and not needed:
            errors.add(field, f"the scope has no {field}.read or {field}.write permission")
        elif bound is not None and not binding_reachable(
            "location" if location is not None else "account",
            owning_account.id if owning_account else None,
            location.id if location else None,
            bound.account_id,
            bound.location_id,
        ):
            errors.add(field, f"is not a {label} of that location or account")
    errors.raise_if_any()

    return owning_account


class Chosen(TypedDict, total=False):
    """What `authorise` connects besides its user and scope: `check_binding`'s keywords."""

    location: Location | None
    account: Account | None
    catalog: Catalog | None
    customer_list: CustomerList | None
    name: str


async def authorise(
    session: AsyncSession, key: bytes, *, client: OAuthClient, user: User, scope: Scope, **chosen: Unpack[Chosen]
) -> dict[str, Any]:
    """Create or update the connection and return the token response of spec 5.3 item 3
    (raises Unprocessable as `check_binding` does)."""
    owning_account = await check_binding(session, user=user, scope=scope, **chosen)
    location, account, name = chosen.get("location"), chosen.get("account"), chosen.get("name", "")
    catalog, customer_list = chosen.get("catalog"), chosen.get("customer_list")
    if location is not None:
        level, target = "location", f"location:{location.id}"
    elif account is not None:
        level, target = "account", f"account:{account.id}"
    else:
        level, target = "user", f"user:{user.id}"
    connection = await _upsert_connection(
        session,
        key,
        client=client,
        user=user,
        level=level,
        target=target,
        name=name,
        values={
            "scope": str(scope),
            "account_id": owning_account.id if owning_account else None,
            "location_id": location.id if location else None,
            "catalog_id": catalog.id if catalog else None,
            "customer_list_id": customer_list.id if customer_list else None,
        },
    )
    return {
        "access_token": access_token(key, connection),
        "token_type": "Bearer",
        "scope": str(scope),  # docs/api/oauth.md "Token endpoint": the granted scope (RFC 6749 5.1)
        "account_id": owning_account.public_id if owning_account else None,
        "location_id": location.public_id if location else None,
        "catalog_id": catalog.public_id if catalog else None,
        "customer_list_id": customer_list.public_id if customer_list else None,
        "account_name": owning_account.name if owning_account else None,
        "location_name": location.name if location else None,
        "catalog_name": catalog.name if catalog else None,
        "customer_list_name": customer_list.name if customer_list else None,
    }


async def _upsert_connection(
    session: AsyncSession,
    key: bytes,
    *,
    client: OAuthClient,
    user: User,
    level: str,
    target: str,
    name: str,
    values: dict[str, Any],
) -> Connection:
    for _attempt in range(2):
        connection = await repository.locked_by_identity(session, client.id, target, name)
        now = clock.now()
        if connection is not None:
            regranted = any(getattr(connection, field) != value for field, value in values.items())
            for field, value in values.items():
                setattr(connection, field, value)
            connection.user_id = user.id
            connection.updated_at = now
            # a revoked token stays dead, and so does one made under a former server key: a new one
            if connection.revoked_at is not None or not _token_holds(key, connection):
                connection.revoked_at = None
                _new_token_seed(key, connection)
            await session.flush()
            if regranted:  # docs/api/callbacks-events.md "Who receives an event": what it may no longer see goes
                await drop_out_of_reach(session, connection.id)
            return connection
        connection = Connection(
            client_id=client.id, user_id=user.id, level=level, target=target, name=name, created_at=now, updated_at=now
        )
        for field, value in values.items():
            setattr(connection, field, value)
        _new_token_seed(key, connection)
        if not await repository.insert(session, connection):
            continue  # a concurrent authorisation created it first: update that one
        return connection
    raise RuntimeError("connection upsert did not converge")  # pragma: no cover


async def set_blocked(session: AsyncSession, connection: Connection, blocked: bool) -> None:
    """spec 5.6: a blocked connection's token gets 401 "The connection has been blocked"."""
    await repository.set_blocked(session, connection.id, blocked, clock.now())


async def revoke(session: AsyncSession, connection: Connection) -> bool:
    """The token stops working at once (spec 5.4 item 2, the back office's "Revoke");
    re-authorising the same connection later gives it a new token. False when it already was."""
    return await repository.revoke(session, connection.id, clock.now())


# --- what the back office shows ---------------------------------------------------------


async def listed_of_location(session: AsyncSession, location: Location) -> list[Listed]:
    """The location's connections, active first, newest first."""
    return await repository.listed_of_location(session, location.id)


async def listed_of_account(session: AsyncSession, account: Account) -> list[Listed]:
    """The account-level connections of the account, active first, newest first."""
    return await repository.listed_of_account(session, account.id)


async def listed_of_client(session: AsyncSession, client: OAuthClient, limit: int) -> list[Listed]:
    """Up to `limit` connections of the application, active first, newest first."""
    return await repository.listed_of_client(session, client.id, limit)


async def listed_one(session: AsyncSession, connection: Connection) -> Listed:
    return await repository.listed_one(session, connection.id)


async def logged_requests(
    session: AsyncSession, connection: Connection, status_class: str | None, path: str, page: PageRequest
) -> Page:
    """A page of the connection's request log (kept 7 days), newest first, filtered by the
    answer's status class ("2xx", "3xx", "4xx", "5xx"; None: all) and a text the path holds;
    rows are `RequestLog`s."""
    return await repository.logged_requests(session, connection.id, status_class, path, page)
