"""From an X-Access-Token to a connection context (spec 5.4 item 1, 5.6)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.auth.context import Ctx
from comptoir.auth.scopes import parse_scope
from comptoir.errors import Unauthorized
from comptoir.kit import crypto
from comptoir.models import Account, Connection, Location, OAuthClient

# spec 5.6, word for word
REVOKED = "The access token is invalid or the connection has been revoked"
SUSPENDED = "The account/location has been suspended for non payment of the subscription"
BLOCKED = "The connection has been blocked"
MISSING = "The X-Access-Token header is missing"

_MAX_TOKEN_LENGTH = 256


async def resolve(session: AsyncSession, key: bytes, token: str | None) -> Ctx:
    """The context of a valid token, or Unauthorized with the message of spec 5.6.

    One query loads the connection with its client name, account and location; the account
    and location stay in the session's identity map for the endpoint that needs them.
    """
    if not token:
        raise Unauthorized(MISSING)
    if len(token) > _MAX_TOKEN_LENGTH:
        raise Unauthorized(REVOKED)
    stmt = (
        select(Connection, OAuthClient.name, Account, Location)
        .join(OAuthClient, OAuthClient.id == Connection.client_id)
        .outerjoin(Account, Account.id == Connection.account_id)
        .outerjoin(Location, Location.id == Connection.location_id)
        .where(Connection.token_hash == crypto.lookup_hash(key, token))
    )
    row = (await session.execute(stmt)).first()
    if row is None or row[0].revoked_at is not None:
        raise Unauthorized(REVOKED)
    connection, client_name, account, _location = row
    if account is not None and account.suspended:
        raise Unauthorized(SUSPENDED)
    if connection.blocked:
        raise Unauthorized(BLOCKED)
    return Ctx(
        connection_id=connection.id,
        connection_name=connection.name,
        client_id=connection.client_id,
        client_name=client_name,
        user_id=connection.user_id,
        level=connection.level,
        account_id=connection.account_id,
        location_id=connection.location_id,
        catalog_id=connection.catalog_id,
        customer_list_id=connection.customer_list_id,
        scope=parse_scope(connection.scope),
    )
