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
from sqlalchemy import delete, exists, select

from comptoir.catalogs.images import remove_unused
from comptoir.catalogs.inventory import expire_entries
from comptoir.db.engine import Database
from comptoir.http.idempotency import purge_expired
from comptoir.http.request_log import purge_request_logs
from comptoir.kit import clock
from comptoir.locations.service import revert_due_acceptances
from comptoir.models import AuthorizationCode, BrowserSession, Change, Connection, DeliveryAttempt, Event

log = structlog.get_logger("comptoir.jobs.timed")

RETENTION = timedelta(days=30)  # delivery log, and changes no event needs any more
PURGE_BATCH = 5000


async def purge_history(db: Database) -> int:
    """Delete the events of revoked connections (nobody will fetch them), delivery attempts
    older than 30 days, changes older than 30 days that no pending event refers to, and
    expired Idempotency-Key answers, and authorisation codes a day past their expiry.
    Batched, so a long backlog never holds a long lock."""
    cutoff = clock.now() - RETENTION
    revoked = select(Connection.id).where(Connection.revoked_at.is_not(None))
    purged = 0
    for model, old in (
        (Event, Event.connection_id.in_(revoked)),
        (DeliveryAttempt, DeliveryAttempt.attempted_at < cutoff),
        (Change, (Change.created_at < cutoff) & ~exists().where(Event.change_id == Change.id)),
        (AuthorizationCode, AuthorizationCode.expires_at < clock.now() - timedelta(days=1)),
    ):
        while True:
            async with db.transaction() as session:
                batch = select(model.id).where(old).limit(PURGE_BATCH).scalar_subquery()
                count = (await session.execute(delete(model).where(model.id.in_(batch)))).rowcount
            purged += count
            if count < PURGE_BATCH:
                break
    async with db.transaction() as session:  # Idempotency-Key answers past their 24 hours
        purged += await purge_expired(session)
    async with db.transaction() as session:  # browser sessions past their 14 days
        purged += (
            await session.execute(delete(BrowserSession).where(BrowserSession.expires_at < clock.now()))
        ).rowcount
    return purged


@dataclass(frozen=True)
class TimedJob:
    name: str
    run: Callable[[Database], Awaitable[int]]
    every: float  # seconds


TIMED_JOBS = (
    TimedJob("order_acceptance_resumed", revert_due_acceptances, 1.0),  # decisions.md: within seconds
    TimedJob("inventory_expired", expire_entries, 1.0),  # decisions.md: entries removed on time
    TimedJob("history_purged", purge_history, 3600.0),
    TimedJob("unused_images_removed", remove_unused, 3600.0),  # decisions.md: 30 days after upload
    TimedJob("request_logs_purged", purge_request_logs, 3600.0),  # issue 8: kept 7 days
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
