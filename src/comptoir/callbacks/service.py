"""Callbacks and events of a connection (spec 4.9, 6.1-6.2)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy.ext.asyncio import AsyncSession
from yarl import URL

from comptoir.auth.context import Ctx
from comptoir.callbacks import repository
from comptoir.callbacks.addresses import NO_ADDRESS, host_refusal, name_refusal, needs_resolution
from comptoir.callbacks.schemas import MAX_URL
from comptoir.config import IPNetwork
from comptoir.errors import FieldErrors, NotFound
from comptoir.events import RESOURCE_EVENTS
from comptoir.events.payload import render_event
from comptoir.events.repository import callback_changed
from comptoir.kit import clock, ids
from comptoir.kit.pagination import Page, PageRequest
from comptoir.kit.times import render_datetime
from comptoir.kit.wire import shown
from comptoir.models import Callback, Change, DeliveryAttempt, Event

NO_CALLBACK: dict[str, Any] = {"url": None, "events": {}}


async def check_subscription(
    url: Any, events: Any, allowed: Sequence[IPNetwork] = ()
) -> tuple[str | None, dict[str, list[str]]]:
    """Validate a callback body; raises Unprocessable naming every bad key (spec 6.2: other
    combinations are not allowed). `allowed`: the networks a URL may reach although they are
    not public (COMPTOIR_CALLBACK_ALLOWED_NETWORKS). A URL's host name is resolved here
    (docs/api/callbacks-events.md "Allowed addresses")."""
    errors = FieldErrors()
    if url is not None:
        problem = _url_problem(url, allowed)
        if problem is None:
            problem = await _resolution_problem(url, allowed)
        if problem:
            errors.add("url", problem)
    subscribed: dict[str, list[str]] = {}
    if not isinstance(events, dict):
        errors.add("events", "must be a JSON object mapping resource types to arrays of event types")
    else:
        for resource, event_types in events.items():
            known = RESOURCE_EVENTS.get(resource)
            if known is None:
                errors.add(f"events.{resource}", f"is not a resource type (one of {', '.join(RESOURCE_EVENTS)})")
                continue
            if not isinstance(event_types, list):
                errors.add(f"events.{resource}", "must be an array of event types")
                continue
            kept: list[str] = []
            for i, event_type in enumerate(event_types):
                if event_type not in known:
                    errors.add(
                        f"events.{resource}[{i}]",
                        f"{shown(event_type)} is not an event type of {resource} ({', '.join(known)})",
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
    hidden = _hidden_character(url)
    if hidden is not None:
        return (
            f"must not contain control characters, line breaks or invisible formatting marks "
            f"(U+{ord(url[hidden]):04X} at position {hidden + 1})"
        )
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


# docs/api/callbacks-events.md "Callbacks": a URL is stored and called exactly as shown, so
# nothing in it may be invisible or move what follows it: control characters (C0 with CR and
# LF, DEL, C1), format marks (bidi embeddings, overrides and isolates, zero-width characters,
# the byte order mark, the soft hyphen), line and paragraph separators, and lone surrogates.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _hidden_character(text: str) -> int | None:
    """The index of the first character of `text` a reader would not see as written, or None."""
    if text.isascii() and text.isprintable():
        return None
    for index, char in enumerate(text):
        if unicodedata.category(char) in _HIDDEN_CATEGORIES:
            return index
    return None


async def _resolution_problem(url: str, allowed: Sequence[IPNetwork]) -> str | None:
    host = URL(url).raw_host or ""
    if not needs_resolution(host):
        return None  # an address literal or a localhost name: checked by host_refusal
    refused = await name_refusal(host, allowed)
    if refused is None:
        return None
    if refused.endswith(NO_ADDRESS):
        return f"{shown(url)} cannot be a callback: {refused}"
    return (
        f"{shown(url)} cannot be a callback: {refused}; callbacks reach only public addresses "
        "unless the operator allows the network"
    )


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
    return render_callback(await repository.callback_of(session, ctx.connection_id))


def render_callback(callback: Callback | None) -> dict[str, Any]:
    if callback is None:
        return dict(NO_CALLBACK)
    return {"url": callback.url, "events": callback.events}


async def set_callback(
    session: AsyncSession, ctx: Ctx, url: Any, events: Any, allowed: Sequence[IPNetwork] = ()
) -> dict[str, Any]:
    """POST /callback: create the connection's callback or replace it (one per connection).
    Pending events stay; a callback that becomes active gets them delivered."""
    checked_url, subscribed = await check_subscription(url, events, allowed)
    return await save_subscription(session, ctx, checked_url, subscribed)


async def save_subscription(
    session: AsyncSession, ctx: Ctx, url: str | None, subscribed: dict[str, list[str]]
) -> dict[str, Any]:
    """`set_callback` once its body is checked (`check_subscription`, which resolves the URL's
    host: a caller may check before it opens the transaction, so that no lookup holds one)."""
    await repository.save_callback(session, ctx.connection_id, url, subscribed, clock.now())
    await repository.replace_subscriptions(session, ctx.connection_id, subscribed)
    await callback_changed(session, ctx.connection_id)
    return {"url": url, "events": subscribed}


async def delete_callback(session: AsyncSession, ctx: Ctx) -> dict[str, Any]:
    """DELETE /callback: no more events or calls; pending events are dropped. Answers the
    callback as it was (docs/api/conventions.md "Errors": a deletion answers the resource as it
    was)."""
    callback = await repository.callback_of(session, ctx.connection_id, lock=True)
    before = render_callback(callback)
    await repository.delete_events_of(session, ctx.connection_id)
    if callback is not None:
        await repository.delete_callback(session, callback)
    await callback_changed(session, ctx.connection_id)
    return before


async def list_events(session: AsyncSession, ctx: Ctx, page: PageRequest) -> tuple[list[dict[str, Any]], Page]:
    """GET /callback/events: unacknowledged events, oldest first, without states."""
    result = await repository.events_page(session, ctx.connection_id, page)
    return [render_event(event, change, full=False) for event, change in result.rows], result


async def recent_attempts(session: AsyncSession, connection_id: int, limit: int) -> list[DeliveryAttempt]:
    """The connection's last `limit` delivery attempts, newest first (the back office)."""
    return await repository.recent_attempts(session, connection_id, limit)


async def render_delivery_log(session: AsyncSession, connection_id: int, limit: int) -> list[dict[str, Any]]:
    """The delivery log of a connection, newest first (kept 30 days)."""
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
        for row in await repository.recent_attempts(session, connection_id, limit)
    ]


async def _find(session: AsyncSession, ctx: Ctx, public_id: str, *, lock: bool = False) -> tuple[Event, Change]:
    pk = ids.decode(Event.KIND, public_id)
    found = None if pk is None else await repository.event_of(session, ctx.connection_id, pk, lock=lock)
    if found is not None:
        return found
    raise NotFound("event", public_id)


async def get_event(session: AsyncSession, ctx: Ctx, public_id: str) -> dict[str, Any]:
    event, change = await _find(session, ctx, public_id)
    return render_event(event, change, full=True)


async def acknowledge_event(session: AsyncSession, ctx: Ctx, public_id: str) -> dict[str, Any]:
    """DELETE /callback/events/:id: the event is acknowledged and gone; answers it in full."""
    event, change = await _find(session, ctx, public_id, lock=True)
    body = render_event(event, change, full=True)
    await repository.delete_event(session, event.id)
    await callback_changed(session, ctx.connection_id)
    return body
