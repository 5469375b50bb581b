"""Every statement on connections (spec 1.2-1.3, 5.1, 5.5): the upsert of an authorisation,
revocation and blocking, and what the back office shows (the lists of connections, a
connection's request log). The rules are in `comptoir.connections.service`; the token lookup
of every API request is `comptoir.auth.repository`'s.
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from sqlalchemy import ColumnElement, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.db.engine import get_by_public_id, rowcount
from comptoir.db.keyset import Key, paginate
from comptoir.kit.pagination import Page, PageRequest
from comptoir.models import Account, Catalog, Connection, CustomerList, Location, OAuthClient, RequestLog

# --- connections -------------------------------------------------------------------------------


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
    location_number: int | None = None  # with the connection's account_id, the location's public id
    location_timezone: str | None = None  # a location-level connection's: its pages' zone


async def _listed(session: AsyncSession, *where: ColumnElement[bool], limit: int | None = None) -> list[Listed]:
    """Active first, newest first."""
    stmt = (
        select(
            Connection,
            OAuthClient.name,
            Catalog.name,
            CustomerList.name,
            Location.name,
            Account.name,
            Location.number,
            Location.timezone,
        )
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


STATUS_CLASSES = {"2xx": 200, "3xx": 300, "4xx": 400, "5xx": 500}


async def logged_requests(
    session: AsyncSession, connection_id: int, status_class: str | None, path: str, page: PageRequest
) -> Page:
    """A page of the connection's request log, newest first (keyset on the id), of the
    answers in `status_class` ("4xx": 400 to 499) whose path holds `path` (case aside; "%"
    and "_" are plain characters)."""
    stmt = select(RequestLog).where(RequestLog.connection_id == connection_id)
    if status_class is not None:
        low = STATUS_CLASSES[status_class]
        stmt = stmt.where(RequestLog.status >= low, RequestLog.status < low + 100)
    if path:
        stmt = stmt.where(RequestLog.path.icontains(path, autoescape=True))
    return await paginate(session, stmt, [Key(RequestLog.id, int)], page, descending=True)
