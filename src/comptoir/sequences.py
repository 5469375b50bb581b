"""Integer ids handed out in blocks, outside any table (order element ids).

PostgreSQL: one `nextval` per id in one statement; sequences take no lock that concurrent
transactions wait on. SQLite: one counter row, advanced by an UPDATE ... RETURNING inside
the write transaction (writers are serialised by BEGIN IMMEDIATE).
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession


async def allocate(session: AsyncSession, sequence: str, count: int) -> list[int]:
    """`count` new ids of `sequence`, ascending."""
    if count <= 0:
        return []
    if session.bind.dialect.name == "postgresql":
        rows = await session.execute(
            text("SELECT nextval(CAST(:sequence AS regclass)) FROM generate_series(1, :n)"),
            {"n": count, "sequence": sequence},
        )
        return sorted(row[0] for row in rows)
    last = await session.scalar(
        text("UPDATE id_counters SET value = value + :n WHERE name = :name RETURNING value"),
        {"n": count, "name": sequence},
    )
    if last is None:
        await session.execute(
            text("INSERT INTO id_counters (name, value) VALUES (:name, :n)"), {"n": count, "name": sequence}
        )
        last = count
    return list(range(last - count + 1, last + 1))
