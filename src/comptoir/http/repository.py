"""Every statement of what HTTP keeps in the database: the stored answers of
`Idempotency-Key` requests (`comptoir.http.idempotency`) and the request log
(`comptoir.http.request_log`). The rules (lifetimes, fingerprints, masking, batching) are
in those modules; this one only reads and writes their tables, choosing the statement by
database where one is faster."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import bindparam, delete, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.db.engine import dialect_name, rowcount
from comptoir.models import Connection, IdempotencyKey, RequestLog

if TYPE_CHECKING:
    from sqlalchemy import Table


# --- Idempotency-Key answers --------------------------------------------------------------


def _lock_id(connection_id: int, key: str) -> int:
    digest = hashlib.blake2b(f"{connection_id}:{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


async def try_lock_key(session: AsyncSession, connection_id: int, key: str) -> bool:
    """On PostgreSQL, a transaction-scoped advisory lock on (connection, key), taken without
    waiting: False when another transaction holds it. SQLite serialises writers: always True."""
    if dialect_name(session) != "postgresql":
        return True
    return bool(await session.scalar(select(func.pg_try_advisory_xact_lock(_lock_id(connection_id, key)))))


async def find_key(session: AsyncSession, connection_id: int, key: str) -> IdempotencyKey | None:
    """The stored answer of (connection, key), read afresh from the database."""
    return await session.get(IdempotencyKey, (connection_id, key), populate_existing=True)


async def delete_key(session: AsyncSession, connection_id: int, key: str) -> None:
    await session.execute(
        delete(IdempotencyKey).where(IdempotencyKey.connection_id == connection_id, IdempotencyKey.key == key)
    )


async def add_key(session: AsyncSession, row: IdempotencyKey) -> None:
    """A new stored answer, flushed (in the creation's own transaction)."""
    session.add(row)
    await session.flush()


async def purge_keys(session: AsyncSession, created_before: datetime) -> int:
    """Stored answers created at `created_before` or earlier; how many went."""
    return rowcount(await session.execute(delete(IdempotencyKey).where(IdempotencyKey.created_at <= created_before)))


# --- the request log ----------------------------------------------------------------------


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


async def write_logs(session: AsyncSession, rows: list[dict[str, Any]]) -> None:
    """Log lines written by COPY on PostgreSQL (a fraction of an INSERT's cost for a second's
    worth of requests), by one multi-row INSERT elsewhere."""
    if dialect_name(session) == "postgresql":
        connection = await (await session.connection()).get_raw_connection()
        await connection.driver_connection.copy_records_to_table(  # type: ignore[union-attr]
            RequestLog.__tablename__, records=[tuple(row[c] for c in COLUMNS) for row in rows], columns=COLUMNS
        )
        return
    await insert_logs(session, rows)


async def insert_logs(session: AsyncSession, rows: list[dict[str, Any]]) -> None:
    """Log lines written by one multi-row INSERT, on either database."""
    await session.execute(insert(RequestLog), rows)


async def purge_logs(session: AsyncSession, before: datetime, limit: int) -> int:
    """Up to `limit` log lines from before `before`; how many went."""
    batch = select(RequestLog.id).where(RequestLog.at < before).limit(limit).scalar_subquery()
    return rowcount(await session.execute(delete(RequestLog).where(RequestLog.id.in_(batch))))
