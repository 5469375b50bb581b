"""Change recording and fan-out: what every write path calls inside its own transaction
(docs/architecture.md "Events").

`record()` writes one `Change` and, in the same transaction, one `Event` for each connection
whose callback subscribes to it and may receive it (`audience`). So an event exists exactly
when its write committed: none is lost on a crash, none exists for a rolled-back write, and
`GET /callback/events` shows it as soon as the write's response is sent. Delivery to active
callbacks happens later, from the events table (`comptoir.callbacks.worker`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from functools import cache
from types import SimpleNamespace
from typing import Any

from sqlalchemy import bindparam, insert, literal_column, or_, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.auth.context import Ctx
from comptoir.auth.scopes import parse_scope
from comptoir.connections.cache import AUDIENCES, ConnectionCache
from comptoir.db.direct import FastReader, Query
from comptoir.db.engine import AnySelect, dialect_name
from comptoir.events import signals
from comptoir.events.audience import Candidate, receives, subscription_keys
from comptoir.kit import clock
from comptoir.models import Change, Connection, Event, Subscription

NOTIFY_CHANNEL = "comptoir_events"  # new events (payload empty)
CALLBACK_CHANNEL = "comptoir_callbacks"  # a connection's callback or pending events changed (payload: its id)


async def callback_changed(session: AsyncSession, connection_id: int) -> None:
    """Tell delivery workers, at commit, that this connection's pending POSTs may no longer be
    due (callback deleted, replaced or made passive; an event acknowledged). Workers in this
    process re-check every send anyway on SQLite; on PostgreSQL the notification lets them
    skip that read while nothing changed."""
    if dialect_name(session) == "postgresql":
        await session.execute(
            text("SELECT pg_notify(:channel, :payload)"), {"channel": CALLBACK_CHANNEL, "payload": str(connection_id)}
        )


RESOURCE_EVENTS: dict[str, tuple[str, ...]] = {
    # spec 6.2: the allowed (resource type, event type) combinations
    "catalog": ("create", "delete", "update"),
    "customer": ("create", "update"),
    "customer_list": ("create", "delete", "update"),
    "delivery": ("create", "update"),
    "own_order_delivery": ("create", "update"),
    "inventory": ("patch", "update"),
    "location": ("update",),
    "order": ("create", "update"),
    "own_order": ("update",),
}


async def record(session: AsyncSession, **fields: Any) -> NewChange:
    """Record one change of a resource (`new_change`'s fields) and its events, in the
    current transaction."""
    return await record_change(session, new_change(**fields))


async def record_change(session: AsyncSession, change: NewChange) -> NewChange:
    """Record a change built by `new_change`, and its events, in the current transaction."""
    # A Core insert: the change is written once and never read back through the session,
    # which spares the unit of work on every write path (benchmarks/orders.py).
    values = {column: getattr(change, column) for column in CHANGE_COLUMNS}
    change.id = (await session.execute(_INSERT_CHANGE, values)).scalar_one()
    await _fan_out(session, change)
    return change


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


def new_change(
    *,
    resource_type: str,
    event_type: str,
    ids: dict[str, str],
    account_id: int,
    location_id: int | None = None,
    catalog_id: int | None = None,
    customer_list_id: int | None = None,
    timezone: str = "UTC",
    previous_state: Any = None,
    new_state: Any = None,
    state_change: Any = None,
    ctx: Ctx | None = None,
    origin_connection_id: int | None = None,
) -> NewChange:
    """A change of a resource, not yet written: `record` writes it in a session, and a
    `Write` statement may insert it itself (`audience` then tells who gets its events).

    `ids` are the public id fields of the event payload
    (docs/api/callbacks-events.md "Event payloads"); states are the resource's read shape
    before and after, already rendered for the wire. `ctx` is the causing connection (None
    for the service itself, e.g. a resume_at reversion): its client's connections get no
    event (spec 1.6, 6.1 item 4). `origin_connection_id` is the connection that created the
    resource (own_order).

    A plain object with a Change's attributes: it is written by Core inserts, and the ORM's
    instrumentation cost more than the rest of building it."""
    assert event_type in RESOURCE_EVENTS.get(resource_type, ()), (resource_type, event_type)
    return NewChange(
        id=None,
        created_at=clock.now(),
        resource_type=resource_type,
        event_type=event_type,
        ids=ids,
        timezone=timezone,
        account_id=account_id,
        location_id=location_id,
        catalog_id=catalog_id,
        customer_list_id=customer_list_id,
        previous_state=previous_state,
        new_state=new_state,
        state_change=state_change,
        connection_id=ctx.connection_id if ctx else None,
        client_id=ctx.client_id if ctx else None,
        origin_connection_id=origin_connection_id,
    )


CHANGE_COLUMNS = tuple(column.key for column in Change.__table__.columns if column.key != "id")  # all but the id
_INSERT_CHANGE = insert(Change).returning(Change.id)


@cache
def _fan_out_statement(by_client: bool, by_location: bool, keys: tuple[str, ...] | None = None) -> AnySelect:
    """Only connections subscribed to this event, of this account, and (for a change of a
    location's resource) of that location or of the whole account: the index on
    subscriptions keeps this cheap however many callbacks the account has. Built once per
    shape; values are bound per change, but for `keys` when given: written in, for a
    prepared statement, which takes no list of values on both databases."""
    stmt: AnySelect = (
        select(
            Connection.id,
            Connection.client_id,
            Connection.level,
            Connection.account_id,
            Connection.location_id,
            Connection.catalog_id,
            Connection.customer_list_id,
            Connection.scope,
            Subscription.resource_type.label("key"),
        )
        .join(Subscription, Subscription.connection_id == Connection.id)
        .where(
            Subscription.resource_type.in_(
                bindparam("keys", expanding=True)
                if keys is None
                else [literal_column(f"'{key}'") for key in keys if key.replace("_", "").isalpha()]
            ),
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


def _fan_out_params(change: NewChange) -> dict[str, Any]:
    params: dict[str, Any] = {
        "keys": list(subscription_keys(change.resource_type)),
        "event_type": change.event_type,
        "account_id": change.account_id,
    }
    if change.client_id is not None:
        params["client_id"] = change.client_id
    if change.location_id is not None:
        params["location_id"] = change.location_id
    return params


def _candidates(rows: Iterable[Mapping[Any, Any]]) -> list[tuple[Candidate, str]]:
    """Each subscribed connection, with the resource type it subscribed to."""
    return [
        (
            Candidate(
                connection_id=row["id"],
                client_id=row["client_id"],
                level=row["level"],
                account_id=row["account_id"],
                location_id=row["location_id"],
                catalog_id=row["catalog_id"],
                customer_list_id=row["customer_list_id"],
                scope=parse_scope(row["scope"]),
            ),
            row["key"],
        )
        for row in rows
    ]


def _receivers(change: NewChange, candidates: list[tuple[Candidate, str]]) -> list[tuple[int, str]]:
    """(connection id, subscribed resource type) of the candidates that may receive the
    change (`audience.receives`)."""
    return [(candidate.connection_id, key) for candidate, key in candidates if receives(change, candidate, key)]


@cache
def _fan_out_query(resource_type: str, by_client: bool, by_location: bool) -> Query:
    return Query(_fan_out_statement(by_client, by_location, subscription_keys(resource_type)))


async def audience(reader: FastReader, cache: ConnectionCache, change: NewChange) -> list[tuple[int, str]]:
    """Who gets the events of a change written by a `Write`: (connection id, subscribed
    resource type). Read just before the statement that writes the change, as `_fan_out`
    reads it just before writing the events (a connection subscribing meanwhile gets the
    next change's events), or kept by the connection cache until a subscription or a
    connection changes."""
    params = _fan_out_params(change)
    del params["keys"]
    cache_key = (change.resource_type, *params.items())
    candidates = await cache.fresh(AUDIENCES, cache_key)
    if candidates is None:
        generation = cache.generation
        query = _fan_out_query(change.resource_type, change.client_id is not None, change.location_id is not None)
        candidates = _candidates(await reader.all(query, **params))
        cache.put(AUDIENCES, cache_key, candidates, generation)
    return _receivers(change, candidates)


async def _fan_out(session: AsyncSession, change: NewChange) -> None:
    stmt = _fan_out_statement(change.client_id is not None, change.location_id is not None)
    result = await session.execute(stmt, _fan_out_params(change))
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
        for connection_id, key in _receivers(change, _candidates(result.mappings()))
    ]
    if not rows:
        return
    await session.execute(insert(Event), rows)
    if not session.info.get(signals.NEW_EVENTS):
        session.info[signals.NEW_EVENTS] = True
        if dialect_name(session) == "postgresql":
            await session.execute(text(f"NOTIFY {NOTIFY_CHANNEL}"))  # delivered at commit
