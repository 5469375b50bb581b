"""`comptoir backup`: what an operator runs beside the servers (docs/operations.md
"Backups" and "Commands"). Prints one JSON object, like every admin command; on bad input, a
one-line message on stderr, a non-zero exit, and nothing written."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import click

from comptoir.cli.commands import CommandError, _emit, cli
from comptoir.config import Settings

LIVE = "--to names the live database or a file SQLite keeps beside it; give another file"


# what `lstat` says a target is, for a refusal naming it
_KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_a_regular_file(target: Path) -> str | None:
    """What `target` is when it exists and is neither a regular file nor a directory, the
    link itself unfollowed; None otherwise."""
    try:
        mode = target.lstat().st_mode
    except OSError:  # none there, or none this process may see: the next checks say which
        return None
    for test, kind in _KINDS:
        if test(mode):
            return kind
    return None if stat.S_ISREG(mode) or stat.S_ISDIR(mode) else "not a regular file"


@cli.command()
@click.option("--to", "target", required=True, type=click.Path(dir_okay=True, path_type=Path), help="The copy's file.")
@click.option("--force", is_flag=True, help="Replace the file --to names if it exists.")
def backup(target: Path, force: bool) -> None:
    """Copy the SQLite database to --to while Comptoir runs, and print {"backup", "bytes"}.

    The copy is consistent (the database as of one commit) and made while servers and workers
    keep writing. Keep the server key for it, apart from the copies. On PostgreSQL, use
    pg_dump instead."""
    from comptoir.db.backup import LocksHeld, backup_sqlite, names_one_of, names_the_live_database

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
    # docs/operations.md "Backups": what --to may not name, --force or not
    if names_the_live_database(database, target):
        raise CommandError(LIVE)
    key_file = settings.key_file()
    if names_one_of(target, key_file, lambda name: name == key_file.name):
        raise CommandError("--to names the server key file; give another file")
    if not target.parent.is_dir():
        raise CommandError(f"--to: the directory {target.parent} does not exist")
    kind = _not_a_regular_file(target)
    if kind is not None:
        raise CommandError(f"--to: {target} is {kind}, not a regular file; give another file")
    if target.is_dir():
        raise CommandError(f"--to: {target} is a directory; give a file name")
    if target.exists() and not force:
        raise CommandError(f"--to: {target} exists; give another file, or --force to replace it")
    try:
        size = backup_sqlite(database, target)
    except LocksHeld as exc:
        raise CommandError(f"{exc}: another process holds it; nothing was written, try again") from None
    except (OSError, sqlite3.Error) as exc:
        raise CommandError(f"the backup failed, nothing was written: {' '.join(str(exc).split())}") from None
    _emit({"backup": str(target.resolve()), "bytes": size})
