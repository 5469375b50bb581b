"""The sandbox makes its empty SQLite database from `comptoir/sandbox/schema.sqlite.sql`
(docs/sandbox.md "How fast"): that file makes what the migrations make, and a file behind the
migrations still gives a sandbox at the newest revision."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from comptoir.config import Settings
from comptoir.db.engine import create_database
from comptoir.db.migrate import alembic_head, database_revision
from comptoir.sandbox import schema
from comptoir.sandbox.seed import read_seed
from comptoir.sandbox.service import start
from tests.sandbox.conftest import EXAMPLE
from tests.storage.migrating import migrate


def _contents(connection: sqlite3.Connection) -> dict[str, Any]:
    """Every table, index and trigger with its SQL, and every row of every table. The lines of
    a statement (a column or a constraint each) are compared in any order: the migrations that
    rebuild a SQLite table list its foreign keys in an order that varies from run to run."""
    found = connection.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall()
    objects = [(kind, name, table, _lines(sql)) for kind, name, table, sql in found]
    tables = [name for kind, name, _table, _sql in objects if kind == "table"]
    rows = {table: sorted(connection.execute(f'SELECT * FROM "{table}"').fetchall()) for table in tables}
    return {"objects": objects, "rows": rows}


def _lines(sql: str | None) -> list[str]:
    return sorted(line.strip().rstrip(",").strip() for line in (sql or "").splitlines())


async def test_the_schema_file_makes_what_the_migrations_make(tmp_path: Path) -> None:
    migrated = sqlite3.connect(":memory:")
    migrated.executescript(await schema.migrated_dump(tmp_path / "migrated.db"))
    from_file = sqlite3.connect(":memory:")
    schema.make_empty(from_file)
    assert _contents(from_file) == _contents(migrated), "run: uv run python scripts/dump_sandbox_schema.py"


async def test_a_schema_file_behind_the_migrations_still_gives_the_newest_revision(
    base_settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    older = tmp_path / "older.db"
    db = create_database(Settings(database_url=f"sqlite:///{older}", secret_key="-" * 32), pool_size=1)
    try:
        await migrate(db, "head")
        await migrate(db, "-1")  # one migration behind
        behind = await database_revision(db)
    finally:
        await db.dispose()
    assert behind != alembic_head()
    dump = tmp_path / "behind.sql"
    dump.write_text("\n".join(sqlite3.connect(older).iterdump()))
    monkeypatch.setattr(schema, "SCHEMA_FILE", dump)

    started, _key = await start(base_settings, read_seed(EXAMPLE), None)
    try:
        assert await database_revision(started.db) == alembic_head()
    finally:
        await started.close()
