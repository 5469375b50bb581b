"""Every statement on connections (spec 5.1, 5.4-5.6): the token lookup of every API request,
the upsert of an authorisation, revocation and blocking, and what the back office shows (the
lists of connections, a connection's request log). The rules are in
`comptoir.connections.service` and `comptoir.auth.tokens`.

The token lookup is the hot path's one read (`comptoir.db.direct`): one prepared statement
gives the connection with its client's name, its account and its location, the last two as
read-only snapshots (`AccountView`, `LocationView`) that requests render from.
"""

from __future__ import annotations

from collections.abc import Awaitable
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, bindparam, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.db.direct import FastReader, Query
from comptoir.db.engine import get_by_public_id, rowcount
from comptoir.models import Account, Catalog, Connection, CustomerList, Location, OAuthClient, RequestLog
from comptoir.models.accounts import AccountView
from comptoir.models.locations import LocationView

# --- the token lookup (hot path) --------------------------------------------------------

_CONNECTION = ("id", "name", "client_id", "user_id", "level", "account_id", "location_id", "catalog_id",
               "customer_list_id", "scope", "revoked_at", "blocked")  # fmt: skip
_ACCOUNT = ("name", "currency", "suspended", "owner_id")
_LOCATION = tuple(c.key for c in Location.__table__.columns if c.key not in ("account_id",))

AUTH = Query(
    select(
        *(getattr(Connection, name).label(f"c_{name}") for name in _CONNECTION),
        OAuthClient.name.label("client_name"),
        *(getattr(Account, name).label(f"a_{name}") for name in _ACCOUNT),
        *(getattr(Location, name).label(f"l_{name}") for name in _LOCATION),
    )
    .join(OAuthClient, OAuthClient.id == Connection.client_id)
    .outerjoin(Account, Account.id == Connection.account_id)
    .outerjoin(Location, Location.id == Connection.location_id)
    .where(Connection.token_hash == bindparam("token_hash"))
)


def connection_by_token_hash(reader: FastReader, token_hash: str) -> Awaitable[dict[str, Any] | None]:
    """The connection whose token has this lookup hash, as one row: its columns prefixed
    `c_` (`c_id`, `c_level`, `c_scope`, `c_revoked_at`, `c_blocked`, ...), `client_name`, and
    `a_suspended` (None without an account); `snapshots(row)` gives its account and location.
    (The reader's own awaitable: no coroutine of its own on the hot path.)"""
    return reader.one(AUTH, token_hash=token_hash)


def snapshots(row: dict[str, Any]) -> tuple[AccountView | None, LocationView | None]:
    """Read-only copies of the connection's account and location."""
    account_id = row["c_account_id"]
    account = None
    if account_id is not None:
        account = AccountView(id=account_id, **{name: row[f"a_{name}"] for name in _ACCOUNT})
    location = None
    if row["c_location_id"] is not None:
        location = LocationView(account_id=account_id, **{name: row[f"l_{name}"] for name in _LOCATION})
    return account, location


# --- rows -------------------------------------------------------------------------------


async def by_token_hash(session: AsyncSession, token_hash: str) -> Connection | None:
    return await session.scalar(select(Connection).where(Connection.token_hash == token_hash))


async def by_public_id(session: AsyncSession, public_id: str) -> Connection | None:
    return await get_by_public_id(session, Connection, public_id)


async def locked_by_identity(session: AsyncSession, client_id: int, target: str, name: str) -> Connection | None:
    """The connection of (client, target, name), locked in the session's transaction."""
    identity = (Connection.client_id == client_id, Connection.target == target, Connection.name == name)
    return await session.scalar(select(Connection).where(*identity).with_for_update())


async def insert(session: AsyncSession, connection: Connection) -> bool:
    """Insert `connection` (in a savepoint); False when a concurrent authorisation created
    the connection of the same identity first."""
    try:
        async with session.begin_nested():
            session.add(connection)
    except IntegrityError:
        return False
    return True


async def set_blocked(session: AsyncSession, connection_id: int, blocked: bool, now: datetime) -> None:
    await session.execute(
        update(Connection).where(Connection.id == connection_id).values(blocked=blocked, updated_at=now)
    )


async def revoke(session: AsyncSession, connection_id: int, now: datetime) -> bool:
    """Mark the connection revoked; False when it already was."""
    result = await session.execute(
        update(Connection)
        .where(Connection.id == connection_id, Connection.revoked_at.is_(None))
        .values(revoked_at=now, updated_at=now)
    )
    return bool(rowcount(result))


# --- lists (the back office) ------------------------------------------------------------


class Listed(NamedTuple):
    """A connection as the back office lists it, with the names of what it refers to."""

    connection: Connection
    application: str
    catalog: str | None
    customer_list: str | None
    location: str | None
    account: str | None


async def _listed(session: AsyncSession, *where: ColumnElement[bool], limit: int | None = None) -> list[Listed]:
    """Active first, newest first."""
    stmt = (
        select(Connection, OAuthClient.name, Catalog.name, CustomerList.name, Location.name, Account.name)
        .join(OAuthClient, OAuthClient.id == Connection.client_id)
        .outerjoin(Catalog, Catalog.id == Connection.catalog_id)
        .outerjoin(CustomerList, CustomerList.id == Connection.customer_list_id)
        .outerjoin(Location, Location.id == Connection.location_id)
        .outerjoin(Account, Account.id == Connection.account_id)
        .where(*where)
        .order_by(Connection.revoked_at.is_not(None), Connection.id.desc())
        .limit(limit)
    )
    return [Listed(*row) for row in (await session.execute(stmt)).all()]


async def listed_of_location(session: AsyncSession, location_id: int) -> list[Listed]:
    return await _listed(session, Connection.location_id == location_id)


async def listed_of_account(session: AsyncSession, account_id: int) -> list[Listed]:
    """The account-level connections of the account."""
    return await _listed(session, Connection.account_id == account_id, Connection.level == "account")


async def listed_of_client(session: AsyncSession, client_id: int, limit: int) -> list[Listed]:
    return await _listed(session, Connection.client_id == client_id, limit=limit)


async def listed_one(session: AsyncSession, connection_id: int) -> Listed:
    [row] = await _listed(session, Connection.id == connection_id)
    return row


async def logged_requests(
    session: AsyncSession, connection_id: int, before_id: int | None, limit: int
) -> list[RequestLog]:
    """The connection's request log, newest first: `limit` entries older than `before_id`."""
    stmt = select(RequestLog).where(RequestLog.connection_id == connection_id)
    if before_id is not None:
        stmt = stmt.where(RequestLog.id < before_id)
    return list(await session.scalars(stmt.order_by(RequestLog.id.desc()).limit(limit)))
