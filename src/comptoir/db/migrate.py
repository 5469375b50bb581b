"""Applying the Alembic migrations shipped in `comptoir/db/migrations`."""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, text
from sqlalchemy.ext.asyncio import AsyncConnection

from comptoir.db.engine import WRITE, Database, advisory_lock

_ADVISORY_LOCK = 0x636F6D70  # "comp": serialises concurrent upgrades on PostgreSQL


def alembic_config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", "comptoir.db:migrations")
    config.attributes["connection"] = connection
    return config


def alembic_head() -> str:
    """The newest revision shipped in the package."""
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head() or ""


async def database_revision(database: Database) -> str | None:
    """The revision the database is at (Alembic's `alembic_version`), None before the first
    migration. Raises whatever the driver raises when the database does not answer."""
    async with database.engine.connect() as connection:
        exists = (
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'"
            if database.is_sqlite
            else "SELECT count(*) FROM pg_class WHERE oid = to_regclass('alembic_version')"
        )
        if not await connection.scalar(text(exists)):
            return None
        return await connection.scalar(text("SELECT version_num FROM alembic_version"))


def _upgrade(connection: Connection) -> None:
    command.upgrade(alembic_config(connection), "head")


async def upgrade(database: Database) -> None:
    """Bring the schema to the newest revision; safe to run from several processes at once."""
    async with database.engine.connect() as connection:
        connection = await connection.execution_options(**WRITE)
        async with connection.begin():
            await upgrade_in(connection)


async def upgrade_in(connection: AsyncConnection) -> None:
    """Upgrade inside the caller's transaction: if the caller rolls back, so does the schema
    (PostgreSQL and SQLite both have transactional DDL)."""
    await advisory_lock(connection, _ADVISORY_LOCK)
    await connection.run_sync(_upgrade)
