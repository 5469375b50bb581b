"""A task cancelled while its statement runs ends cancelled, on both databases: the database
layer turns only its driver's errors into `DependencyUnavailable` (docs/operations.md "When a
dependency fails"), never a cancellation, which a task being stopped must see to end."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest
from sqlalchemy import text

from comptoir.config import Settings
from comptoir.db.engine import Database
from comptoir.kit import outages


async def _slow_statement(database: Database, settings: Settings) -> None:
    if database.is_sqlite:
        async with database.transaction() as session:  # waits for the write lock held below
            await session.execute(text("SELECT 1"))
    else:
        async with database.transaction(write=False) as session:
            await session.execute(text("SELECT pg_sleep(30)"))


async def test_a_statement_cancelled_midway_ends_its_task_cancelled(database: Database, settings: Settings) -> None:
    holder = None
    if database.is_sqlite:
        assert settings.sqlite_path is not None
        holder = sqlite3.connect(settings.sqlite_path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
    outages.DATABASE.down = False
    try:
        task = asyncio.create_task(_slow_statement(database, settings))
        await asyncio.sleep(0.5)  # the statement is under way (it takes 30 s, or waits for the lock)
        assert not task.done()
        task.cancel()
        if holder is not None:  # SQLite's wait runs in a thread, which ends once the lock is free
            holder.execute("ROLLBACK")
            holder.close()
            holder = None
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 30)
        assert not outages.DATABASE.down  # not an outage
    finally:
        if holder is not None:
            holder.execute("ROLLBACK")
            holder.close()
