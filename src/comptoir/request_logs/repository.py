"""Every statement of the request log: its lines (COPY on PostgreSQL, one INSERT elsewhere),
their purge, and each connection's last use, written with them. The rules (masking, batching,
what a line keeps) are `request_logs.buffer`'s."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import bindparam, delete, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.db.engine import dialect_name, rowcount
from comptoir.models import Connection, RequestLog

if TYPE_CHECKING:
    from sqlalchemy import Table


async def touch_connections(session: AsyncSession, used: dict[int, datetime]) -> None:
    """Each connection's `last_used_at` moved forward to its time in `used` (never back), in
    one executemany statement, by connection id (a stable lock order)."""
    table = cast("Table", Connection.__table__)
    await session.execute(
        update(table)
        .where(
            table.c.id == bindparam("cid"),
            or_(table.c.last_used_at.is_(None), table.c.last_used_at < bindparam("at")),
        )
        .values(last_used_at=bindparam("at")),
        [{"cid": cid, "at": at} for cid, at in sorted(used.items())],
    )


async def existing_connections(session: AsyncSession, connection_ids: set[int]) -> set[int]:
    """Which of these connections still exist."""
    return set(await session.scalars(select(Connection.id).where(Connection.id.in_(connection_ids))))


COLUMNS = (
    "connection_id", "at", "request_id", "method", "path", "status", "duration_ms",
    "request_body", "request_bytes", "response_body", "response_bytes",
)  # fmt: skip


# Lines encoded between two turns of the event loop: asyncpg encodes a COPY's lines as they
# come, so a request arriving meanwhile waits for 50 lines at most (about 0.4 ms of 2.5 KB
# bodies), not for the flush (docs/performance.md "The request log's pieces"). Lines per
# COPY: each COPY is one statement, whose turns wait for the requests of a busy process, so
# that a flush of a long backlog stays far within the statement timeout.
LINES_PER_TURN = 50
COPY_STEP = 500


async def write_logs(session: AsyncSession, rows: list[dict[str, Any]]) -> None:
    """Log lines written by COPY on PostgreSQL (a fraction of an INSERT's cost for a second's
    worth of requests), by one multi-row INSERT elsewhere."""
    if dialect_name(session) == "postgresql":
        connection = await (await session.connection()).get_raw_connection()
        for start in range(0, len(rows), COPY_STEP):
            await connection.driver_connection.copy_records_to_table(  # type: ignore[union-attr]
                RequestLog.__tablename__, records=_lines(rows[start : start + COPY_STEP]), columns=COLUMNS
            )
        return
    await insert_logs(session, rows)


async def _lines(rows: list[dict[str, Any]]) -> AsyncIterator[tuple[Any, ...]]:
    for i, row in enumerate(rows):
        if i and not i % LINES_PER_TURN:
            await asyncio.sleep(0)
        yield tuple(row[c] for c in COLUMNS)


async def insert_logs(session: AsyncSession, rows: list[dict[str, Any]]) -> None:
    """Log lines written by one multi-row INSERT, on either database."""
    await session.execute(insert(RequestLog), rows)


async def purge_logs(session: AsyncSession, before: datetime, limit: int) -> int:
    """Up to `limit` log lines from before `before`; how many went."""
    batch = select(RequestLog.id).where(RequestLog.at < before).limit(limit).scalar_subquery()
    return rowcount(await session.execute(delete(RequestLog).where(RequestLog.id.in_(batch))))
