"""GET /locations/:id/today/stream: the live board's news, as Server-Sent Events
(docs/back-office.md "Orders"). It tells the board's script when to fetch its list again
(`event: changed`), as soon as an order of the location (or the location) changed, by
whichever process: the board then reads its list as before, the one read of the board.

Each process has one `Boards`, made with the first board stream, which every one joins. It
holds what they share, once: the read of the changes of the watched locations
(`events.announced_after`, by the changes' key, one statement for every board of the
process), run at once when the process's one wake-up (`events.wakeup`, which also wakes the
API's event streams) tells of a commit of this process that changed a watched location or
of new events anywhere, and at least every READ_SECONDS for the other processes' commits
(no NOTIFY is sent for a change: it would serialise the commits of every order); and, every
CHECK_SECONDS, the checks that close a stream: its browser session ended (signed out,
expired) or the location is no longer the person's (`web.pages.owned_location`, as the
board page decides), read once per session and per location, not per stream. A person holds
at most MAX_PER_PERSON at once, counted across processes as the API's event streams are
(the rate limiter's holds, renewed at each check)."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections import deque

import structlog
from starlette.types import Receive, Scope, Send

from comptoir import events
from comptoir.errors import DependencyUnavailable
from comptoir.events.signals import Committed
from comptoir.http.protocol import on_drain
from comptoir.http.sse import SseResponse
from comptoir.http.state import AppState
from comptoir.kit import metrics
from comptoir.users import sessions
from comptoir.web.pages import owned_location
from comptoir.web.render import PageAnswer

log = structlog.get_logger("comptoir.web.board_stream")

MAX_PER_PERSON = 10  # board streams a person may hold open at once, across every process
HELD = "boards"  # what the rate limiter's holds of open boards are called (per user id)
CHECK_SECONDS = 2.0  # sessions and ownership checked, holds renewed, this often
READ_SECONDS = 0.4  # the changes of the watched locations read at least this often
SETTLE_SECONDS = 5.0  # how long a key below the last one read may still appear (see callbacks.stream)
HOLD_SECONDS = 10.0  # a board's hold: a process gone frees them by then
CHANGED = b"event: changed\ndata: changed\n\n"  # an empty `data` would not be dispatched


class Watcher:
    """One open board stream: whose it is, which location it watches, whether it has news."""

    __slots__ = ("closed", "holder", "location_id", "location_public_id", "news", "session", "user_id", "wake")

    def __init__(self, session: sessions.WebSession, user_id: int, location_id: int, location_public_id: str) -> None:
        self.session = session
        self.user_id = user_id
        self.holder = uuid.uuid4().hex  # its hold on one of the person's MAX_PER_PERSON
        self.location_id = location_id
        self.location_public_id = location_public_id
        self.news = False  # the location changed since the last message
        self.wake = asyncio.Event()
        self.closed: str | None = None  # why the stream ends

    def changed(self) -> None:
        self.news = True
        self.wake.set()

    def close(self, reason: str) -> None:
        if self.closed is None:
            self.closed = reason
        self.wake.set()


class TooMany(Exception):
    """The person already holds MAX_PER_PERSON board streams."""


class Boards:
    """The process's board streams and what they share (see the module's docstring)."""

    def __init__(self, state: AppState) -> None:
        self.state = state
        self.by_location: dict[int, list[Watcher]] = {}
        self._task: asyncio.Task[None] | None = None
        self._ready: asyncio.Future[None] | None = None
        self._stop = asyncio.Event()  # set: a board left (the last one stops the task), or a read is due
        self._floor = 0  # keys up to this one are never read again
        self._marks: deque[tuple[float, int]] = deque()  # (when, the newest key then): the floor to come
        self._seen: dict[int, float] = {}  # keys above the floor already read, and when

    def watchers(self) -> list[Watcher]:
        return [watcher for watchers in self.by_location.values() for watcher in watchers]

    async def join(self, watcher: Watcher) -> None:
        """Add `watcher` once the wake-up is heard: what commits from now on reaches it.
        TooMany when its person already has MAX_PER_PERSON open, in any process (a hold of
        the rate limiter's, as for the API's event streams: shared through Redis, or this
        process's own)."""
        limiter = self.state.limiter
        if not await limiter.hold(HELD, watcher.user_id, watcher.holder, MAX_PER_PERSON, HOLD_SECONDS):
            raise TooMany
        self.by_location.setdefault(watcher.location_id, []).append(watcher)
        metrics.BOARD_STREAMS_OPEN.inc()
        if self._task is None:
            self._stop.clear()
            self._ready = asyncio.get_running_loop().create_future()
            self._task = asyncio.create_task(self._run(), name="comptoir-boards")
        assert self._ready is not None
        try:
            await asyncio.shield(self._ready)
        except BaseException:
            await self.leave(watcher)
            raise

    async def leave(self, watcher: Watcher) -> None:
        """Take `watcher` out, and give back its hold."""
        self._forget(watcher)
        await self.state.limiter.release(HELD, watcher.user_id, watcher.holder)

    def _forget(self, watcher: Watcher) -> None:
        watchers = self.by_location.get(watcher.location_id)
        if watchers is None or watcher not in watchers:
            return
        watchers.remove(watcher)
        metrics.BOARD_STREAMS_OPEN.dec()
        if not watchers:
            del self.by_location[watcher.location_id]
        if not self.by_location:
            self._stop.set()  # the checks and the wake-up stop with the last stream

    def heard(self, committed: Committed) -> None:
        """A commit, of this process or another (`events.wakeup`): a read at once when it
        may concern a board."""
        if committed.events or any(location_id in self.by_location for location_id in committed.locations):
            self._stop.set()

    def drain(self) -> None:
        """Every stream ends (the process shuts down): their boards reconnect elsewhere."""
        for watcher in self.watchers():
            watcher.close("shutdown")

    async def close(self) -> None:
        """At the application's stop: every stream ends, the checks with them."""
        self.drain()
        self._stop.set()
        task = self._task
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.shield(task), 5)
            task.cancel()

    async def _run(self) -> None:
        ready = self._ready
        assert ready is not None
        undo = on_drain(self.drain)
        try:
            async with self.state.db.transaction(write=False) as session:
                self._floor = await events.last_change_key(session)
            self._seen.clear()
            self._marks.clear()
            await self.state.wakeup.join(self.heard)
            ready.set_result(None)
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else ConnectionError("stopped"))
            self._task = None
            undo()
            raise
        checked = 0.0
        try:
            while self.by_location:
                self._stop.clear()
                now = time.monotonic()
                try:
                    await self._read()
                    if now - checked >= CHECK_SECONDS:
                        checked = now
                        await self._check()
                except DependencyUnavailable:
                    pass  # logged once per outage (kit.outages); tried again at the next tick
                except Exception:
                    log.exception("board_check_failed")  # tried again at the next tick
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stop.wait(), READ_SECONDS)
        finally:
            self._task = None  # a stream that joins from now on starts them again
            undo()
            with contextlib.suppress(Exception):
                await self.state.wakeup.leave(self.heard)

    async def _read(self) -> None:
        """Tell the boards of each location with a change not read yet. A change's key is
        taken at its insert and seen at its commit: the keys above the newest one of
        SETTLE_SECONDS ago are read again (but those read already), for a commit that showed
        a key below one read; the read spans those seconds of changes, whatever the boards."""
        now = time.monotonic()
        marks = self._marks
        while marks and marks[0][0] <= now - SETTLE_SECONDS:
            self._floor = max(self._floor, marks.popleft()[1])
        self._seen = {key: when for key, when in self._seen.items() if key > self._floor}
        async with self.state.db.transaction(write=False) as session:
            newest = await events.last_change_key(session)
            rows = await events.announced_after(session, self._floor, list(self.by_location), self._seen.keys())
        marks.append((now, newest))
        changed: set[int] = set()
        for key, location_id in rows:
            self._seen[key] = now
            changed.add(location_id)
        for location_id in changed:
            for watcher in self.by_location.get(location_id, ()):
                watcher.changed()

    async def _check(self) -> None:
        """Renew the streams' holds; close the streams whose session ended, or whose
        location is no longer the person's: one read per session, and per location of each."""
        by_session: dict[str, list[Watcher]] = {}
        holders: dict[int, list[str]] = {}
        for watcher in self.watchers():
            by_session.setdefault(watcher.session.sid, []).append(watcher)
            holders.setdefault(watcher.user_id, []).append(watcher.holder)
        await self.state.limiter.renew(HELD, holders, HOLD_SECONDS)
        async with self.state.db.transaction(write=False) as db:
            for watchers in by_session.values():
                user = await sessions.user_of(db, watchers[0].session)
                if user is None:
                    for watcher in watchers:
                        watcher.close("signed_out")
                    continue
                refused: dict[str, bool] = {}
                for watcher in watchers:
                    public_id = watcher.location_public_id
                    if public_id not in refused:
                        try:
                            await owned_location(db, user, public_id)
                            refused[public_id] = False
                        except PageAnswer:
                            refused[public_id] = True
                    if refused[public_id]:
                        watcher.close("not_found")


def boards_of(state: AppState) -> Boards:
    """The process's `Boards` (made with the first board stream)."""
    found = state.boards
    if not isinstance(found, Boards):
        found = state.boards = Boards(state)
    return found


class BoardStream(SseResponse):
    """The answer of GET /locations/:id/today/stream: `event: changed` whenever the location
    changed since the last one (changes in a row make one message), until the client
    leaves, stops reading (the send timeout), or `Boards` closes it."""

    def __init__(self, boards: Boards, watcher: Watcher, send_timeout: float) -> None:
        super().__init__(send_timeout)
        self.boards, self.watcher = boards, watcher

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        watcher = self.watcher
        log.info("board_stream_opened", location=watcher.location_public_id)
        leaving = asyncio.ensure_future(self.watch(receive, lambda: watcher.close("disconnected")))
        try:
            await self.open(send)
            while watcher.closed is None:
                if watcher.news:
                    watcher.news = False
                    await self.send_body(send, CHANGED)
                    continue
                await self.wait_or_ping(send, watcher.wake)
            await self.end(send, watcher.closed)
        except TimeoutError:
            watcher.close("send_timeout")
        finally:
            leaving.cancel()
            await self.boards.leave(watcher)
            log.info("board_stream_closed", location=watcher.location_public_id, reason=watcher.closed)
