"""Every statement of the stored answers of `Idempotency-Key` requests: the advisory lock of a
(connection, key) on PostgreSQL, the answer's row, and its purge. The rules (lifetime,
fingerprint, what is replayed) are `idempotency.service`'s."""

from __future__ import annotations

import hashlib
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.db.engine import dialect_name, rowcount
from comptoir.models import IdempotencyKey


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
