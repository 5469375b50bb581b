"""Moving a test database to another migration, for the migration tests."""

from __future__ import annotations

from alembic import command

from comptoir.db.engine import WRITE, Database
from comptoir.db.migrate import alembic_config


async def migrate(database: Database, revision: str) -> None:
    async with database.engine.connect() as connection:
        connection = await connection.execution_options(**WRITE)
        async with connection.begin():
            if revision == "head":
                await connection.run_sync(lambda sync: command.upgrade(alembic_config(sync), "head"))
            else:
                await connection.run_sync(lambda sync: command.downgrade(alembic_config(sync), revision))
    database.id_key = None  # read again by its next transaction (migration 0019 makes it)
