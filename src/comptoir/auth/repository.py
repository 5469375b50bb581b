"""The token lookup of every API request (spec 5.4 item 1): the hot path's one read
(`comptoir.db.direct`). One prepared statement gives the connection with its client's name,
its account and its location, the last two as read-only snapshots (`AccountView`,
`LocationView`) that requests render from. The rules are `comptoir.auth.tokens`'.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from sqlalchemy import bindparam, select

from comptoir.db.direct import FastReader, Query
from comptoir.models import Account, Connection, Location, OAuthClient
from comptoir.models.accounts import AccountView
from comptoir.models.locations import LocationView

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
