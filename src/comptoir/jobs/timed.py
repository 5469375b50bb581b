"""Timed jobs, run by a small loop inside `serve` and inside `comptoir worker`. Each job is
idempotent and safe to run from several processes at once."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from functools import partial

import structlog
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.callbacks import repository as callbacks
from comptoir.catalogs.images import remove_unused, sweep_files
from comptoir.catalogs.inventory import expire_entries
from comptoir.config import Settings
from comptoir.db.engine import Database
from comptoir.errors import DependencyUnavailable
from comptoir.events import repository as outbox
from comptoir.idempotency.service import purge_expired
from comptoir.kit import clock
from comptoir.locations.service import revert_due_acceptances
from comptoir.oauth2 import repository as oauth2
from comptoir.oauth2 import service as oauth2_rules
from comptoir.request_logs.repository import purge_logs as purge_request_logs
from comptoir.users import repository as users

log = structlog.get_logger("comptoir.jobs.timed")

PURGE_BATCH = 1000  # benchmarks/purge.py: short DELETEs keep the writes' p99 close

Purge = Callable[[AsyncSession, int], Awaitable[int]]  # deletes up to n rows, says how many


@dataclass(frozen=True)
class Retention:
    """How long rows are kept (docs/operations.md "Retention"): COMPTOIR_EVENT_RETENTION_DAYS
    for events done (and the changes no event needs any more), COMPTOIR_DELIVERY_LOG_RETENTION_DAYS
    for delivery attempts, COMPTOIR_REQUEST_LOG_RETENTION_DAYS for request log lines. A row
    goes once it is older than that: one exactly that old is kept until the next run."""

    events: timedelta = timedelta(days=30)
    delivery_log: timedelta = timedelta(days=30)
    request_log: timedelta = timedelta(days=7)
    batch: int = PURGE_BATCH

    @classmethod
    def of(cls, settings: Settings) -> Retention:
        return cls(
            events=settings.retention("event"),
            delivery_log=settings.retention("delivery_log"),
            request_log=settings.retention("request_log"),
        )


async def _in_batches(db: Database, purge: Purge, batch: int = PURGE_BATCH) -> int:
    """Run `purge` in transactions of `batch` rows until less than a batch is left, so a
    long backlog never holds a long lock: each DELETE picks its rows by an index on their time
    and commits at once; after each batch the job waits as long as the batch took, so a purge
    takes at most half of the database's time from the writes beside it (docs/operations.md
    "Retention")."""
    purged = 0
    while True:
        started = time.perf_counter()
        async with db.transaction() as session:
            count = await purge(session, batch)
        purged += count
        if count < batch:
            return purged
        await asyncio.sleep(time.perf_counter() - started)


async def purge_history(db: Database, retention: Retention = Retention()) -> int:
    """Delete the events of revoked connections (nobody will fetch them), events done
    (delivered or given up) longer ago than `retention.events`, delivery attempts older than
    `retention.delivery_log`, changes older than `retention.events` that no event refers to,
    authorisation codes a day past their expiry, expired Idempotency-Key answers and expired
    browser sessions. Batched, so a long backlog never holds a long lock. The statements are
    the repositories'; this job only schedules and batches them."""
    now = clock.now()
    events_cutoff = now - retention.events
    attempts_cutoff = now - retention.delivery_log
    batch = retention.batch
    purged = await _in_batches(db, callbacks.purge_events_of_revoked, batch)
    purged += await _in_batches(
        db, lambda session, limit: callbacks.purge_done_events(session, events_cutoff, limit), batch
    )
    purged += await _in_batches(
        db, lambda session, limit: callbacks.purge_attempts(session, attempts_cutoff, limit), batch
    )
    purged += await _in_batches(db, lambda session, limit: outbox.purge_changes(session, events_cutoff, limit), batch)
    codes_cutoff = now - oauth2_rules.CODE_RETENTION
    purged += await _in_batches(db, lambda session, limit: oauth2.purge_codes(session, codes_cutoff, limit), batch)
    async with db.transaction() as session:  # Idempotency-Key answers past their 24 hours
        purged += await purge_expired(session)
    async with db.transaction() as session:  # browser sessions past their 14 days
        purged += await users.purge_browser_sessions(session, now)
    return purged


async def purge_logs(db: Database, retention: Retention = Retention()) -> int:
    """Request log lines older than `retention.request_log`, in batches."""
    return await _in_batches(
        db,
        lambda session, limit: purge_request_logs(session, clock.now() - retention.request_log, limit),
        retention.batch,
    )


@dataclass(frozen=True)
class TimedJob:
    name: str
    run: Callable[[Database], Awaitable[int]]
    every: float  # seconds


def timed_jobs(retention: Retention = Retention()) -> tuple[TimedJob, ...]:
    """The jobs, with the retention of the settings."""
    return (
        TimedJob("order_acceptance_resumed", revert_due_acceptances, 1.0),  # docs/api/locations-accounts.md "Resuming"
        TimedJob("inventory_expired", expire_entries, 1.0),  # docs/api/inventory.md "Expiry"
        TimedJob("history_purged", partial(purge_history, retention=retention), 3600.0),
        TimedJob("unused_images_removed", remove_unused, 3600.0),  # docs/api/catalogs.md "Images": 30 days unused
        TimedJob("image_files_swept", sweep_files, 3600.0),  # docs/operations.md "Images": files no row names
        TimedJob("request_logs_purged", partial(purge_logs, retention=retention), 3600.0),  # "Request log"
    )


TIMED_JOBS = timed_jobs()


async def run_once(db: Database, jobs: tuple[TimedJob, ...] = TIMED_JOBS) -> dict[str, int]:
    done = {}
    for job in jobs:
        try:
            done[job.name] = await job.run(db)
        except DependencyUnavailable:  # logged once per outage; the job runs again at its next turn
            done[job.name] = 0
        except Exception:
            log.exception("timed_job_failed", job=job.name)
            done[job.name] = 0
        if done[job.name]:
            log.info(job.name, count=done[job.name])
    return done


class TimedJobs:
    def __init__(self, db: Database, interval: float, retention: Retention = Retention()) -> None:
        self.db = db
        self.interval = interval
        self.jobs = timed_jobs(retention)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="comptoir-timed-jobs")

    async def _loop(self) -> None:
        last: dict[str, float] = {}
        while True:
            now = time.monotonic()
            due = tuple(job for job in self.jobs if now - last.get(job.name, -job.every) >= job.every)
            for job in due:
                last[job.name] = now
            await run_once(self.db, due)
            await asyncio.sleep(self.interval)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
