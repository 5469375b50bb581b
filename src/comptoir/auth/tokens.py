"""From an X-Access-Token to a connection context (spec 5.4 item 1, 5.6).

One prepared read (`comptoir.auth.repository`, through `comptoir.db.direct`) loads
the connection with its client name, account and location; the context carries the account
and location as read-only snapshots, so reading them costs no further query. The contexts of
valid tokens are kept by the process's `ConnectionCache` until any of those rows changes
(`comptoir.db.connection_cache`).
"""

from __future__ import annotations

from typing import Any

from comptoir.auth.context import Ctx
from comptoir.auth.repository import connection_by_token_hash, snapshots
from comptoir.auth.scopes import parse_scope
from comptoir.db.connection_cache import TOKENS, ConnectionCache
from comptoir.db.direct import FastReader
from comptoir.errors import Unauthorized
from comptoir.kit import crypto

# spec 5.6, word for word
REVOKED = "The access token is invalid or the connection has been revoked"
SUSPENDED = "The account/location has been suspended for non payment of the subscription"
BLOCKED = "The connection has been blocked"
MISSING = "The X-Access-Token header is missing"

MAX_TOKEN_LENGTH = 256  # characters: a longer token is no connection's


async def resolve(reader: FastReader, cache: ConnectionCache, key: bytes, token: str | None) -> Ctx:
    """The context of a valid token, or Unauthorized with the message of spec 5.6."""
    if not token:
        raise Unauthorized(MISSING, challenge=None)  # RFC 6750 3.1: no error code
    if len(token) > MAX_TOKEN_LENGTH:
        raise Unauthorized(REVOKED)
    # Kept by the token itself: the process holds it while serving the request anyway, and
    # a hit then costs no HMAC (a tenth of a cached order read).
    return await cache.cached(TOKENS, token, _read, reader, key, token)


async def _read(reader: FastReader, key: bytes, token: str) -> Ctx:
    return _context(await connection_by_token_hash(reader, crypto.lookup_hash(key, token)))


def _context(row: dict[str, Any] | None) -> Ctx:
    if row is None or row["c_revoked_at"] is not None:
        raise Unauthorized(REVOKED)
    if row["a_suspended"]:
        raise Unauthorized(SUSPENDED)
    if row["c_blocked"]:
        raise Unauthorized(BLOCKED)
    account, location = snapshots(row)
    return Ctx(
        connection_id=row["c_id"],
        connection_name=row["c_name"],
        client_id=row["c_client_id"],
        client_name=row["client_name"],
        user_id=row["c_user_id"],
        level=row["c_level"],
        account_id=row["c_account_id"],
        location_id=row["c_location_id"],
        catalog_id=row["c_catalog_id"],
        customer_list_id=row["c_customer_list_id"],
        scope=parse_scope(row["c_scope"]),
        account=account,
        location=location,
    )
