"""docs/operations.md "Retention": a `comptoir worker` purges with the retention its settings
give (here half a day), on both databases."""

from __future__ import annotations

import asyncio
import os
import signal
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from comptoir.config import Settings
from comptoir.db.engine import Database
from comptoir.models import DeliveryAttempt, RequestLog
from tests.e2e.conftest import COMPTOIR, LOOPBACK
from tests.factories import World
from tests.retention_rows import add_delivery_attempts, add_request_logs, subscribed_connection
from tests.waiting import PATIENCE, eventually

pytestmark = pytest.mark.e2e


async def test_the_worker_purges_with_the_retention_of_its_settings(
    settings: Settings, database: Database, tmp_path: Path
) -> None:
    world = World(database, settings.server_key())
    connection_id, _ = await subscribed_connection(world)
    ages = {"old": timedelta(hours=13), "new": timedelta(hours=11)}
    await add_request_logs(database, connection_id, ages)
    await add_delivery_attempts(database, connection_id, ages)
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")} | LOOPBACK
    env |= {
        "COMPTOIR_DATABASE_URL": settings.database_url,
        "COMPTOIR_SECRET_KEY": settings.secret_key or "",
        "COMPTOIR_REQUEST_LOG_RETENTION_DAYS": "0.5",
        "COMPTOIR_DELIVERY_LOG_RETENTION_DAYS": "0.5",
    }
    process = await asyncio.create_subprocess_exec(
        COMPTOIR, "worker", cwd=tmp_path, env=env, stderr=asyncio.subprocess.DEVNULL
    )
    try:
        lines: list[str] = []
        urls: list[str] = []

        async def purged() -> bool:  # the purge runs as the worker starts
            nonlocal lines, urls
            async with database.transaction(write=False) as session:
                lines = list(await session.scalars(select(RequestLog.request_id)))
                urls = list(await session.scalars(select(DeliveryAttempt.url)))
            return lines == ["new"] and urls == ["https://x.example/new"]

        await eventually(purged, "the purge", within=2 * PATIENCE)  # a process starting, then its purge
        assert (lines, urls) == (["new"], ["https://x.example/new"])
    finally:
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), PATIENCE) == 0
