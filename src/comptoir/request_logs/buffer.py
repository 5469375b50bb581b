"""The request log (docs/operations.md "Request log"): every /v1 request made with a
connection's token, with the first 10 KB of each body and its secrets masked, kept 7 days by default
(COMPTOIR_REQUEST_LOG_RETENTION_DAYS, purged by `jobs/timed.py`) for the back office.

The middleware only appends a small record to an in-process buffer; a background task
writes the buffer every second in one multi-row INSERT, and masking happens there, off the
request's path. So logging costs a request almost nothing (benchmarks/request_log.py), at
the price of losing at most a second of log lines if the process dies: a log, unlike an
order or an event, may lose its last second.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import structlog

from comptoir.db.engine import Database
from comptoir.errors import DependencyUnavailable
from comptoir.kit.safetext import storable
from comptoir.request_logs import repository

log = structlog.get_logger("comptoir.request_logs.buffer")

MAX_BODY = 10 * 1024  # bytes of each body kept
MAX_PATH = 4096  # characters of a path and query kept
FLUSH_EVERY = 1.0  # seconds
MAX_PENDING = 20_000  # beyond it (the database is away), the oldest records are dropped

# A member or query parameter whose name contains one of these words (in any case) is a secret.
SECRET_WORDS = ("secret", "password", "passwd", "token", "authorization", "api_key", "api-key", "apikey", "verifier")
_MASKED_NAME = rf"[^\"\\=&]*(?:{'|'.join(map(re.escape, SECRET_WORDS))})[^\"\\=&]*"
_SECRET_JSON = re.compile(rf'("{_MASKED_NAME}"\s*:\s*)"(?:[^"\\]|\\.)*(?:"|\\?$)', re.IGNORECASE)
_SECRET_QUERY = re.compile(rf"([?&]{_MASKED_NAME}=)[^&]*", re.IGNORECASE)
# The first test of `mask`, searches fewer than the words: a stem, then (found) its words.
# Every word holds one of the stems (tests/api/web/test_back_office_connections.py).
_STEMS = ("secret", "passw", "token", "authorization", "api", "verifier")
_WORDS_BY_STEM = tuple((stem, tuple(word for word in SECRET_WORDS if stem in word)) for stem in _STEMS)
_TEXT_TYPES = ("application/json", "text/", "application/x-www-form-urlencoded", "application/problem+json")


def mask(text: str) -> str:
    """Replace the value of every JSON string member whose name speaks of a secret (also
    when the 10 KB cut falls inside it) with "***". Most bodies name no secret: a plain
    search for the words first spares them the regex (0.9 ms a body down to a few µs), by
    their stems (six searches of a body that holds none, not nine)."""
    lowered = text.lower()
    if not any(stem in lowered and any(word in lowered for word in words) for stem, words in _WORDS_BY_STEM):
        return text
    return _SECRET_JSON.sub(r'\1"***"', text)


def mask_query(path: str) -> str:
    if "?" not in path and "&" not in path:  # nothing the expression could match: most paths
        return path
    return _SECRET_QUERY.sub(r"\1***", path)


def body_text(kept: bytes, size: int, content_type: str) -> str:
    """What the log shows of a body: its first 10 KB as text, secrets masked; a binary body
    (an image) is described, not kept."""
    if not size:
        return ""
    if content_type and not content_type.lower().startswith(_TEXT_TYPES):
        return storable(f"<{size} bytes of {content_type.split(';')[0].strip()[:100]}>")
    return storable(mask(kept[:MAX_BODY].decode("utf-8", errors="replace")))


@dataclass(slots=True)
class Record:
    connection_id: int
    at: datetime
    request_id: str
    method: str
    path: str
    status: int
    duration_ms: int
    request_body: bytes
    request_bytes: int
    request_type: str
    response_body: bytes
    response_bytes: int
    response_type: str

    def row(self) -> dict[str, Any]:
        return {
            "connection_id": self.connection_id,
            "at": self.at,
            # what a client sent, made storable: a NUL (`%00` in a path) would fail the batch
            "request_id": storable(self.request_id, 128),
            "method": storable(self.method, 10),
            "path": storable(mask_query(self.path), MAX_PATH),
            "status": self.status,
            "duration_ms": self.duration_ms,
            "request_body": body_text(self.request_body, self.request_bytes, self.request_type),
            "request_bytes": self.request_bytes,
            "response_body": body_text(self.response_body, self.response_bytes, self.response_type),
            "response_bytes": self.response_bytes,
        }


class RequestLogBuffer:
    """What this process has not written yet: the records (when `enabled`, which is
    COMPTOIR_REQUEST_LOGS) and each connection's last use (always: the back office's
    "Last used", without a write per request)."""

    def __init__(self, db: Database, *, enabled: bool = True) -> None:
        self.db = db
        self.enabled = enabled
        self._pending: list[Record] = []
        self._used: dict[int, datetime] = {}
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None

    def used(self, connection_id: int, at: datetime) -> None:
        self._used[connection_id] = at

    def add(self, record: Record) -> None:
        self._pending.append(record)
        if len(self._pending) > MAX_PENDING:
            del self._pending[: len(self._pending) - MAX_PENDING]

    async def flush(self) -> int:
        """Write what is pending now; returns how many records were written."""
        async with self._lock:
            records, self._pending = self._pending, []
            used, self._used = self._used, {}
            try:
                if used:
                    async with self.db.transaction() as session:
                        await repository.touch_connections(session, used)
                if not records:
                    return 0
                rows = await _rows(records)
                try:
                    async with self.db.transaction() as session:
                        await repository.write_logs(session, rows)
                except DependencyUnavailable:
                    raise
                except Exception:  # a connection went (its client was deleted) meanwhile, or a line is bad
                    return await self._insert_each(rows)
                return len(rows)
            except DependencyUnavailable:
                # kept for the next flush, once the database is back (MAX_PENDING at most)
                for connection_id, at in used.items():
                    self._used.setdefault(connection_id, at)
                for record in reversed(records):
                    self._pending.insert(0, record)
                del self._pending[: max(0, len(self._pending) - MAX_PENDING)]
                raise

    async def _insert_each(self, rows: list[dict[str, Any]]) -> int:
        """The batch failed: write its lines of live connections, in one INSERT, or else one
        by one, so one line that cannot be written never loses the others."""
        async with self.db.transaction(write=False) as session:
            alive = await repository.existing_connections(session, {row["connection_id"] for row in rows})
        rows = [row for row in rows if row["connection_id"] in alive]
        if not rows:
            return 0
        try:
            async with self.db.transaction() as session:
                await repository.insert_logs(session, rows)
            return len(rows)
        except Exception:
            log.warning("request_log_batch_failed", lines=len(rows))
        written = 0
        for row in rows:
            try:
                async with self.db.transaction() as session:
                    await repository.insert_logs(session, [row])
            except Exception:
                log.exception("request_log_line_failed", connection_id=row["connection_id"])
            else:
                written += 1
        return written

    def start(self) -> None:
        """Write every FLUSH_EVERY seconds, also with the log off: "Last used" stays current
        within a second or two either way (docs/operations.md "Request log")."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="comptoir-request-log")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self._flush_logged()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(FLUSH_EVERY)
            await self._flush_logged()

    async def _flush_logged(self) -> None:
        try:
            await self.flush()
        except DependencyUnavailable:
            pass  # logged once per outage (docs/operations.md "When a dependency fails")
        except Exception:
            log.exception("request_log_flush_failed")


# Records made storable between two turns of the event loop: a second's worth of requests
# (thousands, each body masked) is made in steps of about 0.4 ms, so that a flush never holds
# the requests that arrive meanwhile for more (their p99: docs/performance.md "The request
# log's flush").
ROWS_PER_STEP = 16


async def _rows(records: list[Record]) -> list[dict[str, Any]]:
    rows = []
    for i, record in enumerate(records):
        if i and not i % ROWS_PER_STEP:
            await asyncio.sleep(0)
        try:
            rows.append(record.row())
        except Exception:  # one odd record never loses the others
            log.exception("request_log_line_failed", connection_id=record.connection_id)
    return rows
