"""GET /callback/stream: a connection's pending events as Server-Sent Events
(docs/api/callbacks-events.md "Stream").

Each process has one `Streams`, made with its first stream, which every stream of the
process joins. It holds what streams share, once: its place in the process's one wake-up
(`events.wakeup`: the in-process signal of `events.signals` at each commit that made events
and, on PostgreSQL, one LISTEN connection on the outbox's channels, shared with the back
office's boards), the read of new events (one statement per wake-up for every connection
that has a stream open, without a session; each event rendered once, as
`GET /callback/events/:id` renders it, its states spliced as stored: `events.payload`) and,
every second, the checks that close a stream: its token no longer valid (revoked, blocked,
suspended, its connection deleted) or its callback given a URL. A `Stream` holds
only its own queue of messages already rendered, sent together when several wait.

A stream sends events by key (their ids, ascending), never one at or below the last it sent,
so that a client resuming after the last id it received gets neither a repeat nor a gap. A
key is taken when the event is inserted and the event exists once its transaction commits:
a commit may show a key below one already read. The shared read therefore looks again, once
a second, at the keys of the last SETTLE seconds (the keys alone), and reads the events
among them it had not read, for the streams still below them;
an event committed later than that behind a stream's last key stays in the queue
(`GET /callback/events`), and reaches a stream opened without `Last-Event-ID`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections import deque
from collections.abc import Callable
from typing import Any

import structlog
from starlette.types import Receive, Scope, Send

from comptoir.auth.context import Ctx
from comptoir.auth.tokens import resolve
from comptoir.callbacks import service
from comptoir.errors import BadRequest, ComptoirError, DependencyUnavailable, RateLimited
from comptoir.events.signals import Committed
from comptoir.http.protocol import on_drain
from comptoir.http.sse import RETRY_MS, SseResponse
from comptoir.http.state import AppState
from comptoir.kit import ids, metrics
from comptoir.kit.jsonutil import dumps
from comptoir.kit.wire import shown
from comptoir.models import Event

log = structlog.get_logger("comptoir.callbacks.stream")

MAX_STREAMS = 3  # open at once per connection, across every process sharing the rate limiter
HELD = "streams"  # what the rate limiter's holds of open streams are called
HOLD_SECONDS = 10.0  # a stream's hold, renewed every CHECK_SECONDS: a process gone frees them by then
CHECK_SECONDS = 1.0  # token and callback checked this often
POLL_SECONDS = 5.0  # new events read this often even without a wake-up (a lost LISTEN)
READ_GAP_SECONDS = 0.02  # reads at most this often: at hundreds of commits a second, one read takes many
SETTLE_SECONDS = 10.0  # how long a key below the last one read may still appear
BATCH = 200  # events per statement (a backlog page, one read of new events)
MAX_QUEUED = 1000  # messages a stream may hold unsent before it is closed as too slow
SEND_BATCH = 100  # messages waiting sent together, in one write


def resume_after(last_event_id: str | None) -> int:
    """The key of the event a client resumes after (`Last-Event-ID`), 0 without one;
    BadRequest for a value that is no event id. Any id is taken: it only bounds which of the
    connection's own events are sent, so another connection's reveals nothing."""
    if last_event_id is None or last_event_id == "":
        return 0
    key = ids.decode(Event.KIND, last_event_id)
    if key is None:
        raise BadRequest(f"Last-Event-ID must be the id of an event, as a stream gives it, not {shown(last_event_id)}")
    return key


def message(key: int, body: dict[str, Any]) -> bytes:
    """One event as a Server-Sent Events message."""
    kind = f"{body['resource_type']}.{body['event_type']}"
    return b"id: %s\nevent: %s\ndata: %s\n\n" % (ids.encode(Event.KIND, key).encode(), kind.encode(), dumps(body))


class Stream:
    """One open stream: whose it is, where it resumes, and what waits to be sent."""

    __slots__ = ("after", "closed", "connection_id", "ctx", "holder", "queue", "token", "wake")

    def __init__(self, ctx: Ctx, token: str, after: int) -> None:
        self.ctx = ctx
        self.connection_id = ctx.connection_id
        self.token = token
        self.after = after  # the last key sent (or that the client had): only later ones go
        self.queue: deque[tuple[int, bytes]] = deque()
        self.wake = asyncio.Event()
        self.closed: str | None = None  # why the stream ends
        self.holder = uuid.uuid4().hex  # its hold on one of the connection's MAX_STREAMS

    def push(self, key: int, data: bytes) -> None:
        """Queue a live event (sent unless the backlog sent it or a later one first)."""
        if self.closed is not None or key <= self.after:
            return
        if len(self.queue) >= MAX_QUEUED:
            self.close("too_slow")
            return
        self.queue.append((key, data))
        self.wake.set()

    def take(self) -> tuple[int, bytes]:
        """What waits, as one send of at most SEND_BATCH messages: those queued above the last
        key sent, in the queue's order, but for a key below one before it (sent by the
        backlog, or behind a later one); and the last key it holds."""
        last, parts = self.after, list[bytes]()
        queue = self.queue
        while queue and len(parts) < SEND_BATCH:
            key, data = queue.popleft()
            if key > last:
                parts.append(data)
                last = key
        return last, b"".join(parts)

    def close(self, reason: str) -> None:
        """End the stream: nothing more is sent, and what waited is let go at once (a client
        stalled in a send keeps only that send until the send timeout)."""
        if self.closed is None:
            self.closed = reason
        self.queue.clear()
        self.wake.set()


class Streams:
    """The process's open streams and what they share (see the module's docstring)."""

    def __init__(self, state: AppState) -> None:
        self.state = state
        self.by_connection: dict[int, list[Stream]] = {}
        self._top = 0  # the last key read: each wake-up reads the keys above it
        self._floor = 0  # keys up to this one are never read again (see SETTLE_SECONDS)
        self._seen: dict[int, float] = {}  # keys above the floor already sent, and when
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._ready: asyncio.Future[None] | None = None

    # --- joining and leaving ------------------------------------------------------------

    def count(self, connection_id: int) -> int:
        return len(self.by_connection.get(connection_id, ()))

    async def join(self, stream: Stream) -> None:
        """Add `stream` once the shared read is ready: what commits from now on reaches it.
        RateLimited (429) when its connection already has MAX_STREAMS open, in any process
        (a hold of the rate limiter's: shared through Redis, or this process's own)."""
        limiter = self.state.limiter
        if not await limiter.hold(HELD, stream.connection_id, stream.holder, MAX_STREAMS, HOLD_SECONDS):
            refused = RateLimited(RETRY_MS // 1000, "open streams")
            refused.message = f"At most {MAX_STREAMS} streams may be open per connection; close one first"
            raise refused
        self.by_connection.setdefault(stream.connection_id, []).append(stream)
        metrics.STREAMS_OPEN.inc()
        if self._task is None:
            self._ready = asyncio.get_running_loop().create_future()
            self._task = asyncio.create_task(self._run(), name="comptoir-streams")
        assert self._ready is not None
        try:
            await asyncio.shield(self._ready)
        except BaseException:
            await self.leave(stream)
            raise

    async def leave(self, stream: Stream) -> None:
        """Take `stream` out, and give back its hold."""
        self._forget(stream)
        await self.state.limiter.release(HELD, stream.connection_id, stream.holder)

    def _forget(self, stream: Stream) -> None:
        streams = self.by_connection.get(stream.connection_id)
        if streams is None or stream not in streams:
            return
        streams.remove(stream)
        metrics.STREAMS_OPEN.dec()
        if not streams:
            del self.by_connection[stream.connection_id]
        if not self.by_connection:
            self._wake.set()  # the shared read stops with the last stream

    def drain(self) -> None:
        """Every stream ends (the process shuts down): their clients reconnect elsewhere."""
        for streams in list(self.by_connection.values()):
            for stream in streams:
                stream.close("shutdown")

    async def close(self) -> None:
        """At the application's stop: every stream ends, the shared read with them."""
        self.drain()
        task = self._task
        if task is not None:
            self._wake.set()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.shield(task), 5)
            task.cancel()

    def heard(self, committed: Committed) -> None:
        """A commit, of this process or another (`events.wakeup`): new events are read at once."""
        if committed.events:
            self._wake.set()

    # --- the shared read ----------------------------------------------------------------

    async def _run(self) -> None:
        wakeup = self.state.wakeup
        undo: Callable[[], None] | None = None
        ready = self._ready
        assert ready is not None
        try:
            undo = on_drain(self.drain)
            await wakeup.join(self.heard)
            async with self.state.db.transaction(write=False) as session:
                self._top = self._floor = await service.last_event_key(session)
            self._seen.clear()
            ready.set_result(None)
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else ComptoirError("stopped"))
            self._task = None
            await self._stop_listening(undo)
            raise
        checked = read = time.monotonic()
        try:
            while self.by_connection:
                self._wake.clear()
                now = time.monotonic()
                read = now  # a failed read waits its turn too: an outage is not hammered
                try:
                    await self._read()
                    if now - checked >= CHECK_SECONDS:
                        checked = now
                        await self._settle()
                        await self._check()
                except DependencyUnavailable:
                    pass  # logged once per outage (kit.outages); tried again at the next tick
                except Exception:
                    log.exception("stream_read_failed")
                timeout = max(0.0, min(checked + CHECK_SECONDS, read + POLL_SECONDS) - time.monotonic())
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), timeout)
                # commits in a burst: one read for all of them, not one each
                await asyncio.sleep(max(0.0, read + READ_GAP_SECONDS - time.monotonic()))
        finally:
            self._task = None  # a stream that joins from now on starts a new read
            await self._stop_listening(undo)

    async def _stop_listening(self, undo: Callable[[], None] | None) -> None:
        if undo is not None:
            undo()
        with contextlib.suppress(Exception):
            await self.state.wakeup.leave(self.heard)

    async def _read(self) -> None:
        """The events after the last key read, of every connection with a stream, sent to its
        streams."""
        now = time.monotonic()
        after = self._top
        while self.by_connection:
            rows = await service.pending_after(self.state.fast, list(self.by_connection), after, BATCH)
            self._deliver(rows, now)
            if len(rows) < BATCH:
                break
            after = rows[-1][0]

    async def _settle(self) -> None:
        """The keys above the floor read again, the keys alone: the events among them not read
        yet (committed behind a later key) are read and sent; then the keys read
        SETTLE_SECONDS ago are settled."""
        now = time.monotonic()
        reader = self.state.fast
        if self.by_connection and self._floor < self._top:
            keys = await service.pending_keys(reader, list(self.by_connection), self._floor, self._top)
            missed = sorted(key for key in keys if key not in self._seen)
            for start in range(0, len(missed), BATCH):
                self._deliver(await service.pending_of(reader, missed[start : start + BATCH]), now)
        settled = now - SETTLE_SECONDS
        old = [key for key, when in self._seen.items() if when <= settled]
        if old:
            self._floor = max(self._floor, *old)
            self._seen = {key: when for key, when in self._seen.items() if key > self._floor}

    def _deliver(self, rows: list[service.Rendered], now: float) -> None:
        """Each event read to its connection's streams (rendered once), unless sent already."""
        for key, connection_id, body in rows:
            self._seen[key] = now
            data: bytes | None = None
            for stream in self.by_connection.get(connection_id, ()):
                if key > stream.after:
                    data = data or message(key, body)
                    stream.push(key, data)
        if rows:
            self._top = max(self._top, rows[-1][0])

    async def _check(self) -> None:
        """Renew the streams' holds; close the streams whose token is no longer valid, or
        whose callback has a URL."""
        state = self.state
        holders = {c: [stream.holder for stream in streams] for c, streams in self.by_connection.items()}
        await state.limiter.renew(HELD, holders, HOLD_SECONDS)
        tokens = {stream.token for streams in self.by_connection.values() for stream in streams}
        refused: dict[str, str] = {}
        for token in tokens:
            try:
                await resolve(state.fast, state.cache, state.key, token)
            except ComptoirError as exc:
                if exc.status == 401:
                    refused[token] = "unauthorized"
        async with state.db.transaction(write=False) as session:
            active = await service.unstreamable(session, list(self.by_connection))
        for connection_id, streams in list(self.by_connection.items()):
            for stream in streams:
                if stream.token in refused:
                    stream.close(refused[stream.token])
                elif connection_id in active:
                    stream.close("callback_active")


def streams_of(state: AppState) -> Streams:
    """The process's `Streams` (made with the first stream)."""
    found = state.streams
    if not isinstance(found, Streams):
        found = state.streams = Streams(state)
    return found


class EventStream(SseResponse):
    """The answer of GET /callback/stream: the backlog, then live events, until the client
    leaves, stops reading (a send that takes longer than the send timeout), or `Streams`
    closes it."""

    def __init__(self, streams: Streams, stream: Stream, send_timeout: float) -> None:
        super().__init__(send_timeout)
        self.streams, self.stream = streams, stream

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        stream = self.stream
        resumed = ids.encode(Event.KIND, stream.after) if stream.after else None
        log.info("stream_opened", connection_id=stream.connection_id, last_event_id=resumed)
        watcher = asyncio.ensure_future(self.watch(receive, lambda: stream.close("disconnected")))
        try:
            await self.open(send)
            await self._backlog(send)
            while stream.closed is None:
                if stream.queue:
                    key, data = stream.take()
                    if data:
                        await self.send_body(send, data)
                        stream.after = key
                    continue
                await self.wait_or_ping(send, stream.wake)
            await self.end(send, stream.closed)
        except TimeoutError:
            stream.close("send_timeout")
        finally:
            watcher.cancel()
            await self.streams.leave(stream)
            stream.queue.clear()
            log.info("stream_closed", connection_id=stream.connection_id, reason=stream.closed)

    async def _backlog(self, send: Send) -> None:
        """The connection's pending events after where the stream resumes, oldest first, a
        page at a time, each page in one send."""
        stream = self.stream
        reader = self.streams.state.fast
        while stream.closed is None:
            rows = await service.pending_after(reader, [stream.connection_id], stream.after, BATCH)
            if not rows or stream.closed is not None:
                return
            await self.send_body(send, b"".join(message(key, body) for key, _connection_id, body in rows))
            stream.after = rows[-1][0]
            if len(rows) < BATCH:
                break
