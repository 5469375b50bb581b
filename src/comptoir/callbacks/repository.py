"""All the SQL of callbacks: a connection's callback and its subscriptions, its pending
events, the lanes the delivery worker leases, and the delivery log.

The rules stay in `callbacks/service.py` (the API) and `callbacks/worker.py` (delivery);
each function here is one statement or a few that always go together.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any, TypedDict, cast

from sqlalchemy import (
    BigInteger,
    Integer,
    Row,
    Select,
    Table,
    Text,
    bindparam,
    case,
    delete,
    exists,
    func,
    insert,
    or_,
    select,
    true,
    update,
)
from sqlalchemy import cast as sql_cast
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.expression import ScalarSelect

from comptoir.db.days import day_number
from comptoir.db.direct import FastReader, Query, Write, among, likely, within
from comptoir.db.engine import dialect_name, rowcount
from comptoir.db.keyset import Key, paginate
from comptoir.kit.jsonutil import stored_text
from comptoir.kit.pagination import Page, PageRequest
from comptoir.models import (
    Account,
    Callback,
    Change,
    Connection,
    DeliveryAttempt,
    Event,
    Location,
    OAuthClient,
    Subscription,
)
from comptoir.models.base import UTCDateTime

# A lane as `claimable` selects it (connection id, client secret seed, signing secrets, failing since)
Lanes = Select[int, str, bytes | None, bytes | None, datetime | None, datetime | None]
# Core tables for the worker's executemany statements (one UPDATE or INSERT per batch)
_EVENTS = cast(Table, Event.__table__)
_ATTEMPTS = cast(Table, DeliveryAttempt.__table__)


# --- the callback and its subscriptions (spec 4.9, 6.1) -------------------------------------


async def callback_of(
    session: AsyncSession, connection_id: int, *, lock: bool = False, fresh: bool = False
) -> Callback | None:
    """`fresh`: read again, after an update statement changed the row."""
    return await session.get(Callback, connection_id, with_for_update=lock, populate_existing=fresh)


async def save_callback(
    session: AsyncSession,
    connection_id: int,
    url: str | None,
    events: dict[str, list[str]],
    now: datetime,
    signing_secret: bytes,
) -> None:
    """Create the connection's callback or replace its url and events (one per connection),
    enabled; a new callback gets `signing_secret` (sealed), a replaced one keeps its own."""
    upsert = pg_insert if dialect_name(session) == "postgresql" else sqlite_insert
    stmt = upsert(Callback).values(
        connection_id=connection_id,
        url=url,
        events=events,
        created_at=now,
        updated_at=now,
        signing_secret=signing_secret,
    )
    enabled = {"disabled_at": None, "disabled_reason": None, "failing_since": None}
    await session.execute(
        stmt.on_conflict_do_update(
            index_elements=[Callback.connection_id], set_={"url": url, "events": events, "updated_at": now, **enabled}
        )
    )


async def set_signing_secret(session: AsyncSession, connection_id: int, sealed: bytes) -> None:
    """A first signing secret (a callback made before there were any)."""
    await session.execute(update(Callback).where(Callback.connection_id == connection_id).values(signing_secret=sealed))


async def rotate_signing_secret(
    session: AsyncSession, callback: Callback, sealed: bytes, overlap_until: datetime
) -> None:
    """`sealed` signs from now on; the current secret signs too until `overlap_until`."""
    callback.previous_secret = callback.signing_secret
    callback.previous_secret_expires_at = overlap_until
    callback.signing_secret = sealed
    await session.flush()


async def enable(session: AsyncSession, connection_id: int, now: datetime) -> bool:
    """Enable a disabled callback; its pending events are due at once. Whether it was disabled."""
    result = await session.execute(
        update(Callback)
        .where(Callback.connection_id == connection_id, Callback.disabled_at.is_not(None))
        .values(disabled_at=None, disabled_reason=None, failing_since=None)
    )
    if not rowcount(result):
        return False
    await session.execute(
        update(Event)
        .where(Event.connection_id == connection_id, Event.next_attempt_at.is_not(None))
        .values(next_attempt_at=now)
    )
    return True


async def replace_subscriptions(session: AsyncSession, connection_id: int, events: dict[str, list[str]]) -> None:
    """The rows event fan-out looks up: one per (resource type, event type) subscribed."""
    await session.execute(delete(Subscription).where(Subscription.connection_id == connection_id))
    rows = [
        {"connection_id": connection_id, "resource_type": resource, "event_type": event_type}
        for resource, event_types in events.items()
        for event_type in event_types
    ]
    if rows:
        await session.execute(insert(Subscription), rows)


async def delete_callback(session: AsyncSession, callback: Callback) -> None:
    await session.delete(callback)


# --- pending events (spec 6.3) --------------------------------------------------------------


async def delete_events_of(session: AsyncSession, connection_id: int) -> None:
    await session.execute(delete(Event).where(Event.connection_id == connection_id))


_PENDING = Event.done_at.is_(None)  # an event not yet acknowledged (nor dropped)
# What `events.payload.render_event` reads of an event and its change, by the names it reads
# (the delivery worker's and the stream's reads); then the change's three states.
_RENDERED = (
    Event.resource_type,
    Event.event_type,
    Change.created_at.label("change_created_at"),
    Change.timezone,
    Change.ids,
    Change.resource_type.label("change_resource_type"),
)
_STATE_COLUMNS = (Change.previous_state, Change.new_state, Change.state_change)
# The states as the JSON text stored, sent as they are (`_with_states_as_stored`): the same
# bytes as decoding them and writing them again with `dumps`, without that work.
_STORED_STATES = tuple(sql_cast(state, Text).label(state.key) for state in _STATE_COLUMNS)


def _pending(*conditions: Any) -> Select[Event, Change]:
    """The pending events (with their changes) that `conditions` keep: the one statement of
    the list, of a stream's backlog and of the events streams are sent."""
    stmt = select(Event, Change).join(Change, Change.id == Event.change_id)
    return stmt.where(_PENDING, *conditions)


async def events_page(session: AsyncSession, connection_id: int, page: PageRequest) -> Page:
    """A page of the connection's pending events, oldest first; rows are (Event, Change)."""
    return await paginate(session, _pending(Event.connection_id == connection_id), [Key(Event.id, int)], page)


def _streamed(*conditions: Any) -> Query:
    """The pending events a stream sends (`_pending`'s) that `conditions` keep, oldest first
    (by id, as `events_page`), with what `events.payload.render_event` needs: the columns,
    read without a session (one statement, no transaction, no ORM objects), the change's
    states as the JSON text stored."""
    return Query(
        _pending(*conditions)
        .with_only_columns(
            Event.id,
            Event.connection_id,
            *_RENDERED,
            *_STORED_STATES,
        )
        .order_by(Event.id)
        .limit(bindparam("limit", type_=Integer))
    )


_AFTER = bindparam("after", type_=Event.id.type)
STREAM_EVENTS = _streamed(within(Event.connection_id, "connection_ids"), Event.id > _AFTER)
STREAM_EVENTS_OF = _streamed(within(Event.id, "keys"))
# The keys alone of the pending events of `connection_ids` in (`after`, `upto`]
STREAM_KEYS = Query(
    select(Event.id).where(
        _PENDING,
        within(Event.connection_id, "connection_ids"),
        Event.id > _AFTER,
        Event.id <= bindparam("upto", type_=Event.id.type),
    )
)
_STATES = tuple(state.key for state in _STATE_COLUMNS)


def _with_states_as_stored(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for row in rows:
        for name in _STATES:
            if row[name] is not None:
                row[name] = stored_text(row[name])
    return rows


async def pending_after(
    reader: FastReader, connection_ids: Collection[int], after: int, count: int
) -> list[dict[str, Any]]:
    """At most `count` pending events of `connection_ids` after the event `after` (its key),
    oldest first (`STREAM_EVENTS`' columns; each state as `jsonutil.stored_text`, written as
    it is)."""
    return _with_states_as_stored(
        await reader.all(STREAM_EVENTS, connection_ids=connection_ids, after=after, limit=count)
    )


async def pending_of(reader: FastReader, keys: Collection[int]) -> list[dict[str, Any]]:
    """Those of the events `keys` still pending, oldest first (as `pending_after`)."""
    return _with_states_as_stored(await reader.all(STREAM_EVENTS_OF, keys=keys, limit=len(keys)))


async def pending_keys(reader: FastReader, connection_ids: Collection[int], after: int, upto: int) -> list[int]:
    """The keys of the pending events of `connection_ids` in (`after`, `upto`], unordered."""
    return [row["id"] for row in await reader.all(STREAM_KEYS, connection_ids=connection_ids, after=after, upto=upto)]


async def last_event_key(session: AsyncSession) -> int:
    """The key of the newest event of any connection (0 without any)."""
    return int((await session.execute(select(func.max(Event.id)))).scalar_one() or 0)


async def active_among(session: AsyncSession, connection_ids: Sequence[int]) -> set[int]:
    """Those of `connection_ids` whose callback has a URL (active delivery)."""
    stmt = select(Callback.connection_id).where(
        among(Callback.connection_id, connection_ids), Callback.url.is_not(None)
    )
    return set((await session.execute(stmt)).scalars())


async def event_of(
    session: AsyncSession, connection_id: int, event_pk: int, *, lock: bool = False
) -> tuple[Event, Change] | None:
    """One of the connection's pending events with its change (locked: the event row only)."""
    stmt = select(Event, Change).join(Change, Change.id == Event.change_id)
    stmt = stmt.where(Event.id == event_pk, Event.connection_id == connection_id, _PENDING)
    if lock:
        stmt = stmt.with_for_update(of=Event)
    row = (await session.execute(stmt)).first()
    return None if row is None else (row[0], row[1])


async def delete_event(session: AsyncSession, event_pk: int) -> None:
    await session.execute(delete(Event).where(Event.id == event_pk))


_REDELIVER = {"attempts": 0, "done_at": None, "redelivery": True}


async def redeliver(session: AsyncSession, connection_id: int, event_pk: int, now: datetime) -> bool:
    """Queue one of the connection's kept events (pending or done) for a redelivery now;
    False when the connection has no such event."""
    result = await session.execute(
        update(Event)
        .where(Event.id == event_pk, Event.connection_id == connection_id)
        .values(next_attempt_at=now, **_REDELIVER)
    )
    return bool(rowcount(result))


async def redelivering(session: AsyncSession, connection_id: int) -> bool:
    """Whether a resend or replay of the connection still has an event to send (marked for
    redelivery until its next POST)."""
    marked = (Event.connection_id == connection_id, Event.next_attempt_at.is_not(None), Event.redelivery.is_(True))
    stmt = select(Event.id).where(*marked).limit(1)  # among the pending ones (`ix_events_due`)
    return (await session.execute(stmt)).first() is not None


async def redeliver_range(
    session: AsyncSession, connection_id: int, start: datetime, end: datetime, now: datetime
) -> int:
    """Queue the connection's kept events created in [start, end) for a redelivery now; how many."""
    result = await session.execute(
        update(Event)
        .where(Event.connection_id == connection_id, Event.created_at >= start, Event.created_at < end)
        .values(next_attempt_at=now, **_REDELIVER)
    )
    return rowcount(result)


# --- the delivery log -----------------------------------------------------------------------


async def recent_attempts(session: AsyncSession, connection_id: int, limit: int) -> list[DeliveryAttempt]:
    """The connection's last `limit` delivery attempts, newest first (the CLI, the back office)."""
    rows = await session.scalars(
        select(DeliveryAttempt)
        .where(DeliveryAttempt.connection_id == connection_id)
        .order_by(DeliveryAttempt.id.desc())
        .limit(limit)
    )
    return list(rows)


async def attempts_page(session: AsyncSession, connection_id: int, outcome: str | None, page: PageRequest) -> Page:
    """A page of the connection's delivery attempts, newest first (keyset on the id, on
    `ix_delivery_attempts_connection`), of one `outcome` when given."""
    stmt = select(DeliveryAttempt).where(DeliveryAttempt.connection_id == connection_id)
    if outcome is not None:
        stmt = stmt.where(DeliveryAttempt.outcome == outcome)
    return await paginate(session, stmt, [Key(DeliveryAttempt.id, int)], page, descending=True)


async def attempts_per_day(
    session: AsyncSession, connection_id: int, starts: list[datetime]
) -> dict[int, tuple[int, int]]:
    """One statement: per local day (numbered by `db.days.day_number` over `starts`), the
    connection's delivery attempts acknowledged by the receiver and the others (retried or
    dropped); a day without attempts is absent."""
    rows = (
        select(day_number(DeliveryAttempt.attempted_at, starts).label("day"), DeliveryAttempt.outcome)
        .where(
            DeliveryAttempt.connection_id == connection_id,
            DeliveryAttempt.attempted_at >= starts[0],
            DeliveryAttempt.attempted_at < starts[-1],
        )
        .subquery()
    )
    delivered = func.sum(case((rows.c.outcome == "acknowledged", 1), else_=0))
    stmt = select(rows.c.day, delivered, func.count()).group_by(rows.c.day)
    return {day: (ok, total - ok) for day, ok, total in (await session.execute(stmt)).all()}


# --- lanes: what the delivery worker claims, reads and writes (spec 6.4) -------------------

STILL_DUE = Query(
    select(Event.id)
    .join(Callback, Callback.connection_id == Event.connection_id)
    .where(
        Event.id == bindparam("event_id"),
        Event.next_attempt_at.is_not(None),
        Callback.lease_owner == bindparam("token"),
        Callback.url == bindparam("url"),
    )
)


def claimable(now: datetime, busy: list[int]) -> Lanes:
    """Lanes another worker does not hold: an active, enabled callback of a working
    connection (not revoked, blocked or suspended) with a due event, least recently served
    first, so no connection starves when lanes are scarce. `busy`: connections this worker
    already serves."""
    due = exists().where(Event.connection_id == Callback.connection_id, Event.next_attempt_at <= now)
    return (
        select(
            Callback.connection_id,
            OAuthClient.secret_seed,
            Callback.signing_secret,
            Callback.previous_secret,
            Callback.previous_secret_expires_at,
            Callback.failing_since,
        )
        .join(Connection, Connection.id == Callback.connection_id)
        .join(OAuthClient, OAuthClient.id == Connection.client_id)
        .outerjoin(Account, Account.id == Connection.account_id)
        .where(
            Callback.url.is_not(None),
            Callback.disabled_at.is_(None),
            or_(Callback.leased_until.is_(None), Callback.leased_until < now),
            Connection.revoked_at.is_(None),
            Connection.blocked.is_(False),
            or_(Account.id.is_(None), Account.suspended.is_(False)),
            Callback.connection_id.not_in(busy) if busy else true(),
            due,
        )
        .order_by(Callback.leased_until.asc().nulls_first(), Callback.connection_id)
    )


async def any_claimable(session: AsyncSession, lanes: Lanes) -> bool:
    """A cheap probe (no write lock) before claiming."""
    return (await session.execute(lanes.order_by(None).limit(1))).first() is not None


async def lock_lanes(
    session: AsyncSession, lanes: Lanes, limit: int
) -> Sequence[Row[int, str, bytes | None, bytes | None, datetime | None, datetime | None]]:
    """Up to `limit` claimable lanes, locked (`FOR UPDATE SKIP LOCKED` on PostgreSQL: rows
    another worker is claiming are skipped); rows have the columns `claimable` selects."""
    return (await session.execute(lanes.limit(limit).with_for_update(of=Callback, skip_locked=True))).all()


async def lease(session: AsyncSession, connection_id: int, token: str, until: datetime) -> None:
    await session.execute(
        update(Callback).where(Callback.connection_id == connection_id).values(lease_owner=token, leased_until=until)
    )


async def still_due(reader: FastReader, event_pk: int, token: str, url: str) -> bool:
    """Whether the event is still pending for the lane's lease and the callback still points
    at `url`: a fast read (no session)."""
    return await reader.one(STILL_DUE, event_id=event_pk, token=token, url=url) is not None


# The lane's due events with what their POST's body needs (`events.payload.render_event`:
# the event's and its change's fields, the states as stored) and the callback's url, oldest first, while `token`
# holds the lease: columns, not ORM objects, read without a session.
DUE_EVENTS = Query(
    select(
        Event.id,
        Event.attempts,
        Event.redelivery,
        Event.next_attempt_at,
        *_RENDERED,
        *_STORED_STATES,
        Change.traceparent,
        Callback.url,
    )
    .join(Change, Change.id == Event.change_id)
    .join(Callback, Callback.connection_id == Event.connection_id)
    .where(
        Event.connection_id == bindparam("connection_id"),
        # most of a lane's queued events are due: its order then comes from `ix_events_queue`
        likely(Event.next_attempt_at <= bindparam("now", type_=Event.next_attempt_at.type)),
        Callback.lease_owner == bindparam("token"),
        Callback.url.is_not(None),
        ~within(Event.id, "unwritten"),
    )
    .order_by(Event.created_at, Event.id)  # from `ix_events_queue`: a batch reads its entries, no sort
    .limit(bindparam("limit", type_=Integer))
)


async def due_events(
    reader: FastReader, connection_id: int, token: str, now: datetime, limit: int, unwritten: Collection[int]
) -> list[dict[str, Any]]:
    """The lane's due events (`DUE_EVENTS`' columns; each state as `jsonutil.stored_text`,
    written as it is), oldest first, while `token` holds the lease, but the events
    `unwritten` (keys: their outcomes are not written yet): a fast read (no session)."""
    return _with_states_as_stored(
        await reader.all(
            DUE_EVENTS, connection_id=connection_id, token=token, now=now, limit=limit, unwritten=unwritten
        )
    )


async def oldest_undelivered(session: AsyncSession) -> datetime | None:
    """When the oldest event still to be delivered to an active, enabled callback was made
    (docs/operations.md "Metrics"): per callback, its first pending event by id, read from
    the partial index `ix_events_pending` (one index probe per callback), then the earliest."""
    first = (
        select(Event.created_at)
        .where(Event.connection_id == Callback.connection_id, _PENDING)
        .order_by(Event.id)
        .limit(1)
        .correlate(Callback)
        .scalar_subquery()
    )
    per_callback = (
        select(first.label("first")).where(Callback.url.is_not(None), Callback.disabled_at.is_(None)).subquery()
    )
    return await session.scalar(select(func.min(per_callback.c.first)))


class Done(TypedDict):
    """An event acknowledged, or given up after its last resend."""

    b_id: int
    b_due: datetime  # its `next_attempt_at` as the batch read it


class Retry(TypedDict):
    """An event whose POST failed and that will be sent again."""

    b_id: int
    b_due: datetime  # its `next_attempt_at` as the batch read it
    b_attempts: int  # failed POSTs so far
    b_next: datetime


class AttemptRow(TypedDict):
    """A row of the delivery log (`DeliveryAttempt`)."""

    connection_id: int
    event_id: int
    attempt: int
    attempted_at: datetime
    duration_ms: int
    url: str
    status_code: int | None
    error: str | None
    response_bytes: int | None
    response_excerpt: str | None
    outcome: str


# An outcome applies to the event as the batch read it: one queued again meanwhile (a resend
# or replay sets a new `next_attempt_at`) keeps its new due time and is sent again.
_AS_READ = (_EVENTS.c.id == bindparam("b_id")) & (_EVENTS.c.next_attempt_at == bindparam("b_due"))


async def write_outcomes(
    session: AsyncSession, done: list[Done], retries: list[Retry], log_rows: list[AttemptRow], now: datetime
) -> None:
    """A batch's outcomes: events acknowledged or given up are done (kept, no longer due or
    listed), the others get their count and next attempt; one delivery log row per attempt."""
    if done:
        await session.execute(
            update(_EVENTS).where(_AS_READ).values(next_attempt_at=None, done_at=now, redelivery=False), done
        )
    if retries:
        await session.execute(
            update(_EVENTS)
            .where(_AS_READ)
            .values(attempts=bindparam("b_attempts"), next_attempt_at=bindparam("b_next"), redelivery=False),
            retries,
        )
    if log_rows:
        await session.execute(insert(_ATTEMPTS), log_rows)


# write_outcomes and extend_lease as one PostgreSQL statement, sent on the direct driver (no
# session, no per-row parameter processing): the batch's columns as arrays, unnested. It
# runs on its own, so atomically: all of it or none of it, as the session's transaction.
# PostgreSQL runs the WITH's updates, which the main statement does not read, after it: the
# callback's row is taken before its events' rows, as every writer of both takes them.
_SETTLE = Write(
    """
    WITH done AS (
        UPDATE events SET next_attempt_at = NULL, done_at = :now, redelivery = false
        FROM unnest(:done_ids, :done_dues) AS d(id, due)
        WHERE events.id = d.id AND events.next_attempt_at = d.due
    ), retried AS (
        UPDATE events SET attempts = r.attempts, next_attempt_at = r.next, redelivery = false
        FROM unnest(:retry_ids, :retry_dues, :retry_attempts, :retry_next) AS r(id, due, attempts, next)
        WHERE events.id = r.id AND events.next_attempt_at = r.due
    ), logged AS (
        INSERT INTO delivery_attempts (connection_id, event_id, attempt, attempted_at, duration_ms, url,
                                       status_code, error, response_bytes, response_excerpt, outcome)
        SELECT :connection_id, a.* FROM unnest(:event_ids, :attempts, :attempted_at, :duration_ms, :urls,
                                               :status_codes, :errors, :response_bytes, :excerpts, :outcomes) AS a
    )
    UPDATE callbacks SET leased_until = :until
    WHERE connection_id = :connection_id AND lease_owner = :token
    RETURNING true
    """,
    {
        "now": UTCDateTime(),
        "until": UTCDateTime(),
        "connection_id": BigInteger(),
        "token": Text(),
        "done_ids": ARRAY(BigInteger()),
        "done_dues": ARRAY(UTCDateTime()),
        "retry_ids": ARRAY(BigInteger()),
        "retry_dues": ARRAY(UTCDateTime()),
        "retry_attempts": ARRAY(Integer()),
        "retry_next": ARRAY(UTCDateTime()),
        "event_ids": ARRAY(BigInteger()),
        "attempts": ARRAY(Integer()),
        "attempted_at": ARRAY(UTCDateTime()),
        "duration_ms": ARRAY(Integer()),
        "urls": ARRAY(Text()),
        "status_codes": ARRAY(Integer()),
        "errors": ARRAY(Text()),
        "response_bytes": ARRAY(Integer()),
        "excerpts": ARRAY(Text()),
        "outcomes": ARRAY(Text()),
    },
)


async def settle(
    reader: FastReader,
    connection_id: int,
    token: str,
    done: list[Done],
    retries: list[Retry],
    log_rows: list[AttemptRow],
    now: datetime,
    until: datetime,
) -> bool:
    """`write_outcomes`, then `extend_lease` to `until`, in one PostgreSQL statement: False when
    the lease is no longer `token`'s (the outcomes are written all the same, as in a session)."""
    row = await reader.write(
        _SETTLE,
        now=now,
        until=until,
        connection_id=connection_id,
        token=token,
        done_ids=[d["b_id"] for d in done],
        done_dues=[d["b_due"] for d in done],
        retry_ids=[r["b_id"] for r in retries],
        retry_dues=[r["b_due"] for r in retries],
        retry_attempts=[r["b_attempts"] for r in retries],
        retry_next=[r["b_next"] for r in retries],
        event_ids=[a["event_id"] for a in log_rows],
        attempts=[a["attempt"] for a in log_rows],
        attempted_at=[a["attempted_at"] for a in log_rows],
        duration_ms=[a["duration_ms"] for a in log_rows],
        urls=[a["url"] for a in log_rows],
        status_codes=[a["status_code"] for a in log_rows],
        errors=[a["error"] for a in log_rows],
        response_bytes=[a["response_bytes"] for a in log_rows],
        excerpts=[a["response_excerpt"] for a in log_rows],
        outcomes=[a["outcome"] for a in log_rows],
    )
    return row is not None


async def extend_lease(session: AsyncSession, connection_id: int, token: str, until: datetime) -> bool:
    """False when the lease is no longer `token`'s."""
    result = await session.execute(
        update(Callback)
        .where(Callback.connection_id == connection_id, Callback.lease_owner == token)
        .values(leased_until=until)
    )
    return bool(rowcount(result))


async def release(session: AsyncSession, connection_id: int, token: str, until: datetime) -> None:
    """The lane is free again, claimable from `until`."""
    await session.execute(
        update(Callback)
        .where(Callback.connection_id == connection_id, Callback.lease_owner == token)
        .values(lease_owner=None, leased_until=until)
    )


async def set_failing_since(session: AsyncSession, connection_id: int, since: datetime | None) -> None:
    await session.execute(update(Callback).where(Callback.connection_id == connection_id).values(failing_since=since))


async def disable(session: AsyncSession, connection_id: int, now: datetime, reason: str) -> bool:
    """Disable an enabled callback; False when it already was (or is gone)."""
    result = await session.execute(
        update(Callback)
        .where(Callback.connection_id == connection_id, Callback.disabled_at.is_(None))
        .values(disabled_at=now, disabled_reason=reason)
    )
    return bool(rowcount(result))


# --- retention ------------------------------------------------------------------------------


# A purge's DELETE states its condition again beside the batch it selected: an event changed
# since it was selected (resent or replayed, so no longer done) is not deleted. On PostgreSQL,
# a DELETE that meets a row updated meanwhile re-evaluates its own WHERE on the new version
# of the row, never the batch's subquery (docs/operations.md "Retention").


async def purge_events_of_revoked(session: AsyncSession, limit: int) -> int:
    """Up to `limit` events of revoked connections (nobody will fetch them); how many went."""
    revoked = Event.connection_id.in_(select(Connection.id).where(Connection.revoked_at.is_not(None)))
    batch = select(Event.id).where(revoked).limit(limit).scalar_subquery()
    result = await session.execute(delete(Event).where(Event.id.in_(batch), revoked))
    return rowcount(result)


async def done_events(session: AsyncSession, before: datetime, limit: int) -> list[int]:
    """Up to `limit` events done (delivered or given up) before `before`: what a purge selects."""
    return list(await session.scalars(select(Event.id).where(Event.done_at < before).limit(limit)))


async def delete_done(session: AsyncSession, batch: Sequence[int] | ScalarSelect[int], before: datetime) -> int:
    """Delete the events of `batch` that are still done before `before` (checked by the DELETE
    itself, so an event resent or replayed since `batch` was read stays); how many went."""
    result = await session.execute(delete(Event).where(Event.id.in_(batch), Event.done_at < before))
    return rowcount(result)


async def purge_done_events(session: AsyncSession, before: datetime, limit: int) -> int:
    """Up to `limit` events done (delivered or given up) before `before`, no longer kept for
    resends; how many went. One statement: the selection of `done_events` and `delete_done`."""
    batch = select(Event.id).where(Event.done_at < before).limit(limit).scalar_subquery()
    return await delete_done(session, batch, before)


async def purge_attempts(session: AsyncSession, before: datetime, limit: int) -> int:
    """Up to `limit` delivery log rows attempted before `before`; how many went."""
    batch = select(DeliveryAttempt.id).where(DeliveryAttempt.attempted_at < before).limit(limit).scalar_subquery()
    result = await session.execute(delete(DeliveryAttempt).where(DeliveryAttempt.id.in_(batch)))
    return rowcount(result)


async def timezone_of(session: AsyncSession, connection_id: int) -> str:
    """The timezone the connection's times read in: its location's for a location-level
    connection, UTC otherwise (docs/api/conventions.md "Times")."""
    stmt = (
        select(Location.timezone)
        .join(Connection, Connection.location_id == Location.id)
        .where(Connection.id == connection_id, Connection.level == "location")
    )
    return (await session.execute(stmt)).scalar_one_or_none() or "UTC"


async def client_seed_of(session: AsyncSession, connection_id: int) -> str:
    """The secret seed of the connection's client (its callbacks' X-Service-Hmac-SHA256 key)."""
    stmt = select(OAuthClient.secret_seed).join(Connection, Connection.client_id == OAuthClient.id)
    return (await session.execute(stmt.where(Connection.id == connection_id))).scalar_one()


async def count_range(session: AsyncSession, connection_id: int, start: datetime, end: datetime) -> int:
    """How many kept events of the connection were created in [start, end)."""
    stmt = select(func.count()).where(
        Event.connection_id == connection_id, Event.created_at >= start, Event.created_at < end
    )
    return (await session.execute(stmt)).scalar_one()
