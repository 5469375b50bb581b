"""Connection lookups remembered per process, on PostgreSQL (issue 5: "cached connection
lookups").

Every API request turns its token into a connection context (`comptoir.auth.tokens`): one
round trip to PostgreSQL, a third of an order GET's work. This cache keeps the contexts of
valid tokens in the process, and forgets all of them whenever the database says that a
connection, an OAuth client, an account or a location changed: triggers on those tables
(migration 0015) send `NOTIFY comptoir_auth` in the changing transaction, which PostgreSQL
delivers at its commit to every listening process, before the changing request's response
leaves. So a revoked, blocked or suspended token is refused by every process from the next
request on, as without a cache.

The cache is used only while its LISTEN connection is up: until it is connected, and from
the moment it is lost until it is back (retried every few seconds), every lookup reads the
database. SQLite needs no cache: its lookup is an in-process read of a few microseconds.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import structlog

from comptoir.auth.context import Ctx
from comptoir.config import Settings

CHANNEL = "comptoir_auth"
MAX_ENTRIES = 10_000  # then the cache starts afresh
RETRY_SECONDS = 5.0

log = structlog.get_logger("comptoir.auth")


class TokenCache:
    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._entries: dict[str, Ctx] = {}
        self._listener: Any = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        # Bumped by every forgetting: a lookup that read the database before a change's
        # notification arrived does not store what it read.
        self.generation = 0

    @property
    def active(self) -> bool:
        return self._listener is not None

    def get(self, token_hash: str) -> Ctx | None:
        return self._entries.get(token_hash) if self._listener is not None else None

    def put(self, token_hash: str, ctx: Ctx, generation: int) -> None:
        if self._listener is None or generation != self.generation:
            return
        if len(self._entries) >= MAX_ENTRIES:
            self._entries.clear()
        self._entries[token_hash] = ctx

    def forget(self) -> None:
        self._entries.clear()
        self.generation += 1

    # --- the LISTEN connection ------------------------------------------------------------

    def start(self) -> None:
        """Begin listening (PostgreSQL only); the cache is used once connected."""
        if self._settings.is_sqlite or self._task is not None:
            return
        self._task = asyncio.create_task(self._keep_listening(), name="comptoir-token-cache")

    async def _keep_listening(self) -> None:
        import asyncpg

        from comptoir.fastdb import asyncpg_options

        while not self._stopping:
            if self._listener is None:
                try:
                    connection = await asyncpg.connect(**asyncpg_options(self._settings))
                    await connection.add_listener(CHANNEL, self._on_change)
                    connection.add_termination_listener(self._on_lost)
                except (OSError, asyncpg.PostgresError) as exc:
                    log.warning("token_cache_listen_failed", error=type(exc).__name__)
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
            log.warning("token_cache_listen_lost")

    async def stop(self) -> None:
        self._stopping = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        listener, self._listener = self._listener, None
        self.forget()
        if listener is not None:
            with contextlib.suppress(Exception):
                await listener.close()
