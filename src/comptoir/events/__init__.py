"""Change recording and fan-out: what every write path calls inside its own transaction
(docs/architecture.md "An event: from a write to a callback").

`record()` writes one `Change` and, in the same transaction, one `Event` for each connection
whose callback subscribes to it and may receive it (`receivers`). So an event exists exactly
when its write committed: none is lost on a crash, none exists for a rolled-back write, and
`GET /callback/events` shows it as soon as the write's response is sent. Delivery to active
callbacks happens later, from the events table (`comptoir.callbacks.worker`).

The rules are here and in `audience` (who may receive an event); the SQL is in `repository`.
The same rule decides again, when a connection is authorised again with another grant, which
of the events it holds it may still have (`drop_out_of_reach`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.auth.context import Ctx
from comptoir.db.connection_cache import ConnectionCache
from comptoir.events import repository
from comptoir.events.audience import can_access, receives
from comptoir.events.repository import NewChange, Source
from comptoir.kit import clock, tracing

__all__ = ["RESOURCE_EVENTS", "NewChange", "drop_out_of_reach", "new_change", "receivers", "record", "record_change"]

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
    change.id = await repository.insert_change(session, change)
    await repository.insert_events(session, change, await receivers(session, change))
    return change


async def receivers(source: Source, change: NewChange, cache: ConnectionCache | None = None) -> list[tuple[int, str]]:
    """Who gets the events of a change: (connection id, resource type it subscribed under),
    for each connection subscribed to the change that may receive it (`audience.receives`).
    The one fan-out of every writer: `record_change` reads it in the writer's transaction
    just before writing the events; a writer whose one statement writes the change and its
    events (`repository.events_cte`) reads it just before that statement, through the direct
    driver and the connection `cache` (`repository.subscribed`)."""
    candidates = await repository.subscribed(source, change, cache)
    return [(candidate.connection_id, key) for candidate, key in candidates if receives(change, candidate, key)]


async def last_change_key(session: AsyncSession) -> int:
    """The key of the newest change recorded so far (0: none)."""
    return await repository.last_change_key(session)


async def announced_after(
    session: AsyncSession, after: int, location_ids: Collection[int], skip: Collection[int] = ()
) -> list[tuple[int, int]]:
    """The changes of `location_ids` a live board shows (their orders, the locations), after
    the change `after` (its key), but those in `skip`: (key, location id), oldest first."""
    return await repository.announced_after(session, after, location_ids, skip)


async def drop_out_of_reach(session: AsyncSession, connection_id: int) -> int:
    """Once the connection's grant changed (authorised again with another scope, catalog or
    customer list), drop the events it holds, pending or kept for resends, that it could no
    longer receive: the rule fan-out applies (`audience.can_access`), applied again to what
    they are about, in the transaction that changes the grant. So they are neither listed,
    read, delivered, resent nor replayed (docs/api/callbacks-events.md "Who receives an
    event"); how many went."""
    candidate = await repository.candidate_of(session, connection_id)
    held = await repository.held_by(session, connection_id)
    gone = [about for about in held if candidate is None or not can_access(about, candidate, about.key)]
    dropped = await repository.delete_held(session, connection_id, gone)
    if dropped:
        await repository.callback_changed(session, connection_id)  # a worker re-reads before its next POST
    return dropped


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
    """A change of a resource, not yet written: `record_change` writes it in a session, and a
    `Write` statement may insert it itself (`receivers` then tells who gets its events).

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
        traceparent=tracing.traceparent(),  # None while tracing is off (docs/operations.md "Traces")
    )
