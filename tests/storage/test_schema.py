"""The migrations shipped in the package build exactly the models' schema, on both databases."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text

from comptoir.config import Settings
from comptoir.db.engine import Database, create_database
from comptoir.db.migrate import alembic_head
from comptoir.models import Base
from tests.storage.migrating import migrate


async def test_migrations_match_the_models(database: Database) -> None:
    def diff(connection):  # type: ignore[no-untyped-def]
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return compare_metadata(context, Base.metadata)

    async with database.engine.connect() as connection:
        assert await connection.run_sync(diff) == []
        version = (await connection.execute(text("SELECT version_num FROM alembic_version"))).scalar_one()
    assert version == alembic_head()


@pytest.mark.parametrize("db_kind", ["sqlite"])
async def test_sqlite_runs_with_wal_and_foreign_keys(database: Database, settings: Settings) -> None:
    async with database.engine.connect() as connection:
        assert (await connection.execute(text("PRAGMA journal_mode"))).scalar_one() == "wal"
        assert (await connection.execute(text("PRAGMA foreign_keys"))).scalar_one() == 1
        # docs/operations.md "When a dependency fails": a write waits that long for the lock
        busy = (await connection.execute(text("PRAGMA busy_timeout"))).scalar_one()
        assert busy == settings.database_statement_timeout_seconds * 1000


@pytest.mark.parametrize("db_kind", ["sqlite"])
async def test_commands_wait_for_sqlites_lock_without_a_statement_bound(settings: Settings) -> None:
    unbounded = create_database(settings, pool_size=1, statement_timeout=False)
    try:
        async with unbounded.engine.connect() as connection:
            assert (await connection.execute(text("PRAGMA busy_timeout"))).scalar_one() == 30000
    finally:
        await unbounded.dispose()


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


async def test_changes_keep_never_reusing_ids_without_foreign_keys(database: Database) -> None:
    """Migration 0017 rebuilt `changes` on SQLite: still AUTOINCREMENT (an id is never
    reused), and on both databases without foreign keys, its events with theirs."""
    async with database.engine.connect() as connection:
        foreign_keys = await connection.run_sync(lambda sync: inspect(sync).get_foreign_keys("changes"))
        assert foreign_keys == []
        events = await connection.run_sync(lambda sync: inspect(sync).get_foreign_keys("events"))
        assert sorted(fk["referred_table"] for fk in events) == ["changes", "connections"]
        if database.is_sqlite:
            sql = (await connection.execute(text("SELECT sql FROM sqlite_master WHERE name = 'changes'"))).scalar_one()
            assert "AUTOINCREMENT" in sql


async def test_migration_0017_goes_down_and_up_again(database: Database) -> None:
    await migrate(database, "0016")
    async with database.engine.connect() as connection:
        foreign_keys = await connection.run_sync(lambda sync: inspect(sync).get_foreign_keys("changes"))
    assert sorted((fk["constrained_columns"][0], fk["referred_table"]) for fk in foreign_keys) == [
        ("account_id", "accounts"),
        ("client_id", "oauth_clients"),
        ("connection_id", "connections"),
        ("location_id", "locations"),
        ("origin_connection_id", "connections"),
    ]
    await migrate(database, "head")
    async with database.engine.connect() as connection:
        assert await connection.run_sync(lambda sync: inspect(sync).get_foreign_keys("changes")) == []
