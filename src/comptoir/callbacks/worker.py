"""Delivery of events to active callbacks (spec 6.4).

Each connection with an active callback is a *lane*. A worker claims a lane with a lease on
its `callbacks` row (`FOR UPDATE SKIP LOCKED` on PostgreSQL; SQLite writers are serialised),
then POSTs the lane's due events one after the other, oldest first, renewing the lease as it
goes. So any number of workers (in `serve` processes or `comptoir worker`) share the work,
and none sends an event another is sending. Different lanes run concurrently, up to
`concurrency` per worker.

Each POST carries exactly the body of `GET /callback/events/:id`, `Content-Type:
application/json`, `X-Service-Hmac-SHA256` (lowercase hex HMAC-SHA-256 of those bytes keyed
with the client secret), `X-Event-Id`, the Standard Webhooks headers (`callbacks/signing.py`)
and, for a resend or replay the client asked for, `comptoir-redelivery: true`. The POST
itself is `callbacks/sending.py`'s, which a test event uses too. Redirects are not followed.
A callback reaches only public addresses, unless COMPTOIR_CALLBACK_ALLOWED_NETWORKS allows
the network: an address literal is checked before the POST, a name's addresses when
resolved (`callbacks/addresses.py`), and a refused address is a failed attempt like any
other. An answer 200-499 received whole (its body read up to 1 MB) within `COMPTOIR_CALLBACK_TIMEOUT_SECONDS`
acknowledges: the event is done, kept but no longer listed (a reply whose body stalls past
the timeout, or breaks off, is a failed attempt). Anything else
schedules a resend after base, 2 x base, ... capped at 32 x base (`COMPTOIR_CALLBACK_RETRY_
BASE_SECONDS`); after the sixth failed resend the event is done too. A callback whose every
attempt failed for COMPTOIR_CALLBACK_DISABLE_AFTER_SECONDS is disabled (its events stay
pending) and its account's users get a notice. A failing event waits
for its time while later ones go out. Outcomes are written per batch with the delivery log;
a worker that dies leaves its lane leased until the lease ends, then another worker resends
what was not acknowledged (at least once, with the same `X-Event-Id`). The statements that
claim, read and write lanes are in `callbacks/repository.py`.

State lives only in the database; the worker wakes on new events from this process (after
commit), on PostgreSQL's NOTIFY from others, and otherwise polls.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import secrets
import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import structlog
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.accounts import service as accounts
from comptoir.applications.service import secret_from_seed
from comptoir.callbacks import repository, signing
from comptoir.callbacks.client import CallbackClient
from comptoir.callbacks.repository import AttemptRow, Done, Retry
from comptoir.callbacks.sending import MAX_ERROR, USER_AGENT, Outcome, http_client, post
from comptoir.config import Settings
from comptoir.db.direct import FastReader
from comptoir.db.engine import Database
from comptoir.errors import DependencyUnavailable
from comptoir.events import signals
from comptoir.events.payload import ChangeRow, EventRow, render_event
from comptoir.events.repository import CALLBACK_CHANNEL, NOTIFY_CHANNEL
from comptoir.kit import clock, ids, metrics, tracing
from comptoir.kit.jsonutil import dumps
from comptoir.kit.safetext import storable
from comptoir.kit.times import render_datetime
from comptoir.models import Event

log = structlog.get_logger("comptoir.callbacks")

MAX_RESENDS = 6  # spec 6.4 item 3
MAX_WAIT_FACTOR = 32  # the wait doubles up to 32 x base
OUTAGE_PAUSE = 1.0  # seconds between claims while the database is unavailable


def resend_wait(base: float, failures: int) -> float:
    """Seconds before the resend that follows the `failures`-th failed attempt (1-based)."""
    return base * min(2 ** (failures - 1), MAX_WAIT_FACTOR)


def delivered(connection_id: int, item: Due, outcome: Outcome, verdict: str) -> None:
    """One POST in the log and the metrics (docs/operations.md "Logs", "Metrics"): its
    outcome (acknowledged, retry, dropped), never the secret or the body."""
    metrics.DELIVERIES.labels(verdict).inc()
    log.info(
        "callback_delivery",
        outcome=verdict,
        event_id=ids.encode(Event.KIND, item.event_id),
        connection_id=connection_id,
        attempt=item.attempts + 1,
        status=outcome.status_code,
        error=outcome.error,
        duration_ms=outcome.duration_ms,
    )


@dataclass(slots=True)
class Lane:
    connection_id: int
    secret: bytes  # the client secret (X-Service-Hmac-SHA256)
    token: str  # this lane's lease: another lane of the same connection never shares it
    keys: list[bytes]  # the signing secrets (webhook-signature), newest first
    failing_since: datetime | None  # every attempt failed since then (automatic disable)


@dataclass(slots=True)
class Health:
    """A lane's failures after a batch: since when every attempt failed, and why to disable it."""

    failing_since: datetime | None
    disable_reason: str | None


@dataclass(slots=True)
class Due:
    event_id: int
    attempts: int
    url: str
    body: bytes
    redelivery: bool
    due: datetime  # `next_attempt_at` as read: an outcome applies only to the event as it was
    traceparent: str | None = None  # of the write that recorded it (docs/operations.md "Traces")
    event_type: str = ""  # `order.create`: what an observer of the POSTs is told


@dataclass(slots=True)
class Batch:
    items: list[Due]  # oldest first
    seen: int  # the notices of changes to its connection counted when it was read


@dataclass(slots=True)
class Writing:
    """A batch's outcomes being written while the lane goes on."""

    task: asyncio.Task[bool]  # False: the lane is no longer this worker's
    started: float  # loop time: the lease it extends counts from then
    events: list[int]  # the batch's events, read again only once written


async def _cancelled(task: asyncio.Task[Any]) -> None:
    """`task` cancelled and finished (whatever it raised is of no use any more)."""
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


@dataclass(frozen=True, slots=True)
class Sent:
    """One POST as it went out and what came back: what an observer of the worker (the
    sandbox's delivery log, docs/sandbox.md "Deliveries") is given after each attempt."""

    connection_id: int
    event_id: int
    event_type: str
    attempt: int  # 1 for the first POST of the event
    url: str
    headers: dict[str, str]  # beside Host
    body: bytes
    outcome: Outcome


class DeliveryWorker:
    def __init__(
        self,
        settings: Settings,
        db: Database,
        key: bytes,
        *,
        concurrency: int = 32,
        poll_interval: float = 0.2,
        batch: int = 100,
        lane_seconds: float = 5.0,
        reader: FastReader | None = None,
        observe: Callable[[Sent], None] | None = None,
    ) -> None:
        self.db = db
        self._observe = observe  # told of every POST (the sandbox's delivery log); None in `serve`
        self.key = key
        self.settings = settings
        self.timeout = settings.callback_timeout_seconds
        self.base = settings.callback_retry_base_seconds
        self.allowed = settings.callback_networks
        self.disable_after = settings.callback_disable_after_seconds
        # A lease outlives the longest wait between renewals: one POST (<= timeout) after
        # the last renewal, which happens at least every `renew_every` seconds.
        self.renew_every = 5.0
        self.lease = timedelta(seconds=self.timeout + self.renew_every + 10)
        self.concurrency = concurrency
        self.poll_interval = poll_interval
        self.batch = batch
        self.lane_seconds = lane_seconds
        self.owner = f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(4)}"
        self._claims = itertools.count(1)
        self._lanes: dict[int, asyncio.Task[None]] = {}
        # inside `serve` the app's reader; `comptoir worker` has its own
        self._own_reader = reader is None
        self._reader = reader or FastReader(settings)
        self._wake = asyncio.Event()
        self._stopping = False
        # PostgreSQL only: while LISTEN works, a lane re-reads an event's state before its POST
        # only when its connection was named on CALLBACK_CHANNEL since its batch was read
        # (the count of those notices, by connection, while its lane runs).
        self._listening = False
        self._changes: dict[int, int] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._http: CallbackClient | None = None

    # --- lifecycle ------------------------------------------------------------------------

    async def run(self) -> None:
        """Deliver until stopped (or cancelled)."""
        self._loop = asyncio.get_running_loop()
        self._http = http_client(self.timeout, self.allowed, self.concurrency * 2)
        unsubscribe = signals.on_new_events(self.poke)
        listener = await self._listen()
        log.info("callback_worker_started", owner=self.owner)
        try:
            while not self._stopping:
                self._wake.clear()
                free = self.concurrency - len(self._lanes)
                wait = self.poll_interval
                try:
                    for lane in await self._claim(free) if free > 0 else []:
                        self._lanes[lane.connection_id] = asyncio.create_task(self._run_lane(lane))
                except DependencyUnavailable:  # logged once per outage; tried again, not hurried
                    wait = max(wait, OUTAGE_PAUSE)
                except Exception:
                    log.exception("callback_claim_failed")
                    wait = max(wait, OUTAGE_PAUSE)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), wait)
        finally:
            unsubscribe()
            lanes = list(self._lanes.values())
            if lanes:
                await asyncio.wait(lanes, timeout=self.timeout + 1)
                for task in lanes:
                    task.cancel()
                await asyncio.gather(*lanes, return_exceptions=True)
            if listener is not None:
                with contextlib.suppress(Exception):
                    await listener.close()
            await self._http.close()
            if self._own_reader:
                await self._reader.close()
            log.info("callback_worker_stopped", owner=self.owner)

    def stop(self) -> None:
        """Finish the POSTs in flight, record them, release the lanes, and return from run()."""
        self._stopping = True
        self._wake.set()

    def poke(self) -> None:
        """New events may be due: look now (callable from any thread)."""
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._wake.set)

    async def _listen(self) -> Any:
        if self.db.is_sqlite:
            return None
        import asyncpg

        from comptoir.db.failures import asyncpg_options, connect

        try:
            connection = await connect(asyncpg_options(self.settings, statement_timeout=False))
            await connection.add_listener(NOTIFY_CHANNEL, lambda *_args: self._wake.set())
            await connection.add_listener(CALLBACK_CHANNEL, self._on_callback_changed)
            connection.add_termination_listener(self._on_listener_lost)
        except DependencyUnavailable:  # polling still delivers; the outage is logged once
            return None
        except (OSError, asyncpg.PostgresError) as exc:  # polling still delivers, checking every send
            log.warning("callback_listen_failed", error=type(exc).__name__)
            return None
        self._listening = True
        return connection

    def _on_callback_changed(self, _connection: Any, _pid: int, _channel: str, payload: str) -> None:
        with contextlib.suppress(ValueError):
            connection_id = int(payload)
            if connection_id in self._lanes:  # a lane that starts later reads fresh state anyway
                self._changes[connection_id] = self._changes.get(connection_id, 0) + 1

    def _on_listener_lost(self, _connection: Any) -> None:
        self._listening = False  # from now on every send is checked
        if not self._stopping:
            log.warning("callback_listen_lost")

    # --- lanes ----------------------------------------------------------------------------

    async def _claim(self, limit: int) -> list[Lane]:
        now = clock.now()
        claimable = repository.claimable(now, list(self._lanes))  # one lane per connection here
        async with self.db.transaction(write=False) as session:  # cheap probe, no write lock
            if not await repository.any_claimable(session, claimable):
                return []
        async with self.db.transaction() as session:
            rows = await repository.lock_lanes(session, claimable, limit)
            lanes = []
            for row in rows:
                keys = await signing.keys_of(session, self.key, row, now)
                lanes.append(
                    Lane(
                        row.connection_id,
                        secret_from_seed(self.key, row.secret_seed).encode(),
                        f"{self.owner}:{next(self._claims)}",
                        keys,
                        row.failing_since,
                    )
                )
            for lane in lanes:
                await repository.lease(session, lane.connection_id, lane.token, now + self.lease)
        return lanes

    async def _run_lane(self, lane: Lane) -> None:
        """Send the lane's due events, a batch at a time, until none is left or the turn ends.
        While a full batch goes out (a backlog) the next one is read, and once every POST of
        it was acknowledged it is written while the next one goes out: the lane's waiting
        (its reads, its writes) overlaps its POSTs. After a batch that was not full the lane
        has caught up: it writes, then reads what came meanwhile, as it always did (an
        overlap there only added to the delay from commit to POST). An event is read again
        only once its outcome is written (a read leaves out the batches not yet written), and
        writes keep their order; a batch with a failure is written before anything else is
        sent, as it may change the callback's health or disable it."""
        loop = asyncio.get_running_loop()
        ends = loop.time() + self.lane_seconds
        renewed = loop.time()  # when the lease was last extended, as far as is known
        hold = 0.0  # seconds before the lane may be claimed again
        reading: asyncio.Task[Batch] | None = None  # the next batch
        writing: Writing | None = None  # the last batch's outcomes
        try:
            batch = await self._due(lane, [])
            while batch.items and not self._stopping:  # a turn sends at least one event, then ends on time
                sending = [item.event_id for item in batch.items]
                if len(batch.items) == self.batch:  # a backlog: the next batch is read meanwhile
                    unwritten = writing.events if writing is not None else []
                    reading = asyncio.create_task(self._due(lane, unwritten + sending))
                outcomes: list[Outcome | None] = []  # None: not sent, nothing to record
                checking = False  # once something changed, read every remaining event's state
                for item in batch.items:
                    if self._stopping or (outcomes and loop.time() >= ends):
                        break  # the rest waits for the next claim: a lane's turn ends on time
                    if writing is not None and writing.task.done():
                        if not writing.task.result():
                            return  # the callback is gone (or, after a stall, another worker has the lane)
                        renewed, writing = writing.started, None
                    if loop.time() - renewed > self.renew_every:
                        if not await self._renew(lane):
                            return
                        renewed = loop.time()
                    checking = checking or self._must_check(lane, batch.seen)
                    if checking and not await self._still_due(lane, item):
                        # acknowledged meanwhile, or the callback was deleted, made passive or
                        # pointed elsewhere: no call (spec 4.9, 6.1 item 2)
                        outcomes.append(None)
                        continue
                    outcomes.append(await self._send(lane, item))
                if writing is not None:  # writes keep their order
                    if not await writing.task:
                        return
                    renewed, writing = writing.started, None
                sent = batch.items[: len(outcomes)]
                if len(sent) < len(batch.items) or self._stopping or loop.time() >= ends:
                    if reading is not None:
                        await _cancelled(reading)
                        reading = None
                    if not await self._record(lane, sent, outcomes):
                        return
                    break
                quiet = lane.failing_since is None and all(o is None or o.acknowledged for o in outcomes)
                if quiet and reading is not None:
                    writing = Writing(asyncio.create_task(self._record(lane, sent, outcomes)), loop.time(), sending)
                else:
                    if not await self._record(lane, sent, outcomes):
                        return
                    renewed = loop.time()
                if reading is None:  # caught up: what came while this batch went out is read now
                    batch = await self._due(lane, [])
                    continue
                batch, reading = await reading, None
            if writing is not None:
                await writing.task
        except DependencyUnavailable:  # logged once per outage (docs/operations.md "When a dependency fails")
            hold = resend_wait(self.base, 1)
        except Exception:
            log.exception("callback_lane_failed", connection_id=lane.connection_id)
            # whatever failed, the lane is not claimed again at once (no resend storm)
            hold = resend_wait(self.base, 1)
        finally:
            if reading is not None:
                await _cancelled(reading)
            if writing is not None:  # the lane is released only once its outcomes are written
                with contextlib.suppress(Exception):
                    await asyncio.shield(writing.task)
            await asyncio.shield(self._release(lane, hold))
            self._changes.pop(lane.connection_id, None)
            if self._lanes.get(lane.connection_id) is asyncio.current_task():
                del self._lanes[lane.connection_id]
            self._wake.set()

    def _must_check(self, lane: Lane, seen: int) -> bool:
        """Whether to re-read an event's state before its POST: always on SQLite (a local read)
        or without a working LISTEN; on PostgreSQL when the connection's callback or events
        changed since its batch was read (`seen`: the notices counted by then)."""
        if self.db.is_sqlite or not self._listening:
            return True
        return self._changes.get(lane.connection_id, 0) != seen

    async def _still_due(self, lane: Lane, item: Due) -> bool:
        """Checked right before a POST, with a fast read (no session)."""
        return await repository.still_due(self._reader, item.event_id, lane.token, item.url)

    async def _due(self, lane: Lane, unwritten: list[int]) -> Batch:
        """The lane's due events, oldest first, while this worker holds its lease, but those
        of `unwritten` (sent, or about to be, their outcomes not yet written): one fast read
        (no session), each body rendered and encoded once."""
        seen = self._changes.get(lane.connection_id, 0)  # this read is fresh
        rows = await repository.due_events(
            self._reader, lane.connection_id, lane.token, clock.now(), self.batch, unwritten
        )
        items = [
            Due(
                row["id"],
                row["attempts"],
                row["url"],
                dumps(render_event(EventRow(row), ChangeRow(row), full=True)),
                row["redelivery"],
                row["next_attempt_at"],  # due: not null
                row["traceparent"],
                f"{row['resource_type']}.{row['event_type']}",
            )
            for row in rows
        ]
        return Batch(items, seen)

    async def _send(self, lane: Lane, item: Due) -> Outcome:
        assert self._http is not None
        event_id = ids.encode(Event.KIND, item.event_id)
        timestamp = int(clock.now().timestamp())
        headers = signing.headers(lane.secret, lane.keys, event_id, timestamp, item.body, redelivery=item.redelivery)
        metrics.ATTEMPTS_IN_FLIGHT.inc()
        try:
            with tracing.continued(item.traceparent, "deliver event", {"comptoir.event_id": event_id}):
                outcome = await post(self._http, item.url, item.body, headers, self.allowed)
        finally:
            metrics.ATTEMPTS_IN_FLIGHT.dec()
        if self._observe is not None:
            sent = {"User-Agent": USER_AGENT, **headers, "Content-Length": str(len(item.body))}
            attempt = item.attempts + 1
            self._observe(
                Sent(lane.connection_id, item.event_id, item.event_type, attempt, item.url, sent, item.body, outcome)
            )
        return outcome

    async def _record(self, lane: Lane, batch: list[Due], outcomes: list[Outcome | None]) -> bool:
        """Write the batch's outcomes and the delivery log, and renew the lease; False when
        the lane is no longer ours, or the callback was just disabled."""
        done: list[Done] = []
        retries: list[Retry] = []
        log_rows: list[AttemptRow] = []
        failing_since = lane.failing_since
        last_failed: Outcome | None = None
        for item, outcome in zip(batch, outcomes, strict=True):
            if outcome is None:
                continue
            failures = item.attempts + 1
            if outcome.acknowledged:
                verdict = "acknowledged"
                done.append({"b_id": item.event_id, "b_due": item.due})
                failing_since, last_failed = None, None
            else:
                failing_since = failing_since or outcome.attempted_at
                last_failed = outcome
                if item.attempts >= MAX_RESENDS:  # the final attempt failed: given up
                    verdict = "dropped"
                    done.append({"b_id": item.event_id, "b_due": item.due})
                else:
                    verdict = "retry"
                    next_at = outcome.finished_at + timedelta(seconds=resend_wait(self.base, failures))
                    retries.append(
                        {"b_id": item.event_id, "b_due": item.due, "b_attempts": failures, "b_next": next_at}
                    )
            delivered(lane.connection_id, item, outcome, verdict)
            log_rows.append(
                {
                    "connection_id": lane.connection_id,
                    "event_id": item.event_id,
                    "attempt": failures,
                    "attempted_at": outcome.attempted_at,
                    "duration_ms": outcome.duration_ms,
                    "url": item.url,
                    "status_code": outcome.status_code,
                    "error": None if outcome.error is None else storable(outcome.error, MAX_ERROR),
                    "response_bytes": outcome.size,
                    "response_excerpt": None if outcome.excerpt is None else storable(outcome.excerpt),
                    "outcome": verdict,
                }
            )
        health = Health(failing_since, self._disable_reason(failing_since, last_failed))
        try:
            return await self._write(lane, done, retries, log_rows, health)
        except DependencyUnavailable:
            raise  # nothing written: the attempts are made again once the database is back
        except Exception:
            if not log_rows:
                raise
            # The delivery log is the one part a receiver's reply shapes: whatever went wrong
            # there, the attempts are counted and their resends scheduled without it.
            log.exception("callback_log_write_failed", connection_id=lane.connection_id)
            return await self._write(lane, done, retries, [], health)

    def _disable_reason(self, failing_since: datetime | None, last_failed: Outcome | None) -> str | None:
        """Why the callback is disabled after this batch: every attempt failed for
        COMPTOIR_CALLBACK_DISABLE_AFTER_SECONDS (docs/api/callbacks-events.md "Automatic
        disable"); None while it is not."""
        if failing_since is None or last_failed is None:
            return None
        if (last_failed.attempted_at - failing_since).total_seconds() < self.disable_after:
            return None
        last = last_failed.error or f"status {last_failed.status_code}"
        return f"every delivery attempt failed since {render_datetime(failing_since)} (last: {last})"

    async def _write(
        self, lane: Lane, done: list[Done], retries: list[Retry], log_rows: list[AttemptRow], health: Health
    ) -> bool:
        now = clock.now()
        if not self.db.is_sqlite and health == Health(lane.failing_since, None):
            # the usual batch: outcomes, log and lease in one statement (no session)
            return await repository.settle(
                self._reader, lane.connection_id, lane.token, done, retries, log_rows, now, now + self.lease
            )
        async with self.db.transaction() as session:
            # The callback's row before its events' rows: the order DELETE /callback and
            # `settle` take them in, so that neither waits for the other in a circle (a
            # deadlock, which PostgreSQL ends by failing one of them).
            kept = await self._extend(session, lane)
            if health.failing_since != lane.failing_since:
                await repository.set_failing_since(session, lane.connection_id, health.failing_since)
            reason = health.disable_reason
            if reason is not None and await repository.disable(session, lane.connection_id, now, reason):
                log.warning("callback_disabled", connection_id=lane.connection_id, reason=reason)
                await accounts.add_notice(session, lane.connection_id, now, f"A callback was disabled: {reason}.")
            await repository.write_outcomes(session, done, retries, log_rows, now)
        if health.disable_reason is not None:
            return False  # no more attempts
        lane.failing_since = health.failing_since
        return kept

    async def _renew(self, lane: Lane) -> bool:
        async with self.db.transaction() as session:
            return await self._extend(session, lane)

    async def _extend(self, session: AsyncSession, lane: Lane) -> bool:
        return await repository.extend_lease(session, lane.connection_id, lane.token, clock.now() + self.lease)

    async def _release(self, lane: Lane, hold: float = 0.0) -> None:
        try:
            async with self.db.transaction() as session:
                # served now (least recently served lanes are claimed first), or held off after a failure
                await repository.release(session, lane.connection_id, lane.token, clock.now() + timedelta(seconds=hold))
        except DependencyUnavailable:  # the lease then simply runs out; the outage is logged once
            pass
        except Exception:  # the lease then simply runs out
            log.exception("callback_lane_release_failed", connection_id=lane.connection_id)
