"""The one id allocator: integer ids handed out before their rows are written (orders, order
elements, catalog items).

`allocate(source, sequence, count)` takes them from whichever connection the caller writes
through: a session (its transaction) or the direct driver (`db.direct`, PostgreSQL only).

- PostgreSQL: sequences, drawn in blocks: a process takes BLOCK ids in one statement and hands
  them out until they run out, so most writes need no round trip for their ids. One block
  store per database, whichever connection drew the block. Ids are unique, never reused,
  ascending within one allocation; across processes they interleave, as concurrent
  transactions' ids would anyway, and a process that stops leaves the rest of its block
  unused (ids are names, not counts; docs/api/conventions.md "Ids").
- SQLite: inside the write transaction (writers are serialised by BEGIN IMMEDIATE). A table's
  own sequence (`<table>_id_seq`) is that table's AUTOINCREMENT counter, advanced in place,
  so ids taken here and ids the table gives itself never meet; any other sequence is a row of
  `id_counters`.

`next_key_is(session, model, key)` is the other way round: a row given its key (a sandbox's
seed file, docs/sandbox.md "Ids, tokens and secrets"), after which the table's own sequence
hands out only keys above it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Protocol

from sqlalchemy import event, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from comptoir.db.engine import dialect_name


class SequenceReader(Protocol):
    """What `allocate` needs of a direct reader (`db.direct.FastReader`, which imports this
    module's statement, so it is named here by what it does)."""

    database_url: str

    async def sequence_values(self, sequence: str, count: int) -> list[int]: ...


BLOCK = 200
TABLE_SEQUENCE = "_id_seq"


class IdBlocks:
    """What is left of the blocks this process drew from one database, per sequence."""

    def __init__(self) -> None:
        self._spare: dict[str, deque[int]] = {}

    async def take(self, sequence: str, count: int, fetch: Callable[[int], Awaitable[list[int]]]) -> list[int]:
        spare = self._spare.setdefault(sequence, deque())
        while len(spare) < count:  # re-checked: another task may take ids while we fetch
            spare.extend(sorted(await fetch(max(count, BLOCK))))
        return sorted(spare.popleft() for _ in range(count))

    def forget(self) -> None:
        """Drop the ids drawn and not used: the database's sequences were set back (a sandbox
        reset, docs/sandbox.md "Reset") and will hand them out again."""
        self._spare.clear()


_blocks: dict[tuple[str | None, int | None, str | None], IdBlocks] = {}
_by_url: dict[str, IdBlocks] = {}  # the same stores by the URL as written (no parse per call)


def blocks_of(database_url: str) -> IdBlocks:
    """The block store of one PostgreSQL database (by server and name, whatever the driver)."""
    found = _by_url.get(database_url)
    if found is None:
        url = make_url(database_url)
        found = _by_url[database_url] = _blocks.setdefault((url.host, url.port, url.database), IdBlocks())
    return found


async def allocate(source: AsyncSession | SequenceReader, sequence: str, count: int) -> list[int]:
    """`count` new ids of `sequence`, ascending."""
    if count <= 0:
        return []
    if isinstance(source, AsyncSession):
        if dialect_name(source) == "postgresql":
            session = source

            async def fetch(n: int) -> list[int]:
                return list((await session.execute(NEXT_IDS, {"n": n, "sequence": sequence})).scalar_one())

            bind = source.bind
            assert bind is not None  # a PostgreSQL session (`dialect_name`)
            url = bind.engine.url if isinstance(bind, AsyncConnection) else bind.url
            return await blocks_of(url.render_as_string(hide_password=False)).take(sequence, count, fetch)
        return await _sqlite_ids(source, sequence, count)
    return await blocks_of(source.database_url).take(sequence, count, lambda n: source.sequence_values(sequence, n))


# One row holding them all: a catalog's 30,000 ids as rows cost 20 ms of row handling
# (benchmarks/catalog.py), as one array a millisecond.
_NEXT = "SELECT array(SELECT nextval(CAST({sequence} AS regclass)) FROM generate_series(1, {n}))"
NEXT_IDS = text(_NEXT.format(sequence=":sequence", n=":n"))
NEXT_IDS_DIRECT = _NEXT.format(sequence="$1", n="$2")  # the same, on asyncpg (`FastReader.sequence_values`)


_is_table_sequence: dict[str, bool] = {}


async def _table_sequence(session: AsyncSession, sequence: str) -> bool:
    """Whether `sequence` names a table's own sequence (`<table>_id_seq`) on SQLite."""
    known = _is_table_sequence.get(sequence)
    if known is None:
        table = sequence.removesuffix(TABLE_SEQUENCE)
        found = await session.scalar(
            text("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = :table"), {"table": table}
        )
        known = _is_table_sequence[sequence] = sequence.endswith(TABLE_SEQUENCE) and found is not None
    return known


async def _sqlite_ids(session: AsyncSession, sequence: str, count: int) -> list[int]:
    if await _table_sequence(session, sequence):
        table = sequence.removesuffix(TABLE_SEQUENCE)
        last = await session.scalar(
            text("UPDATE sqlite_sequence SET seq = seq + :n WHERE name = :table RETURNING seq"),
            {"n": count, "table": table},
        )
        if last is None:  # the table never gave itself an id: start after its rows
            last = count + (await session.scalar(text(f"SELECT coalesce(max(id), 0) FROM {table}")) or 0)  # noqa: S608
            await session.execute(
                text("INSERT INTO sqlite_sequence (name, seq) VALUES (:table, :last)"), {"table": table, "last": last}
            )
        return list(range(last - count + 1, last + 1))
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


@asynccontextmanager
async def next_key_is(session: AsyncSession, model: type[Any], key: int) -> AsyncIterator[None]:
    """Inside, the first row of `model` the session inserts, whichever call adds it, takes
    primary key `key` (one no row has: the caller makes sure); after, the table's own sequence
    stands at the greater of where it stood and `key`, so the keys it gives later never meet
    it. A sequence cannot be moved below rows the table has (SQLite's AUTOINCREMENT takes the
    greatest key), so the key is the row's own, written with the row. Raises RuntimeError when
    no row of `model` took it."""
    given: list[Any] = []

    def give(sync_session: Any, _context: Any, _instances: Any) -> None:
        for row in sync_session.new:
            if not given and isinstance(row, model) and row.id is None:
                row.id = key
                given.append(row)

    event.listen(session.sync_session, "before_flush", give)
    try:
        yield
    finally:
        event.remove(session.sync_session, "before_flush", give)
    if not given or given[0].id != key or not inspect(given[0]).persistent:
        raise RuntimeError(f"no row of {model.__tablename__} was inserted with key {key}")
    if dialect_name(session) == "postgresql":  # SQLite's AUTOINCREMENT counter follows by itself
        await session.execute(
            text(
                "SELECT setval(s, :key) FROM (SELECT CAST(pg_get_serial_sequence(:table, 'id') AS regclass) AS s) q"
                " WHERE coalesce(pg_sequence_last_value(s), 0) < :key"
            ),
            {"table": model.__tablename__, "key": key},
        )
