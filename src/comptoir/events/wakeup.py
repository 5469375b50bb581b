"""The process's one wake-up for the answers that follow commits live: the event streams
(docs/api/callbacks-events.md "Stream") and the back office's boards (docs/back-office.md
"Orders"). It hears, once for every one of them, the commits of this process (the
in-process signal of `events.signals`) and, on PostgreSQL, the new events of every other
process on one LISTEN connection (the outbox's channel of `events.repository`). It listens
while someone has joined, and stops with the last to leave.

Each joiner's callback is called in the event loop with what a commit made (`Committed`):
cheap and synchronous (a callback sets a flag; its own task reads what it needs)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import structlog

from comptoir.config import Settings
from comptoir.events import signals
from comptoir.events.repository import NOTIFY_CHANNEL
from comptoir.events.signals import Committed

log = structlog.get_logger("comptoir.events.wakeup")

Heard = Callable[[Committed], None]
NEW_EVENTS = Committed(events=True)


class Wakeup:
    """See the module's docstring. Made with the application, idle until the first `join`."""

    def __init__(self, settings: Settings, *, is_sqlite: bool) -> None:
        self.settings = settings
        self.is_sqlite = is_sqlite
        self._heard: list[Heard] = []
        self._lock: asyncio.Lock | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._undo: Callable[[], None] | None = None
        self._listener: Any = None

    @property
    def listening(self) -> bool:
        """Whether this process hears the commits of the others (PostgreSQL, LISTEN held)."""
        return self._listener is not None

    async def join(self, heard: Heard) -> None:
        """Call `heard` after each commit from now on (the first joiner starts listening)."""
        async with self._locked():
            if not self._heard:
                try:
                    await self._start()
                except BaseException:  # cancelled while connecting: nothing is left behind
                    await self._stop()
                    raise
            self._heard.append(heard)

    async def leave(self, heard: Heard) -> None:
        """No more calls of `heard` (the last to leave stops the listening)."""
        async with self._locked():
            if heard in self._heard:
                self._heard.remove(heard)
            if not self._heard:
                await self._stop()

    async def close(self) -> None:
        """At the application's stop, after the streams and boards: whoever did not leave is
        forgotten, and the LISTEN connection closed."""
        async with self._locked():
            self._heard.clear()
            await self._stop()

    def _locked(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    async def _start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._undo = signals.on_commit(self._from_any_thread)
        self._listener = await self._listen()

    async def _stop(self) -> None:
        if self._undo is not None:
            self._undo()
            self._undo = None
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(listener.close(), 5)

    def _from_any_thread(self, committed: Committed) -> None:
        """A commit of this process (`events.signals` may call from any thread)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._tell, committed)

    def _tell(self, committed: Committed) -> None:
        for heard in list(self._heard):
            heard(committed)

    async def _listen(self) -> Any:
        """One LISTEN connection for the process (PostgreSQL); None on SQLite, where the
        commits of this process are the only ones, or when it cannot be had (the joiners
        read again on their own, every few seconds)."""
        if self.is_sqlite:
            return None
        from comptoir.db.failures import asyncpg_options, connect

        connection = None
        try:
            connection = await connect(asyncpg_options(self.settings, statement_timeout=False))
            await connection.add_listener(NOTIFY_CHANNEL, lambda *_args: self._tell(NEW_EVENTS))
        except Exception as exc:
            log.warning("wakeup_listen_failed", error=type(exc).__name__)
            if connection is not None:
                connection.terminate()
            return None
        return connection
