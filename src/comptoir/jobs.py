"""The loop for timed jobs that runs inside `serve` (and, from the Callbacks issue on, in
`comptoir worker`): each job is idempotent and safe to run from several processes at once."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

import structlog

from comptoir.db import Database
from comptoir.locations.service import revert_due_acceptances

log = structlog.get_logger("comptoir.jobs")

Job = Callable[[Database], Awaitable[int]]
TIMED_JOBS: tuple[tuple[str, Job], ...] = (("order_acceptance_resumed", revert_due_acceptances),)


async def run_once(db: Database) -> dict[str, int]:
    done = {}
    for name, job in TIMED_JOBS:
        try:
            done[name] = await job(db)
        except Exception:
            log.exception("timed_job_failed", job=name)
            done[name] = 0
        if done[name]:
            log.info(name, count=done[name])
    return done


class TimedJobs:
    def __init__(self, db: Database, interval: float) -> None:
        self.db = db
        self.interval = interval
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="comptoir-timed-jobs")

    async def _loop(self) -> None:
        while True:
            await run_once(self.db)
            await asyncio.sleep(self.interval)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
