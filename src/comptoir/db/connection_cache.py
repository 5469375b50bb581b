"""What hot paths read of connections, remembered per process on PostgreSQL
(docs/operations.md "Connection cache").

Two reads are kept:
- `TOKENS`: every API request turns its token into a connection context
  (`comptoir.auth.tokens`): one round trip, a third of an order GET's work;
- `AUDIENCES`: a write that runs as one statement reads which connections subscribe to its
  change (`comptoir.events.receivers`).

Everything is forgotten whenever the database says that a connection, an OAuth client, an
account, a location or a callback subscription changed: triggers on those tables (migration
0015) send `NOTIFY comptoir_connections` in the changing transaction, which PostgreSQL
hands, at its commit, to the backend of every listening process.

That backend forwards it on its own schedule, so a notification may reach this process
after the next request, sent by a client that has already read the changing response.
Every request therefore reads the cache through `cached()`, only after `synced()`: one
round trip on the LISTEN connection, begun after the request arrived, and one only: within
a request (`one_sync_per_request`, opened by `http.routing` around every API endpoint) the
first round trip answers for the request's later reads too (an order creation reads its
token, then who subscribes to its change). A backend sends the notifications it holds
before answering any query, and each was handed to it before its change's commit returned,
so when the answer comes back every change committed before the request is forgotten.
Requests that arrive while one round trip is under way share the next one: one query at a
time, whatever the traffic. So a revoked, blocked or suspended token is refused by every
process from the next request on, a location changed through one process reads changed
through another, and a new subscription gets the events of the next change, as without a
cache.

The cache is used only while its LISTEN connection is up: until it is connected, and from
the moment it is lost until it is back (retried every few seconds), every lookup reads the
database. As a safety net for notifications that never arrive although the connection
stands (a pooler in transaction mode between Comptoir and PostgreSQL), nothing is kept
longer than MAX_AGE_SECONDS.

On SQLite the same reads run in-process, yet a token's lookup was still about a third of a
location GET's CPU (docs/performance.md "A token's lookup on SQLite"). SQLite has no
notifications. Instead, triggers on the same rows set a stamp (`cache_stamps`, migration
0032) to a new random number in the changing transaction, and `synced()` asks the fast
reader's read-only connection (which never writes) whether any connection, of any process,
committed since it last asked (`PRAGMA data_version`, a few microseconds); only then does it
read the stamp, and it forgets everything when the stamp moved. Every read after `synced()`
therefore sees every change committed before it, as on PostgreSQL, and without a round trip
to share.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import Awaitable, Callable, Hashable, Iterator
from contextvars import ContextVar
from typing import Any, TypeVar, TypeVarTuple

import structlog
from sqlalchemy import select

from comptoir.config import Settings
from comptoir.db.direct import FastReader, Query
from comptoir.errors import DependencyUnavailable
from comptoir.models import CacheStamp

CHANNEL = "comptoir_connections"
TOKENS = "tokens"  # access token -> Ctx
AUDIENCES = "audiences"  # fan-out query parameters -> subscribed connections
MAX_AGE_SECONDS = 30.0
RETRY_SECONDS = 5.0
SYNC_TIMEOUT_SECONDS = 2.0  # a LISTEN connection slower than this is dropped and made anew

log = structlog.get_logger("comptoir.connections")
STAMP = Query(select(CacheStamp.stamp).where(CacheStamp.name == "connections"))
T = TypeVar("T")
Ts = TypeVarTuple("Ts")


# The round trip that answers for the request under way: [the LISTEN connection it was made
# on (None until made), the task of the request]; None outside a request.
_REQUEST_SYNC: ContextVar[list[Any] | None] = ContextVar("comptoir_request_sync", default=None)


@contextlib.contextmanager
def one_sync_per_request() -> Iterator[None]:
    """Within: one round trip of `ConnectionCache.synced` answers for every later call in
    the same task on the same LISTEN connection. It began after the request arrived, so
    every change committed before the request is forgotten whichever read follows; a task
    started meanwhile makes its own (it inherits the context, not the request)."""
    token = _REQUEST_SYNC.set([None, asyncio.current_task()])
    try:
        yield
    finally:
        _REQUEST_SYNC.reset(token)


class ConnectionCache:
    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._entries: dict[str, dict[Any, tuple[float, Any]]] = {TOKENS: {}, AUDIENCES: {}}
        self.max_age = MAX_AGE_SECONDS
        self.max_entries = settings.connection_cache_size  # per kind; then that kind starts afresh
        self._listener: Any = None
        # SQLite: the reader that tells of commits and reads the stamp (None on PostgreSQL
        # and while stopped), and what they said when last asked (-1: ask for the stamp).
        self._reader: FastReader | None = None
        self._seen_commits = -1
        self._seen_stamp: int | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        # Bumped by every forgetting: a lookup that read the database before a change's
        # notification arrived does not store what it read.
        self.generation = 0
        self._next_sync: asyncio.Future[bool] | None = None  # the round trip to begin next
        self._syncing: asyncio.Task[None] | None = None
        self.syncs = 0  # round trips made, for tests and benchmarks

    @property
    def active(self) -> bool:
        return self._listener is not None or self._reader is not None

    def get(self, kind: str, key: Any) -> Any:
        """What was kept under `key`, or None (also while the cache is not in use)."""
        if not self.active:
            return None
        found = self._entries[kind].get(key)
        if found is None or time.monotonic() - found[0] > self.max_age:
            return None
        return found[1]

    def put(self, kind: str, key: Any, value: Any, generation: int) -> None:
        """Keep `value`, read from the database when `self.generation` was `generation`."""
        if not self.active or generation != self.generation:
            return
        entries = self._entries[kind]
        if len(entries) >= self.max_entries:
            entries.clear()
        entries[key] = (time.monotonic(), value)

    async def cached(self, kind: str, key: Hashable, load: Callable[[*Ts], Awaitable[T]], *args: *Ts) -> T:
        """What a request reads: the value kept under `key` once every change committed
        before this call is forgotten (`synced`), else `load(*args)`'s, kept for the next
        requests unless a change was forgotten while it loaded. (`load` and its arguments
        apart: a hit then builds no closure.)"""
        if self.get(kind, key) is not None and await self.synced():
            found: T | None = self.get(kind, key)
            if found is not None:
                return found
        generation = self.generation
        value = await load(*args)
        self.put(kind, key, value, generation)
        return value

    async def synced(self) -> bool:
        """Whether the cache may be read for the request under way: True once everything
        committed before this call (within `one_sync_per_request`: before the request) has
        been forgotten (one round trip on the LISTEN connection, shared with the requests
        that arrive meanwhile; on SQLite, one question to the reader's connection instead),
        False while the cache is not in use."""
        listener = self._listener
        if listener is None:
            return self._reader is not None and await self._synced_sqlite(self._reader)
        request = _REQUEST_SYNC.get()
        if request is not None and request[1] is not asyncio.current_task():
            request = None  # a task started by the request: on its own
        if request is not None and request[0] is listener:
            return True  # made for this request, on the connection still listening
        if self._next_sync is None:
            self._next_sync = asyncio.get_running_loop().create_future()
            if self._syncing is None:
                self._syncing = asyncio.create_task(self._sync_all(), name="comptoir-connection-cache-sync")
        # Shielded: a cancelled request does not cancel the round trip others wait for.
        done = await asyncio.shield(self._next_sync)
        if done and request is not None:
            request[0] = listener
        return done

    async def _sync_all(self) -> None:
        """Round trips until nobody waits; each one begins after all its waiters arrived."""
        waiting: asyncio.Future[bool] | None = None
        try:
            while self._next_sync is not None:
                waiting, self._next_sync = self._next_sync, None
                listener = self._listener
                done = False
                if listener is not None:
                    try:
                        # Any query does: the backend sends what it holds before its answer,
                        # and asyncpg schedules the listener callbacks before the waiters.
                        await listener.execute("SELECT 1", timeout=SYNC_TIMEOUT_SECONDS)
                        done = listener is self._listener  # still the one listening
                        self.syncs += 1
                    except Exception as exc:  # lost or stuck: listen anew, read the database meanwhile
                        log.warning("connection_cache_sync_failed", error=type(exc).__name__)
                        if listener is self._listener:
                            self._listener = None
                            self.forget()
                            listener.terminate()
                waiting.set_result(done)
        finally:
            self._syncing = None
            for left in (waiting, self._next_sync):  # stopped while some waited: they read the database
                if left is not None and not left.done():
                    left.set_result(False)
            self._next_sync = None

    async def _synced_sqlite(self, reader: FastReader) -> bool:
        """Everything forgotten if the stamp moved since SQLite last counted a commit. A commit
        before this call is counted by it, and the stamp is read after it; an entry read after
        the call is dropped at the next one if a change came in between."""
        try:
            commits = reader.commits_seen()
            if commits != self._seen_commits:
                row = await reader.one(STAMP)
                stamp = None if row is None else row["stamp"]
                self._seen_commits = commits
                if stamp != self._seen_stamp:
                    self._seen_stamp = stamp
                    self.forget()
        except (sqlite3.Error, DependencyUnavailable):  # unreadable now: the lookup says why
            self._seen_commits = -1  # ask again next time
            self.forget()
            return False
        return True

    def forget(self) -> None:
        for entries in self._entries.values():
            entries.clear()
        self.generation += 1

    # --- the LISTEN connection ------------------------------------------------------------

    async def start(self, reader: FastReader) -> None:
        """Begin listening: on PostgreSQL the cache is used once connected; on SQLite at once,
        `reader`'s connection telling of commits (an in-memory database has none to ask)."""
        if self._settings.is_sqlite:
            if self._settings.sqlite_path is not None and self._reader is None:
                self._seen_commits = -1
                self._reader = reader
                await self._synced_sqlite(reader)  # the stamp every entry is kept against
            return
        if self._task is not None:
            return
        self._task = asyncio.create_task(self._keep_listening(), name="comptoir-connection-cache")

    async def _keep_listening(self) -> None:
        import asyncpg

        from comptoir.db.failures import asyncpg_options, connect

        while not self._stopping:
            if self._listener is None:
                try:
                    connection = await connect(asyncpg_options(self._settings, statement_timeout=False))
                    await connection.add_listener(CHANNEL, self._on_change)
                    connection.add_termination_listener(self._on_lost)
                except DependencyUnavailable:
                    pass  # the outage is logged once (docs/operations.md "When a dependency fails")
                except (OSError, asyncpg.PostgresError) as exc:
                    log.warning("connection_cache_listen_failed", error=type(exc).__name__)
                else:
                    self.forget()  # anything may have changed while nobody listened
                    self._listener = connection
            await asyncio.sleep(RETRY_SECONDS)

    def _on_change(self, *_args: Any) -> None:
        self.forget()

    def _on_lost(self, _connection: Any) -> None:
        self._listener = None
        self.forget()
        if not self._stopping:
            log.warning("connection_cache_listen_lost")

    async def stop(self) -> None:
        self._stopping = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._syncing is not None:
            self._syncing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._syncing
        listener, self._listener = self._listener, None
        self._reader = None
        self.forget()
        if listener is not None:
            with contextlib.suppress(Exception):
                await listener.close()
