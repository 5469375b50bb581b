"""The sandbox's SQL: the mark of a database it made, its fixed id key, and the snapshot of
the seeded state that a reset puts back (docs/sandbox.md "Reset").

A snapshot is every row of every table of the schema (`models.Base.metadata`) and where each
id sequence stands; putting it back deletes every row, children first, inserts the rows,
parents first, and sets the sequences back, in one transaction: the rows, their ids and the
ids handed out next are those of the seeded state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Table, delete, insert, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.db.engine import dialect_name
from comptoir.models import Base

ID_KEY = "sandbox"  # every sandbox database keys its public ids so: the same ids at every start
SQLITE_MARK = 0x636D7073  # PRAGMA application_id of a SQLite database the sandbox made
POSTGRES_MARK = "made by comptoir sandbox"  # COMMENT ON DATABASE of a PostgreSQL one
_KEPT = frozenset({"installation"})  # its id key never changes


async def use_fixed_id_key(session: AsyncSession) -> None:
    await session.execute(text("UPDATE installation SET id_key = :key"), {"key": ID_KEY})


@dataclass(frozen=True)
class Snapshot:
    rows: list[tuple[Table, list[dict[str, Any]]]]  # parents first
    sequences: list[tuple[str, int, bool]]  # name, value, whether it was handed out


def _tables() -> list[Table]:
    return [table for table in Base.metadata.sorted_tables if table.name not in _KEPT]


async def capture(session: AsyncSession) -> Snapshot:
    rows = []
    for table in _tables():
        result = await session.execute(select(table))
        rows.append((table, [dict(row._mapping) for row in result]))
    if dialect_name(session) == "postgresql":
        found = await session.execute(
            text(
                "SELECT sequencename, coalesce(last_value, start_value), last_value IS NOT NULL"
                " FROM pg_sequences WHERE schemaname = current_schema() ORDER BY sequencename"
            )
        )
    else:  # AUTOINCREMENT counters (the other sequences are rows of `id_counters`, a table)
        found = await session.execute(text("SELECT name, seq, 1 FROM sqlite_sequence ORDER BY name"))
    return Snapshot(rows, [(name, int(value), bool(called)) for name, value, called in found])


async def restore(session: AsyncSession, snapshot: Snapshot) -> None:
    for table, _ in reversed(snapshot.rows):
        await session.execute(delete(table))
    for table, rows in snapshot.rows:
        if rows:
            await session.execute(insert(table), rows)
    if dialect_name(session) == "postgresql":
        for name, value, called in snapshot.sequences:
            await session.execute(
                text("SELECT setval(CAST(:name AS regclass), :value, :called)"),
                {"name": name, "value": value, "called": called},
            )
    else:
        await session.execute(text("DELETE FROM sqlite_sequence"))
        for name, value, _ in snapshot.sequences:
            await session.execute(
                text("INSERT INTO sqlite_sequence (name, seq) VALUES (:n, :v)"), {"n": name, "v": value}
            )


# --- the mark ---------------------------------------------------------------------------


def sqlite_marked(connection: Any) -> bool:
    """Whether a sqlite3 connection's database is one the sandbox made."""
    return bool(connection.execute("PRAGMA application_id").fetchone()[0] == SQLITE_MARK)


def sqlite_mark(connection: Any) -> None:
    connection.execute(f"PRAGMA application_id = {SQLITE_MARK}")


def sqlite_has_tables(connection: Any) -> bool:
    return bool(connection.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0])


async def postgres_state(server: Any, name: str) -> tuple[bool, bool]:
    """(exists, marked) of database `name`, asked through an asyncpg connection to the server."""
    row = await server.fetchrow(
        "SELECT shobj_description(oid, 'pg_database') AS mark FROM pg_database WHERE datname = $1", name
    )
    return row is not None, row is not None and row["mark"] == POSTGRES_MARK
