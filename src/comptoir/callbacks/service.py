"""Callbacks and events of a connection (spec 4.9, 6.1-6.2)."""

from __future__ import annotations

import secrets
import unicodedata
from collections.abc import Awaitable, Callable, Collection, Sequence
from datetime import date, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy.ext.asyncio import AsyncSession
from yarl import URL

from comptoir.applications.service import secret_from_seed
from comptoir.auth.context import Ctx
from comptoir.callbacks import repository, signing
from comptoir.callbacks.addresses import NO_ADDRESS, host_refusal, name_refusal, needs_resolution
from comptoir.callbacks.schemas import MAX_URL
from comptoir.callbacks.sending import http_client, post
from comptoir.config import IPNetwork, Settings
from comptoir.db.days import day_starts
from comptoir.db.direct import FastReader
from comptoir.db.engine import Database
from comptoir.errors import Conflict, FieldError, FieldErrors, NotFound, Unprocessable
from comptoir.events import RESOURCE_EVENTS
from comptoir.events.payload import ChangeRow, EventRow, render_event
from comptoir.events.repository import callback_changed, wake_workers
from comptoir.kit import clock, ids
from comptoir.kit.jsonutil import dumps
from comptoir.kit.pagination import Page, PageRequest
from comptoir.kit.times import localize, parse_datetime, render_datetime, zone
from comptoir.kit.wire import WireError, shown
from comptoir.models import Callback, Change, DeliveryAttempt, Event

TEST_EVENT_KEYS = 1 << 62  # test events' ids are those of keys from here to 2**63

NO_CALLBACK: dict[str, Any] = {"url": None, "events": {}, "disabled_at": None, "disabled_reason": None}


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
    return await callback_of(session, ctx.connection_id)


async def callback_of(session: AsyncSession, connection_id: int) -> dict[str, Any]:
    """The connection's callback as GET /callback reads it (the back office too)."""
    return render_callback(await repository.callback_of(session, connection_id))


def render_callback(callback: Callback | None) -> dict[str, Any]:
    if callback is None:
        return dict(NO_CALLBACK)
    return {
        "url": callback.url,
        "events": callback.events,
        "disabled_at": render_datetime(callback.disabled_at),
        "disabled_reason": callback.disabled_reason,
    }


async def set_callback(
    session: AsyncSession, key: bytes, ctx: Ctx, url: Any, events: Any, allowed: Sequence[IPNetwork] = ()
) -> dict[str, Any]:
    """POST /callback: create the connection's callback or replace it (one per connection).
    Pending events stay; a callback that becomes active gets them delivered."""
    checked_url, subscribed = await check_subscription(url, events, allowed)
    return await save_subscription(session, key, ctx, checked_url, subscribed)


async def save_subscription(
    session: AsyncSession, key: bytes, ctx: Ctx, url: str | None, subscribed: dict[str, list[str]]
) -> dict[str, Any]:
    """`set_callback` once its body is checked (`check_subscription`, which resolves the URL's
    host: a caller may check before it opens the transaction, so that no lookup holds one).
    A new callback gets its signing secret; a disabled one is enabled again and resumes from
    its oldest pending event (docs/api/callbacks-events.md "Automatic disable")."""
    now = clock.now()
    was_disabled = await repository.enable(session, ctx.connection_id, now)
    sealed = signing.seal(key, ctx.connection_id, signing.new_secret())
    await repository.save_callback(session, ctx.connection_id, url, subscribed, now, sealed)
    await repository.replace_subscriptions(session, ctx.connection_id, subscribed)
    await callback_changed(session, ctx.connection_id)
    if was_disabled:
        await wake_workers(session)
    return {"url": url, "events": subscribed, "disabled_at": None, "disabled_reason": None}


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


# --- the stream (docs/api/callbacks-events.md "Stream") -------------------------------------

STREAM_WHILE_ACTIVE = (
    "The callback delivers its events to its URL: a stream needs a passive callback (POST /callback with url null)"
)


Rendered = tuple[int, int, dict[str, Any]]  # an event's key, its connection's id, its body


async def pending_after(reader: FastReader, connection_ids: Collection[int], after: int, count: int) -> list[Rendered]:
    """At most `count` pending events of `connection_ids` after the event `after` (its key),
    oldest first, each as (key, connection id, body), the body as GET /callback/events/:id
    reads it (its states as the JSON text stored: `events.payload`). One statement, without
    a session."""
    return _rendered(await repository.pending_after(reader, connection_ids, after, count))


async def pending_of(reader: FastReader, keys: Collection[int]) -> list[Rendered]:
    """Those of the events `keys` still pending, oldest first (as `pending_after`)."""
    return _rendered(await repository.pending_of(reader, keys))


async def pending_keys(reader: FastReader, connection_ids: Collection[int], after: int, upto: int) -> list[int]:
    """The keys of the pending events of `connection_ids` in (`after`, `upto`]: no event read."""
    return await repository.pending_keys(reader, connection_ids, after, upto)


def _rendered(rows: list[dict[str, Any]]) -> list[Rendered]:
    return [(row["id"], row["connection_id"], render_event(EventRow(row), ChangeRow(row), full=True)) for row in rows]


async def last_event_key(session: AsyncSession) -> int:
    """The key of the newest event recorded so far, of any connection (0: none)."""
    return await repository.last_event_key(session)


async def unstreamable(session: AsyncSession, connection_ids: Sequence[int]) -> set[int]:
    """Those of `connection_ids` that may not stream: their callback has a URL."""
    return await repository.active_among(session, connection_ids)


async def check_streamable(session: AsyncSession, connection_id: int) -> None:
    """Conflict (409) while the connection's callback has a URL: its events are POSTed."""
    if await unstreamable(session, [connection_id]):
        raise Conflict(STREAM_WHILE_ACTIVE)


async def recent_attempts(session: AsyncSession, connection_id: int, limit: int) -> list[DeliveryAttempt]:
    """The connection's last `limit` delivery attempts, newest first (the back office)."""
    return await repository.recent_attempts(session, connection_id, limit)


async def attempts_page(session: AsyncSession, connection_id: int, outcome: str | None, page: PageRequest) -> Page:
    """A page of the connection's delivery attempts, newest first, of one outcome
    (`acknowledged`, `retry`, `dropped`) when given (the back office's delivery log)."""
    return await repository.attempts_page(session, connection_id, outcome, page)


async def attempts_per_day(
    session: AsyncSession, connection_id: int, timezone: str, days: int = 30
) -> list[tuple[date, int, int]]:
    """The connection's delivery attempts over the last `days` days in `timezone`, today
    last: (day, acknowledged, failed: retried or dropped), one statement (the back office)."""
    today = clock.now().astimezone(zone(timezone)).date()
    found = await repository.attempts_per_day(session, connection_id, day_starts(timezone, today, days))
    first = today - timedelta(days=days - 1)
    return [(first + timedelta(days=i), *found.get(i, (0, 0))) for i in range(days)]


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


# --- signing secrets, tests, resends, replays, enabling ---------------------------------------
# docs/api/callbacks-events.md "Verifying a callback", "Testing, resending and replaying",
# "Automatic disable". Each takes the connection's id: the API, the back office and the CLI
# call them alike.

MAX_REPLAY = timedelta(days=31)  # the longest range one replay may cover
MAX_REPLAYED = 10_000  # the most events one replay may queue


async def _callback(session: AsyncSession, connection_id: int) -> Callback:
    callback = await repository.callback_of(session, connection_id, lock=True)
    if callback is None:
        raise NotFound("callback")
    return callback


async def _active(session: AsyncSession, connection_id: int, what: str) -> Callback:
    callback = await _callback(session, connection_id)
    if callback.url is None:
        raise Unprocessable(FieldError("url", f"is null (a passive callback): {what} needs a callback URL"))
    return callback


def _secret_body(callback: Callback, current: bytes) -> dict[str, Any]:
    expires = callback.previous_secret_expires_at
    live = expires is not None and expires > clock.now()
    return {
        "secret": signing.as_text(current),
        "previous_secret_expires_at": render_datetime(expires) if live else None,
    }


async def signing_secret(session: AsyncSession, key: bytes, connection_id: int) -> dict[str, Any]:
    """GET /callback/signing_secret: the secret that signs now, and when the previous one stops."""
    callback = await _callback(session, connection_id)
    keys = await signing.keys_of(session, key, callback, clock.now())
    return _secret_body(callback, keys[0])


async def rotate_signing_secret(session: AsyncSession, key: bytes, connection_id: int) -> dict[str, Any]:
    """POST /callback/signing_secret/rotate: a new secret signs from now on, and the one it
    replaces signs too for 24 hours (a secret older than that stops at once)."""
    callback = await _callback(session, connection_id)
    await signing.keys_of(session, key, callback, clock.now())
    await session.refresh(callback)
    secret = signing.new_secret()
    overlap = clock.now() + signing.ROTATION_OVERLAP
    await repository.rotate_signing_secret(session, callback, signing.seal(key, connection_id, secret), overlap)
    return _secret_body(callback, secret)


async def send_test(db: Database, key: bytes, settings: Settings, connection_id: int) -> dict[str, Any]:
    """POST /callback/test: one POST of a test event to the callback URL now, signed as any
    delivery, under the same address rules and timeout; nothing is recorded. The POST runs
    outside any transaction."""
    async with db.transaction() as session:
        callback = await _active(session, connection_id, "a test event")
        keys = await signing.keys_of(session, key, callback, clock.now())
        url = callback.url
        client_secret = secret_from_seed(key, await repository.client_seed_of(session, connection_id)).encode()
        timezone = await repository.timezone_of(session, connection_id)  # as its real events read
    assert url is not None  # _active
    # an id of the events' form, of a key no event reaches (2**62 and up: ids are sequential),
    # so a receiver parses it like any event's and its deduplication never drops a real one
    event_id = ids.encode(Event.KIND, TEST_EVENT_KEYS + secrets.randbelow(TEST_EVENT_KEYS))
    event = {
        "id": event_id,
        "resource_type": "callback",
        "event_type": "test",
        "created_at": render_datetime(clock.now(), timezone),
    }
    body = dumps(event)
    headers = signing.headers(client_secret, keys, event_id, int(clock.now().timestamp()), body, redelivery=False)
    async with http_client(settings.callback_timeout_seconds, settings.callback_networks, 1) as http:
        outcome = await post(http, url, body, headers, settings.callback_networks)
    return {"delivered": outcome.acknowledged, "status": outcome.status_code, "error": outcome.error, "event": event}


async def resend(session: AsyncSession, connection_id: int, public_id: str) -> dict[str, Any]:
    """POST /callback/events/:event_id/resend: the event (pending or already delivered, while
    kept) is due again now, as a redelivery."""
    await _active(session, connection_id, "a resend")
    pk = ids.decode(Event.KIND, public_id)
    if pk is None or not await repository.redeliver(session, connection_id, pk, clock.now()):
        raise NotFound("event", public_id)
    await wake_workers(session)
    return {"count": 1}


def _range_bound(errors: FieldErrors, name: str, value: Any) -> datetime | None:
    if value is None:
        errors.add(name, "is required")
        return None
    try:
        return localize(parse_datetime(value), "UTC")
    except WireError as exc:
        errors.add(name, str(exc))
        return None


# What a replay of n events costs, counted where the caller counts requests (the connection's
# rate limits, `RateLimiter.charge_replay`): RateLimited when that is too much.
Charge = Callable[[int], Awaitable[object]]


async def replay(
    session: AsyncSession, connection_id: int, start_raw: Any, end_raw: Any, *, charge: Charge | None
) -> dict[str, Any]:
    """POST /callback/replay: every kept event created in [from, to) is due again now, as a
    redelivery, delivered oldest first (created_at, then id). One at a time per connection:
    a 409 while events an earlier replay or resend queued are still to be sent. `charge`
    counts the events queued against the caller's limits first (None: the command line's,
    an operator's). docs/api/callbacks-events.md "Testing, resending and replaying"."""
    errors = FieldErrors()
    start = _range_bound(errors, "from", start_raw)
    end = _range_bound(errors, "to", end_raw)
    if start is not None and end is not None:
        if end <= start:
            errors.add("to", f"{shown(end_raw)} must be after from ({shown(start_raw)})")
        elif end - start > MAX_REPLAY:
            errors.add("to", f"the range must cover at most {MAX_REPLAY.days} days")
    errors.raise_if_any()
    assert start is not None
    assert end is not None
    await _active(session, connection_id, "a replay")  # the callback locked: one replay of it at a time
    if await repository.redelivering(session, connection_id):
        raise Conflict(
            "Events queued by an earlier replay or resend are still to be sent: replay again once they have gone out"
        )
    count = await repository.count_range(session, connection_id, start, end)
    if count > MAX_REPLAYED:
        raise Unprocessable(
            FieldError("to", f"the range holds {count} events, more than {MAX_REPLAYED}: replay a shorter one")
        )
    if charge is not None:
        await charge(count)
    count = await repository.redeliver_range(session, connection_id, start, end, clock.now())
    if count:
        await wake_workers(session)
    return {"count": count}


async def enable(session: AsyncSession, connection_id: int) -> dict[str, Any]:
    """POST /callback/enable: a disabled callback is enabled and resumes from its oldest pending
    event; an enabled one stays as it is. Answers the callback."""
    await _callback(session, connection_id)
    if await repository.enable(session, connection_id, clock.now()):
        await wake_workers(session)
    return render_callback(await repository.callback_of(session, connection_id, fresh=True))


async def oldest_undelivered_age(session: AsyncSession) -> float:
    """Seconds since the oldest event still to be delivered to an active callback was made;
    0 when there is none (docs/operations.md "Metrics")."""
    oldest = await repository.oldest_undelivered(session)
    return 0.0 if oldest is None else max(0.0, (clock.now() - oldest).total_seconds())
