"""All SQL of the outbox (docs/architecture.md "An event: from a write to a callback"):
writing a change and its events, reading the connections subscribed to a change, the
notifications that wake the delivery workers, and what a connection's events are about (to
drop those a new grant no longer allows, `comptoir.events.drop_out_of_reach`), and the
announcement of an order's or a location's change to the location's live boards (`announce`).

A change and its events are written by one set of statement builders, run in one of two
ways, by the writer's choice:
- in a session, by `insert_change` then `insert_events` (every writer on SQLite, and every
  writer but the order insert on PostgreSQL);
- inside a writer's own one-statement `Write` (PostgreSQL), where the same builders are
  data-modifying CTEs (`change_cte`, `events_cte`), with the values of `write_params` (the
  order insert).
Either way the delivery workers are woken by `wake_workers`, the one wake-up.
Who receives the events is decided once, by `comptoir.events.receivers`, from the rows that
`subscribed` reads here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from types import SimpleNamespace
from typing import Any

from sqlalchemy import (
    BigInteger,
    Insert,
    String,
    and_,
    bindparam,
    column,
    delete,
    exists,
    func,
    insert,
    literal,
    literal_column,
    or_,
    select,
    text,
    true,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.expression import CTE, ColumnClause, ColumnElement

from comptoir.auth.scopes import parse_scope
from comptoir.db.connection_cache import AUDIENCES, ConnectionCache
from comptoir.db.direct import FastReader, Query, among
from comptoir.db.engine import AnySelect, dialect_name, rowcount
from comptoir.events import signals
from comptoir.events.audience import Candidate, subscription_keys
from comptoir.models import Change, Connection, Event, Subscription

NOTIFY_CHANNEL = "comptoir_events"  # new events (payload empty)
CALLBACK_CHANNEL = "comptoir_callbacks"  # a connection's callback or pending events changed (payload: its id)
# The changes announced per location (`announce`): what a location's live board shows, its
# orders and the location itself (its preparation time, busy mode: docs/back-office.md "Orders").
ANNOUNCED = frozenset({"order", "location"})

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
    traceparent: str | None


# Who receives a change's events (`comptoir.events.receivers`), read in a source with an
# optional connection cache: what a writer of a change is handed.
Receivers = Callable[[Source, NewChange, ConnectionCache | None], Awaitable[list[tuple[int, str]]]]
CHANGE_COLUMNS = tuple(column.key for column in Change.__table__.columns if column.key != "id")  # all but the id
# The change, its columns bound as `:c_<column>` (`change_values`): run by `insert_change`,
# or a CTE of a writer's one statement (`change_cte`).
CHANGE_INSERT = (
    insert(Change)
    .values({name: bindparam(f"c_{name}", type_=Change.__table__.c[name].type) for name in CHANGE_COLUMNS})
    .returning(Change.id, Change.created_at)
)
INSERT_EVENTS = insert(Event)
# What wakes the delivery workers of other processes (PostgreSQL): a notification sent at commit.
NOTIFY_EVENTS = func.pg_notify(literal_column(f"'{NOTIFY_CHANNEL}'"), literal_column("''"))


def change_values(change: NewChange) -> dict[str, Any]:
    """The values of `CHANGE_INSERT` for a change."""
    return {f"c_{name}": getattr(change, name) for name in CHANGE_COLUMNS}


def event_row(connection_id: Any, change_id: Any, key: Any, event_type: Any, created_at: Any) -> dict[str, Any]:
    """The row of one event of a change for one receiver (subscribed under resource type
    `key`): values in a session (`insert_events`), SQL expressions in a one-statement write
    (`events_cte`). Due at once, never attempted."""
    return {
        "connection_id": connection_id,
        "change_id": change_id,
        "resource_type": key,
        "event_type": event_type,
        "created_at": created_at,
        "attempts": 0,
        "next_attempt_at": created_at,
    }


# --- writing in a session -------------------------------------------------------------------


async def insert_change(session: AsyncSession, change: NewChange) -> int:
    """Write the change, announced to its location (`announce`); its id.

    A Core insert: the change is written once and never read back through the session,
    which spares the unit of work on every write path (benchmarks/orders.py)."""
    change_id: int = (await session.execute(CHANGE_INSERT, change_values(change))).scalar_one()
    await announce(session, change)
    return change_id


def announced(change: NewChange) -> int | None:
    """The location a change is announced to at commit (`ANNOUNCED`), if any."""
    return change.location_id if change.resource_type in ANNOUNCED else None


async def announce(session: AsyncSession | None, change: NewChange) -> None:
    """The one announcement of a change to its location's live boards (`announced`), in this
    process, when `session` commits (at once for None: a statement that ran on its own,
    committed). Other processes read it from the changes themselves (`announced_after`): a
    NOTIFY here would serialise every order's commit behind the others' (PostgreSQL takes one
    lock for the commits that notify)."""
    location_id = announced(change)
    if location_id is None:
        return
    if session is None:
        signals.committed(locations=(location_id,))
        return
    session.info.setdefault(signals.CHANGED_LOCATIONS, set()).add(location_id)


async def last_change_key(session: AsyncSession) -> int:
    """The key of the newest change of any resource (0 without any)."""
    return int((await session.execute(select(func.max(Change.id)))).scalar_one() or 0)


async def announced_after(
    session: AsyncSession, after: int, location_ids: Collection[int], skip: Collection[int] = ()
) -> list[tuple[int, int]]:
    """The announced changes (`ANNOUNCED`) of `location_ids` after the change `after` (its
    key), but those in `skip`: (key, location id), oldest first. Read by the key's index."""
    conditions = [
        Change.id > after,
        Change.resource_type.in_(ANNOUNCED),
        among(Change.location_id, location_ids),
    ]
    if skip:
        conditions.append(~among(Change.id, skip))
    stmt = select(Change.id, Change.location_id).where(*conditions).order_by(Change.id)
    return [(key, location_id) for key, location_id in (await session.execute(stmt)).all() if location_id is not None]


async def insert_events(session: AsyncSession, change: NewChange, receivers: list[tuple[int, str]]) -> None:
    """Write one event of the (written) change per receiver (connection id, subscribed
    resource type), and have the delivery workers woken when the transaction commits."""
    if not receivers:
        return
    rows = [
        event_row(connection_id, change.id, key, change.event_type, change.created_at)
        for connection_id, key in receivers
    ]
    await session.execute(INSERT_EVENTS, rows)
    await wake_workers(session)


async def wake_workers(session: AsyncSession | None, *, notified: bool = False) -> None:
    """The one wake-up of the delivery workers, once events were written: in this process
    when `session` commits (at once for None: a statement that ran on its own, committed),
    in the others by `NOTIFY_EVENTS`, sent at commit on PostgreSQL. `notified`: the
    statement that wrote the events sent it itself (`events_cte`'s writer)."""
    if session is None:
        signals.new_events_committed()
        return
    if session.info.get(signals.NEW_EVENTS):
        return
    session.info[signals.NEW_EVENTS] = True
    if not notified and dialect_name(session) == "postgresql":
        await session.execute(select(NOTIFY_EVENTS))  # delivered at commit


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


def change_cte() -> CTE:
    """`CHANGE_INSERT` as a part of a writer's `Write`, named `change` (its id and time)."""
    return CHANGE_INSERT.cte("change")


def events_cte(change: CTE) -> CTE:
    """The events of `change` (`change_cte`) as a part of a writer's `Write`: one
    `event_row` per connection of `:receivers`, with the resource type it subscribed under
    in `:keys` (`write_params`)."""
    receiver = (
        func.unnest(bindparam("receivers", type_=ARRAY(BigInteger())), bindparam("keys", type_=ARRAY(String())))
        .table_valued(column("connection_id", BigInteger()), column("key", String()))
        .render_derived(name="receiver")
    )
    event_type = bindparam("c_event_type", type_=Change.__table__.c.event_type.type)
    row = event_row(receiver.c.connection_id, change.c.id, receiver.c.key, event_type, change.c.created_at)
    values = [value if isinstance(value, ColumnElement) else literal(value) for value in row.values()]
    rows: Insert = INSERT_EVENTS.from_select(list(row), select(*values).select_from(change.join(receiver, true())))
    return rows.cte("new_events")


def write_params(change: NewChange, receivers: list[tuple[int, str]]) -> dict[str, Any]:
    """The values of `change_cte` and `events_cte` for a change and its receivers."""
    params = change_values(change)
    params["receivers"] = [connection_id for connection_id, _key in receivers]
    params["keys"] = [key for _connection_id, key in receivers]
    return params


# --- what a connection's events are about (docs/api/callbacks-events.md "Who receives an event") --


@dataclass(slots=True)
class Held:
    """What some of a connection's events are about: the subscription `key` they came under,
    and the facts of their change that deciding who receives it reads (`audience.ChangeFacts`;
    the causing client is not one of them here: it never changes who may see an event)."""

    key: str
    resource_type: str
    account_id: int
    location_id: int | None
    catalog_id: int | None
    customer_list_id: int | None
    origin_connection_id: int | None
    client_id: int | None = None


_HELD = (
    Event.resource_type.label("key"),
    Change.resource_type,
    Change.account_id,
    Change.location_id,
    Change.catalog_id,
    Change.customer_list_id,
    Change.origin_connection_id,
)


async def candidate_of(session: AsyncSession, connection_id: int) -> Candidate | None:
    """The connection as fan-out sees it, with its current scope and bindings."""
    stmt = select(
        Connection.id.label("connection_id"), *(getattr(Connection, name) for name in _FIELDS[1:]), Connection.scope
    ).where(Connection.id == connection_id)
    row = (await session.execute(stmt)).mappings().first()
    if row is None:
        return None
    return Candidate(**{name: row[name] for name in _FIELDS}, scope=parse_scope(row["scope"]))


async def held_by(session: AsyncSession, connection_id: int) -> list[Held]:
    """What the connection's events (pending, or done and kept for resends) are about: one
    `Held` per distinct key, resource and creator, however many events share it."""
    stmt = (
        select(*_HELD).join(Change, Change.id == Event.change_id).where(Event.connection_id == connection_id).distinct()
    )
    return [Held(*row) for row in (await session.execute(stmt)).all()]


async def delete_held(session: AsyncSession, connection_id: int, about: list[Held]) -> int:
    """Delete the connection's events about any of `about` (`held_by`'s); how many went."""
    if not about:
        return 0
    matches = or_(
        *(
            and_(
                Event.resource_type == held.key,
                Change.resource_type == held.resource_type,
                Change.account_id == held.account_id,
                Change.location_id.is_not_distinct_from(held.location_id),
                Change.catalog_id.is_not_distinct_from(held.catalog_id),
                Change.customer_list_id.is_not_distinct_from(held.customer_list_id),
                Change.origin_connection_id.is_not_distinct_from(held.origin_connection_id),
            )
            for held in about
        )
    )
    about_them = exists().where(Change.id == Event.change_id, matches)
    result = await session.execute(delete(Event).where(Event.connection_id == connection_id, about_them))
    return rowcount(result)


async def purge_changes(session: AsyncSession, before: datetime, limit: int) -> int:
    """Up to `limit` changes recorded before `before` that no pending event refers to; how
    many went (docs/operations.md "Retention")."""
    old = (Change.created_at < before) & ~exists().where(Event.change_id == Change.id)
    batch = select(Change.id).where(old).limit(limit).scalar_subquery()
    result = await session.execute(delete(Change).where(Change.id.in_(batch)))
    return rowcount(result)
