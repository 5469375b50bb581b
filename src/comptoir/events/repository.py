"""All SQL of the outbox (docs/architecture.md "An event: from a write to a callback"):
writing a change and its events, reading the connections subscribed to a change, and the
notifications that wake the delivery workers.

A change's events are written in one of two ways, by the writer's choice of statement:
- in a session, by `insert_change` then `insert_events` (every writer on SQLite, and every
  writer but the order insert on PostgreSQL);
- inside a writer's own one-statement `Write` (PostgreSQL), from the parts `CHANGE_CTE` and
  `EVENTS_CTE`, with the values of `write_params` (the order insert).
Who receives the events is decided once, by `comptoir.events.receivers`, from the rows that
`subscribed` reads here.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from types import SimpleNamespace
from typing import Any

from sqlalchemy import (
    BigInteger,
    String,
    bindparam,
    delete,
    exists,
    insert,
    literal_column,
    or_,
    select,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.expression import ColumnClause
from sqlalchemy.types import TypeEngine

from comptoir.auth.scopes import parse_scope
from comptoir.db.connection_cache import AUDIENCES, ConnectionCache
from comptoir.db.direct import FastReader, Query
from comptoir.db.engine import AnySelect, dialect_name, rowcount
from comptoir.events import signals
from comptoir.events.audience import Candidate, subscription_keys
from comptoir.models import Change, Connection, Event, Subscription

NOTIFY_CHANNEL = "comptoir_events"  # new events (payload empty)
CALLBACK_CHANNEL = "comptoir_callbacks"  # a connection's callback or pending events changed (payload: its id)

# Where the subscribed connections are read: the writer's session (inside its transaction),
# or the direct driver (outside any transaction, for a `Write` that runs on its own).
Source = AsyncSession | FastReader


class NewChange(SimpleNamespace):
    """A change's columns (those of `Change`), before and after it is written."""

    id: int | None
    created_at: datetime
    resource_type: str
    event_type: str
    ids: dict[str, str]
    timezone: str
    account_id: int
    location_id: int | None
    catalog_id: int | None
    customer_list_id: int | None
    previous_state: Any
    new_state: Any
    state_change: Any
    connection_id: int | None
    client_id: int | None
    origin_connection_id: int | None


CHANGE_COLUMNS = tuple(column.key for column in Change.__table__.columns if column.key != "id")  # all but the id
_INSERT_CHANGE = insert(Change).returning(Change.id)


# --- writing in a session -------------------------------------------------------------------


async def insert_change(session: AsyncSession, change: NewChange) -> int:
    """Write the change; its id.

    A Core insert: the change is written once and never read back through the session,
    which spares the unit of work on every write path (benchmarks/orders.py)."""
    values = {column: getattr(change, column) for column in CHANGE_COLUMNS}
    change_id: int = (await session.execute(_INSERT_CHANGE, values)).scalar_one()
    return change_id


async def insert_events(session: AsyncSession, change: NewChange, receivers: list[tuple[int, str]]) -> None:
    """Write one event of the (written) change per receiver (connection id, subscribed
    resource type), and have the delivery workers woken when the transaction commits."""
    if not receivers:
        return
    rows = [
        {
            "connection_id": connection_id,
            "change_id": change.id,
            "resource_type": key,
            "event_type": change.event_type,
            "created_at": change.created_at,
            "attempts": 0,
            "next_attempt_at": change.created_at,
        }
        for connection_id, key in receivers
    ]
    await session.execute(insert(Event), rows)
    if not session.info.get(signals.NEW_EVENTS):
        session.info[signals.NEW_EVENTS] = True
        if dialect_name(session) == "postgresql":
            await session.execute(text(f"NOTIFY {NOTIFY_CHANNEL}"))  # delivered at commit


async def callback_changed(session: AsyncSession, connection_id: int) -> None:
    """Tell delivery workers, at commit, that this connection's pending POSTs may no longer be
    due (callback deleted, replaced or made passive; an event acknowledged). Workers in this
    process re-check every send anyway on SQLite; on PostgreSQL the notification lets them
    skip that read while nothing changed."""
    if dialect_name(session) == "postgresql":
        await session.execute(
            text("SELECT pg_notify(:channel, :payload)"), {"channel": CALLBACK_CHANNEL, "payload": str(connection_id)}
        )


# --- the connections subscribed to a change ---------------------------------------------------


async def subscribed(
    source: Source, change: NewChange, cache: ConnectionCache | None = None
) -> list[tuple[Candidate, str]]:
    """Each connection subscribed to the change's (resource type, event type) that fan-out
    must consider, with the resource type it subscribed under.

    Read in `source` just before the change's events are written (a connection subscribing
    meanwhile gets the next change's events); with a `cache`, kept by it until a
    subscription or a connection changes (`comptoir.db.connection_cache`). Only for a
    `source` outside the writer's transaction: a cache forgets at the commit of a change, so
    it would not show a transaction its own uncommitted subscriptions."""
    params = _params(change)
    if cache is None:
        return await _read(source, change, params)
    return await cache.cached(AUDIENCES, (change.resource_type, *params.items()), _read, source, change, params)


async def _read(source: Source, change: NewChange, params: dict[str, Any]) -> list[tuple[Candidate, str]]:
    shape = (change.resource_type, change.client_id is not None, change.location_id is not None)
    if isinstance(source, AsyncSession):
        rows: Any = (await source.execute(_fan_out_statement(*shape), params)).mappings()
    else:
        rows = await source.all(_fan_out_query(*shape), **params)
    return [
        (Candidate(**{name: row[name] for name in _FIELDS}, scope=parse_scope(row["scope"])), row["key"])
        for row in rows
    ]


_FIELDS = ("connection_id", "client_id", "level", "account_id", "location_id", "catalog_id", "customer_list_id")


def _params(change: NewChange) -> dict[str, Any]:
    params: dict[str, Any] = {"event_type": change.event_type, "account_id": change.account_id}
    if change.client_id is not None:
        params["client_id"] = change.client_id
    if change.location_id is not None:
        params["location_id"] = change.location_id
    return params


@cache
def _fan_out_statement(resource_type: str, by_client: bool, by_location: bool) -> AnySelect:
    """Only connections subscribed to this event, of this account, and (for a change of a
    location's resource) of that location or of the whole account: the index on
    subscriptions keeps this cheap however many callbacks the account has. Built once per
    shape; values are bound per change, but for the subscription keys: written in, for a
    prepared statement, which takes no list of values on both databases."""
    keys: list[ColumnClause[Any]] = [
        literal_column(f"'{key}'") for key in subscription_keys(resource_type) if key.replace("_", "").isalpha()
    ]
    stmt: AnySelect = (
        select(
            Connection.id.label("connection_id"),
            *(getattr(Connection, name) for name in _FIELDS[1:]),
            Connection.scope,
            Subscription.resource_type.label("key"),
        )
        .join(Subscription, Subscription.connection_id == Connection.id)
        .where(
            Subscription.resource_type.in_(keys),
            Subscription.event_type == bindparam("event_type"),
            Connection.account_id == bindparam("account_id"),
            Connection.revoked_at.is_(None),
        )
    )
    if by_client:
        stmt = stmt.where(Connection.client_id != bindparam("client_id"))
    if by_location:
        stmt = stmt.where(
            or_(Connection.level == literal_column("'account'"), Connection.location_id == bindparam("location_id"))
        )
    return stmt


@cache
def _fan_out_query(resource_type: str, by_client: bool, by_location: bool) -> Query:
    return Query(_fan_out_statement(resource_type, by_client, by_location))


# --- inside a writer's one statement (PostgreSQL) -----------------------------------------------

# Parts of a `Write` (data-modifying CTEs chained in one `WITH`): the change, bound as
# `:c_<column>`, named `change`; its events, one per connection of `:receivers` with the
# resource type it subscribed under in `:keys`; and what wakes the workers at commit.
CHANGE_CTE = f"""change AS (
            INSERT INTO {Change.__tablename__} ({", ".join(CHANGE_COLUMNS)})
            VALUES ({", ".join(f":c_{c}" for c in CHANGE_COLUMNS)})
            RETURNING id, created_at
        )"""  # noqa: S608 - only the models' names are written in; every value is bound
EVENTS_CTE = f"""new_events AS (
            INSERT INTO {Event.__tablename__}
                (connection_id, change_id, resource_type, event_type, created_at, attempts, next_attempt_at)
            SELECT receiver.connection_id, change.id, receiver.key, :c_event_type, change.created_at, 0,
                   change.created_at
            FROM change, unnest(:receivers, :keys) AS receiver(connection_id, key)
        )"""  # noqa: S608
NOTIFY_EVENTS = f"pg_notify('{NOTIFY_CHANNEL}', '')"
WRITE_TYPES: dict[str, TypeEngine[Any]] = {
    **{f"c_{name}": Change.__table__.c[name].type for name in CHANGE_COLUMNS},
    "receivers": ARRAY(BigInteger()),
    "keys": ARRAY(String()),
}


def write_params(change: NewChange, receivers: list[tuple[int, str]]) -> dict[str, Any]:
    """The values of `CHANGE_CTE` and `EVENTS_CTE` for a change and its receivers."""
    params = {f"c_{name}": getattr(change, name) for name in CHANGE_COLUMNS}
    params["receivers"] = [connection_id for connection_id, _key in receivers]
    params["keys"] = [key for _connection_id, key in receivers]
    return params


async def purge_changes(session: AsyncSession, before: datetime, limit: int) -> int:
    """Up to `limit` changes recorded before `before` that no pending event refers to; how
    many went (docs/operations.md "Retention")."""
    old = (Change.created_at < before) & ~exists().where(Event.change_id == Change.id)
    batch = select(Change.id).where(old).limit(limit).scalar_subquery()
    result = await session.execute(delete(Change).where(Change.id.in_(batch)))
    return rowcount(result)
