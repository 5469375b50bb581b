"""Timed jobs, run by a small loop inside `serve` and inside `comptoir worker`. Each job is
idempotent and safe to run from several processes at once."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

import structlog
from sqlalchemy import CursorResult, Result, delete, exists, select
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.callbacks import repository as callbacks
from comptoir.catalogs.images import remove_unused
from comptoir.catalogs.inventory import expire_entries
from comptoir.db.engine import Database
from comptoir.http.idempotency import purge_expired
from comptoir.http.request_log import purge_request_logs
from comptoir.kit import clock
from comptoir.locations.service import revert_due_acceptances
from comptoir.models import AuthorizationCode, BrowserSession, Change, Event

log = structlog.get_logger("comptoir.jobs.timed")

RETENTION = timedelta(days=30)  # delivery log, and changes no event needs any more
PURGE_BATCH = 5000

Purge = Callable[[AsyncSession, int], Awaitable[int]]  # deletes up to n rows, says how many


async def _in_batches(db: Database, purge: Purge) -> int:
    """Run `purge` in transactions of PURGE_BATCH rows until less than a batch is left, so a
    long backlog never holds a long lock."""
    purged = 0
    while True:
        async with db.transaction() as session:
            count = await purge(session, PURGE_BATCH)
        purged += count
        if count < PURGE_BATCH:
            return purged


def _rowcount(result: Result[Any]) -> int:
    return cast("CursorResult[Any]", result).rowcount


# The three statements below belong to their features' repositories (changes: events/;
# authorisation codes: oauth2/; browser sessions: web/session.py); they wait here until those exist.


async def _purge_changes(session: AsyncSession, before: datetime, limit: int) -> int:
    """Changes recorded before `before` that no pending event refers to."""
    old = (Change.created_at < before) & ~exists().where(Event.change_id == Change.id)
    batch = select(Change.id).where(old).limit(limit).scalar_subquery()
    return _rowcount(await session.execute(delete(Change).where(Change.id.in_(batch))))


async def _purge_codes(session: AsyncSession, limit: int) -> int:
    """Authorisation codes a day past their expiry."""
    old = AuthorizationCode.expires_at < clock.now() - timedelta(days=1)
    batch = select(AuthorizationCode.id).where(old).limit(limit).scalar_subquery()
    return _rowcount(await session.execute(delete(AuthorizationCode).where(AuthorizationCode.id.in_(batch))))


async def _purge_browser_sessions(session: AsyncSession) -> int:
    """Browser sessions past their 14 days."""
    return _rowcount(await session.execute(delete(BrowserSession).where(BrowserSession.expires_at < clock.now())))


async def purge_history(db: Database) -> int:
    """Delete the events of revoked connections (nobody will fetch them), delivery attempts
    older than 30 days, changes older than 30 days that no pending event refers to, and
    expired Idempotency-Key answers, and authorisation codes a day past their expiry.
    Batched, so a long backlog never holds a long lock."""
    cutoff = clock.now() - RETENTION
    purged = await _in_batches(db, callbacks.purge_events_of_revoked)
    purged += await _in_batches(db, lambda session, limit: callbacks.purge_attempts(session, cutoff, limit))
    purged += await _in_batches(db, lambda session, limit: _purge_changes(session, cutoff, limit))
    purged += await _in_batches(db, _purge_codes)
    async with db.transaction() as session:  # Idempotency-Key answers past their 24 hours
        purged += await purge_expired(session)
    async with db.transaction() as session:
        purged += await _purge_browser_sessions(session)
    return purged


@dataclass(frozen=True)
class TimedJob:
    name: str
    run: Callable[[Database], Awaitable[int]]
    every: float  # seconds


TIMED_JOBS = (
    TimedJob("order_acceptance_resumed", revert_due_acceptances, 1.0),  # docs/api/locations-accounts.md "Resuming"
    TimedJob("inventory_expired", expire_entries, 1.0),  # docs/api/inventory.md "Expiry"
    TimedJob("history_purged", purge_history, 3600.0),
    TimedJob("unused_images_removed", remove_unused, 3600.0),  # docs/api/catalogs.md "Images": 30 days unused
    TimedJob("request_logs_purged", purge_request_logs, 3600.0),  # docs/operations.md "Request log": kept 7 days
)


async def run_once(db: Database, jobs: tuple[TimedJob, ...] = TIMED_JOBS) -> dict[str, int]:
    done = {}
    for job in jobs:
        try:
            done[job.name] = await job.run(db)
        except Exception:
            log.exception("timed_job_failed", job=job.name)
            done[job.name] = 0
        if done[job.name]:
            log.info(job.name, count=done[job.name])
    return done


class TimedJobs:
    def __init__(self, db: Database, interval: float) -> None:
        self.db = db
        self.interval = interval
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="comptoir-timed-jobs")

    async def _loop(self) -> None:
        last: dict[str, float] = {}
        while True:
            now = time.monotonic()
            due = tuple(job for job in TIMED_JOBS if now - last.get(job.name, -job.every) >= job.every)
            for job in due:
                last[job.name] = now
            await run_once(self.db, due)
            await asyncio.sleep(self.interval)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
