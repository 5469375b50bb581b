"""`comptoir backup`: what an operator runs beside the servers (docs/operations.md
"Backups" and "Commands"). Prints one JSON object, like every admin command; on bad input, a
one-line message on stderr, a non-zero exit, and nothing written."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import click

from comptoir.cli.commands import CommandError, _emit, cli
from comptoir.config import Settings


def _database_files(database: Path) -> list[Path]:
    return [database, database.with_name(database.name + "-wal"), database.with_name(database.name + "-shm")]


def _is_same_file(a: Path, b: Path) -> bool:
    if a.resolve() == b.resolve():
        return True
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


@cli.command()
@click.option("--to", "target", required=True, type=click.Path(dir_okay=True, path_type=Path), help="The copy's file.")
@click.option("--force", is_flag=True, help="Replace the file --to names if it exists.")
def backup(target: Path, force: bool) -> None:
    """Copy the SQLite database to --to while Comptoir runs, and print {"backup", "bytes"}.

    The copy is consistent (the database as of one commit) and made while servers and workers
    keep writing. Keep the server key with it. On PostgreSQL, use pg_dump instead."""
    from comptoir.db.backup import backup_sqlite

    try:
        settings = Settings()
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        raise CommandError(" ".join(str(exc).split())) from None
    if not settings.is_sqlite:
        raise CommandError(
            "comptoir backup copies a SQLite database; on PostgreSQL use pg_dump"
            " (for example `pg_dump -Fc -f comptoir.dump DATABASE`), and keep the server key with it"
        )
    database = settings.sqlite_path
    if database is None:
        raise CommandError("the database is in memory: there is no file to back up")
    if not database.is_file():
        raise CommandError(f"no database at {database}: nothing to back up")
    if any(_is_same_file(target, live) for live in _database_files(database)):
        raise CommandError("--to names the live database itself; give another file")
    if not target.parent.is_dir():
        raise CommandError(f"--to: the directory {target.parent} does not exist")
    if target.is_dir():
        raise CommandError(f"--to: {target} is a directory; give a file name")
    if target.exists() and not force:
        raise CommandError(f"--to: {target} exists; give another file, or --force to replace it")
    try:
        size = backup_sqlite(database, target)
    except (OSError, sqlite3.Error) as exc:
        raise CommandError(f"the backup failed, nothing was written: {' '.join(str(exc).split())}") from None
    _emit({"backup": str(target.resolve()), "bytes": size})
