"""Write src/comptoir/sandbox/schema.sqlite.sql: the empty SQLite database the migrations make,
as SQL, from which `comptoir sandbox` makes its database in milliseconds instead of applying
every migration at each start (docs/sandbox.md "How fast").

    uv run python scripts/dump_sandbox_schema.py

The migrations stay the one definition of the schema: the sandbox still upgrades its database
to the newest revision after loading this file (a file behind the migrations only makes a
start slower), and tests/sandbox/test_schema_dump.py fails until the committed file makes the
same tables, indexes, triggers and rows as the migrations do. Run it after adding a migration.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import tempfile
from pathlib import Path

from comptoir.sandbox.schema import SCHEMA_FILE, migrated_dump


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        text = asyncio.run(migrated_dump(Path(directory) / "schema.db"))
    SCHEMA_FILE.write_text(text)
    sqlite3.connect(":memory:").executescript(text)  # it loads
    print(f"wrote {SCHEMA_FILE.relative_to(Path.cwd()) if SCHEMA_FILE.is_relative_to(Path.cwd()) else SCHEMA_FILE}")


if __name__ == "__main__":
    sys.exit(main())
