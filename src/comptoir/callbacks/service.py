"""Callbacks and events of a connection (spec 4.9, 6.1-6.2)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import delete, select
from sqlalchemy import insert as insert_rows
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession
from yarl import URL

from comptoir.auth.context import Ctx
from comptoir.callbacks.addresses import host_refusal
from comptoir.config import IPNetwork
from comptoir.errors import FieldErrors, NotFound
from comptoir.events import RESOURCE_EVENTS, callback_changed
from comptoir.events.payload import render_event
from comptoir.kit import clock, ids
from comptoir.kit.pagination import Key, Page, PageRequest, paginate
from comptoir.kit.times import render_datetime
from comptoir.kit.wire import shown
from comptoir.models import Callback, Change, DeliveryAttempt, Event, Subscription

MAX_URL = 2048
NO_CALLBACK: dict[str, Any] = {"url": None, "events": {}}


def check_subscription(
    url: Any, events: Any, allowed: Sequence[IPNetwork] = ()
) -> tuple[str | None, dict[str, list[str]]]:
    """Validate a callback body; raises Unprocessable naming every bad key (spec 6.2: other
    combinations are not allowed). `allowed`: the networks a URL may reach although they are
    not public (COMPTOIR_CALLBACK_ALLOWED_NETWORKS)."""
    errors = FieldErrors()
    if url is not None:
        problem = _url_problem(url, allowed)
        if problem:
            errors.add("url", problem)
    subscribed: dict[str, list[str]] = {}
    if not isinstance(events, dict):
        errors.add("events", "must be a JSON object mapping resource types to arrays of event types")
    else:
        for resource, event_types in events.items():
            allowed = RESOURCE_EVENTS.get(resource)
            if allowed is None:
                errors.add(f"events.{resource}", f"is not a resource type (one of {', '.join(RESOURCE_EVENTS)})")
                continue
            if not isinstance(event_types, list):
                errors.add(f"events.{resource}", "must be an array of event types")
                continue
            kept: list[str] = []
            for i, event_type in enumerate(event_types):
                if event_type not in allowed:
                    errors.add(
                        f"events.{resource}[{i}]",
                        f"{shown(event_type)} is not an event type of {resource} ({', '.join(allowed)})",
                    )
                elif event_type not in kept:
                    kept.append(event_type)
            subscribed[resource] = kept
    errors.raise_if_any()
    return url, subscribed


def _url_problem(url: Any, allowed: Sequence[IPNetwork]) -> str | None:
    if not isinstance(url, str):
        return "must be a string or null"
    if len(url) > MAX_URL:
        return f"must be at most {MAX_URL} characters"
    try:
        parts = urlsplit(url)
        port_ok = parts.port is None or parts.port > 0
    except ValueError:
        return f"{shown(url)} is not a valid URL"
    if parts.scheme not in ("http", "https") or not parts.hostname or not port_ok:
        return f"{shown(url)} is not an absolute http(s) URL"
    if parts.fragment:
        return "must not have a fragment"
    if not _valid_host(parts.hostname):
        return f"{shown(url)} does not name a valid host"
    try:  # the host as the HTTP client will read it (IDNA, full-width digits...)
        host = URL(url).raw_host
    except ValueError:
        return f"{shown(url)} is not a valid URL"
    if not host:
        return f"{shown(url)} does not name a valid host"
    refused = host_refusal(host, allowed)
    if refused:
        return (
            f"{shown(url)} cannot be a callback: {refused}; callbacks reach only public addresses "
            "unless the operator allows the network"
        )
    return None


def _valid_host(host: str) -> bool:
    if ":" in host:  # an IPv6 literal, which urlsplit has already checked
        return True
    labels = host.rstrip(".").split(".")
    if len(host) > 253 or not all(labels):
        return False
    try:
        encoded = [label.encode("idna") for label in labels]
    except UnicodeError:
        return False
    return all(len(label) <= 63 for label in encoded)


async def get_callback(session: AsyncSession, ctx: Ctx) -> dict[str, Any]:
    callback = await session.get(Callback, ctx.connection_id)
    return render_callback(callback)


def render_callback(callback: Callback | None) -> dict[str, Any]:
    if callback is None:
        return dict(NO_CALLBACK)
    return {"url": callback.url, "events": callback.events}


async def set_callback(
    session: AsyncSession, ctx: Ctx, url: Any, events: Any, allowed: Sequence[IPNetwork] = ()
) -> dict[str, Any]:
    """POST /callback: create the connection's callback or replace it (one per connection).
    Pending events stay; a callback that becomes active gets them delivered."""
    url, subscribed = check_subscription(url, events, allowed)
    now = clock.now()
    insert = pg_insert if session.bind.dialect.name == "postgresql" else sqlite_insert
    stmt = insert(Callback).values(
        connection_id=ctx.connection_id, url=url, events=subscribed, created_at=now, updated_at=now
    )
    await session.execute(
        stmt.on_conflict_do_update(
            index_elements=[Callback.connection_id], set_={"url": url, "events": subscribed, "updated_at": now}
        )
    )
    await session.execute(delete(Subscription).where(Subscription.connection_id == ctx.connection_id))
    rows = [
        {"connection_id": ctx.connection_id, "resource_type": resource, "event_type": event_type}
        for resource, event_types in subscribed.items()
        for event_type in event_types
    ]
    if rows:
        await session.execute(insert_rows(Subscription), rows)
    await callback_changed(session, ctx.connection_id)
    return {"url": url, "events": subscribed}


async def delete_callback(session: AsyncSession, ctx: Ctx) -> dict[str, Any]:
    """DELETE /callback: no more events or calls; pending events are dropped. Answers the
    callback as it was (decisions.md: deletes answer the resource as it was)."""
    callback = await session.get(Callback, ctx.connection_id, with_for_update=True)
    before = render_callback(callback)
    await session.execute(delete(Event).where(Event.connection_id == ctx.connection_id))
    if callback is not None:
        await session.delete(callback)
    await callback_changed(session, ctx.connection_id)
    return before


async def list_events(session: AsyncSession, ctx: Ctx, page: PageRequest) -> tuple[list[dict[str, Any]], Page]:
    """GET /callback/events: unacknowledged events, oldest first, without states."""
    stmt = (
        select(Event, Change).join(Change, Change.id == Event.change_id).where(Event.connection_id == ctx.connection_id)
    )
    result = await paginate(session, stmt, [Key(Event.id, int)], page)
    return [render_event(event, change, full=False) for event, change in result.rows], result


async def render_delivery_log(session: AsyncSession, connection_id: int, limit: int) -> list[dict[str, Any]]:
    """The delivery log of a connection, newest first (kept 30 days)."""
    rows = await session.scalars(
        select(DeliveryAttempt)
        .where(DeliveryAttempt.connection_id == connection_id)
        .order_by(DeliveryAttempt.id.desc())
        .limit(limit)
    )
    return [
        {
            "event_id": ids.encode(Event.KIND, row.event_id),
            "attempt": row.attempt,
            "attempted_at": render_datetime(row.attempted_at),
            "duration_ms": row.duration_ms,
            "url": row.url,
            "status_code": row.status_code,
            "error": row.error,
            "response_bytes": row.response_bytes,
            "response_excerpt": row.response_excerpt,
            "outcome": row.outcome,
        }
        for row in rows
    ]


async def _find(session: AsyncSession, ctx: Ctx, public_id: str, *, lock: bool = False) -> tuple[Event, Change]:
    pk = ids.decode(Event.KIND, public_id)
    if pk is not None:
        stmt = select(Event, Change).join(Change, Change.id == Event.change_id)
        stmt = stmt.where(Event.id == pk, Event.connection_id == ctx.connection_id)
        if lock:
            stmt = stmt.with_for_update(of=Event)
        row = (await session.execute(stmt)).first()
        if row is not None:
            return row[0], row[1]
    raise NotFound("event", public_id)


async def get_event(session: AsyncSession, ctx: Ctx, public_id: str) -> dict[str, Any]:
    event, change = await _find(session, ctx, public_id)
    return render_event(event, change, full=True)


async def acknowledge_event(session: AsyncSession, ctx: Ctx, public_id: str) -> dict[str, Any]:
    """DELETE /callback/events/:id: the event is acknowledged and gone; answers it in full."""
    event, change = await _find(session, ctx, public_id, lock=True)
    body = render_event(event, change, full=True)
    await session.execute(delete(Event).where(Event.id == event.id))
    await callback_changed(session, ctx.connection_id)
    return body
