"""The empty sandbox database, made from SQL kept beside this module (`schema.sqlite.sql`,
written by scripts/dump_sandbox_schema.py from the migrations) rather than by applying every
migration at each start: a few milliseconds instead of most of a second (docs/sandbox.md
"How fast"). The migrations stay the schema's one definition: the sandbox upgrades the
database to the newest revision afterwards, and a test checks the file makes what they make.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from comptoir.config import Settings
from comptoir.db.engine import create_database
from comptoir.db.migrate import upgrade
from comptoir.sandbox.repository import ID_KEY

SCHEMA_FILE = Path(__file__).with_name("schema.sqlite.sql")
_HEADER = (
    "-- The empty database the migrations make (SQLite), with the sandbox's id key.\n"
    "-- Written by scripts/dump_sandbox_schema.py: do not edit; run it after adding a migration.\n"
)


def make_empty(connection: sqlite3.Connection) -> None:
    """Make the migrated empty schema in `connection`'s (new, empty) database."""
    connection.executescript(SCHEMA_FILE.read_text())


async def migrated_dump(path: Path) -> str:
    """The SQL of a new SQLite database at `path` brought to the newest revision by the
    migrations, its id key the sandbox's (the migrations draw a random one)."""
    db = create_database(Settings(database_url=f"sqlite:///{path}", secret_key="-" * 32), pool_size=1)
    try:
        await upgrade(db)
    finally:
        await db.dispose()
    connection = sqlite3.connect(path)
    try:
        connection.execute("UPDATE installation SET id_key = ?", (ID_KEY,))
        connection.commit()
        return _HEADER + "\n".join(connection.iterdump()) + "\n"
    finally:
        connection.close()
