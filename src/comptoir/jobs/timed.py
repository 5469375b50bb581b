"""Timed jobs, run by a small loop inside `serve` and inside `comptoir worker`. Each job is
idempotent and safe to run from several processes at once."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta

import structlog
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.callbacks import repository as callbacks
from comptoir.catalogs.images import remove_unused, sweep_files
from comptoir.catalogs.inventory import expire_entries
from comptoir.db.engine import Database
from comptoir.events import repository as outbox
from comptoir.http.idempotency import purge_expired
from comptoir.http.request_log import purge_request_logs
from comptoir.kit import clock
from comptoir.locations.service import revert_due_acceptances
from comptoir.oauth2 import repository as oauth2
from comptoir.users import repository as users

log = structlog.get_logger("comptoir.jobs.timed")

RETENTION = timedelta(days=30)  # delivery log, events done, and changes no event needs any more
CODE_RETENTION = timedelta(days=1)  # authorisation codes, past their expiry
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


async def purge_history(db: Database) -> int:
    """Delete the events of revoked connections (nobody will fetch them), events done
    (delivered or given up) more than 30 days ago, delivery attempts older than 30 days,
    changes older than 30 days that no event refers to, authorisation codes a day past their
    expiry, expired Idempotency-Key answers and expired browser sessions. Batched, so a long
    backlog never holds a long lock. The statements are the repositories'; this job only
    schedules and batches them."""
    cutoff = clock.now() - RETENTION
    purged = await _in_batches(db, callbacks.purge_events_of_revoked)
    purged += await _in_batches(db, lambda session, limit: callbacks.purge_done_events(session, cutoff, limit))
    purged += await _in_batches(db, lambda session, limit: callbacks.purge_attempts(session, cutoff, limit))
    purged += await _in_batches(db, lambda session, limit: outbox.purge_changes(session, cutoff, limit))
    codes_cutoff = clock.now() - CODE_RETENTION
    purged += await _in_batches(db, lambda session, limit: oauth2.purge_codes(session, codes_cutoff, limit))
    async with db.transaction() as session:  # Idempotency-Key answers past their 24 hours
        purged += await purge_expired(session)
    async with db.transaction() as session:  # browser sessions past their 14 days
        purged += await users.purge_browser_sessions(session, clock.now())
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
    TimedJob("image_files_swept", sweep_files, 3600.0),  # docs/operations.md "Images": files no row names
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
