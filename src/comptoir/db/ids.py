"""Integer ids handed out outside any table (order element ids, catalog item ids, and the
ids of orders created by a single statement).

PostgreSQL: sequences, drawn in blocks (`IdBlocks`): a process takes BLOCK ids in one
statement and hands them out until they run out, so most writes need no round trip for
their ids. Ids are unique, never reused, ascending within one allocation; across processes
they interleave, as they would for concurrent transactions anyway, and a process that stops
leaves the rest of its block unused (sequences have gaps: ids are names, not counts).
SQLite: one counter row, advanced by an UPDATE ... RETURNING inside the write transaction
(writers are serialised by BEGIN IMMEDIATE).
"""

from __future__ import annotations

import weakref
from collections import deque
from collections.abc import Awaitable, Callable

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

BLOCK = 200


class IdBlocks:
    """What is left of the blocks this process drew, per sequence."""

    def __init__(self) -> None:
        self._spare: dict[str, deque[int]] = {}

    async def take(self, sequence: str, count: int, fetch: Callable[[int], Awaitable[list[int]]]) -> list[int]:
        spare = self._spare.setdefault(sequence, deque())
        while len(spare) < count:  # re-checked: another task may take ids while we fetch
            spare.extend(sorted(await fetch(max(count, BLOCK))))
        return sorted(spare.popleft() for _ in range(count))


_blocks: weakref.WeakKeyDictionary[object, IdBlocks] = weakref.WeakKeyDictionary()


async def allocate(session: AsyncSession, sequence: str, count: int) -> list[int]:
    """`count` new ids of `sequence`, ascending."""
    if count <= 0:
        return []
    if session.bind.dialect.name == "postgresql":
        blocks = _blocks.setdefault(session.bind, IdBlocks())  # one per engine, i.e. per database

        async def fetch(n: int) -> list[int]:
            rows = await session.execute(
                text("SELECT nextval(CAST(:sequence AS regclass)) FROM generate_series(1, :n)"),
                {"n": n, "sequence": sequence},
            )
            return [row[0] for row in rows]

        return await blocks.take(sequence, count, fetch)
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
