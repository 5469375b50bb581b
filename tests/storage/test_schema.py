"""The migrations shipped in the package build exactly the models' schema, on both databases."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text

from comptoir.db import Database
from comptoir.migrate import alembic_head
from comptoir.models import Base


async def test_migrations_match_the_models(database: Database) -> None:
    def diff(connection):  # type: ignore[no-untyped-def]
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return compare_metadata(context, Base.metadata)

    async with database.engine.connect() as connection:
        assert await connection.run_sync(diff) == []
        version = (await connection.execute(text("SELECT version_num FROM alembic_version"))).scalar_one()
    assert version == alembic_head()


async def test_sqlite_runs_with_wal_and_foreign_keys(database: Database) -> None:
    if not database.is_sqlite:
        return
    async with database.engine.connect() as connection:
        assert (await connection.execute(text("PRAGMA journal_mode"))).scalar_one() == "wal"
        assert (await connection.execute(text("PRAGMA foreign_keys"))).scalar_one() == 1
        assert (await connection.execute(text("PRAGMA busy_timeout"))).scalar_one() == 30000


@pytest.mark.parametrize("db_kind", ["postgresql"])  # SQLite does not compress
async def test_large_json_documents_are_compressed_with_lz4(database: Database) -> None:
    async with database.engine.connect() as connection:
        rows = await connection.execute(
            text(
                "SELECT attrelid::regclass::text, attname, attcompression::text FROM pg_attribute"
                " WHERE attrelid IN ('orders'::regclass, 'changes'::regclass, 'request_logs'::regclass)"
                " AND attname IN ('body', 'view', 'previous_state', 'new_state', 'request_body', 'response_body')"
            )
        )
        assert sorted(rows.all()) == [
            ("changes", "new_state", "l"),
            ("changes", "previous_state", "l"),
            ("orders", "body", "l"),
            ("orders", "view", "l"),
            ("request_logs", "request_body", "l"),
            ("request_logs", "response_body", "l"),
        ]
