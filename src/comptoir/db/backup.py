"""An online copy of a SQLite database (docs/operations.md "Backups").

SQLite's backup API copies the database page by page through a read transaction of its own:
in WAL mode, readers do not block writers, so servers and workers keep writing while it runs,
and the copy is the database as it was at one commit (never a torn mix of two)."""

from __future__ import annotations

import os
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# docs/operations.md "Backups": how long a backup waits for the database's locks, then gives up
LOCK_WAIT_SECONDS = 30.0

# docs/operations.md "Backups": the files SQLite gives meaning to beside a database `D`, found
# by their names alone: D-journal (a rollback journal: SQLite rolls it back into D, then
# deletes it), D-wal and D-shm (the write-ahead log and its index), and D-mj... (a
# super-journal, which the journals of a transaction over several databases name)
_SUFFIXES = ("-journal", "-wal", "-shm")
_SUPER_JOURNAL = "-mj"


class LocksHeld(Exception):
    """The database stayed locked by another connection for LOCK_WAIT_SECONDS."""


def is_sqlite_name(database_name: str, name: str) -> bool:
    """Whether a file called `name`, in the directory of the database called `database_name`,
    is that database or one SQLite reads as its own."""
    if name == database_name:
        return True
    if not name.startswith(database_name):
        return False
    rest = name[len(database_name) :]
    return rest in _SUFFIXES or rest.startswith(_SUPER_JOURNAL)


def _same_directory(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _spellings(path: Path) -> set[Path]:
    """`path` with its directory resolved, as written and with every link followed: the name a
    link itself has, and the name it points to."""
    return {Path(os.path.realpath(path.parent)) / path.name, Path(os.path.realpath(path))}


def names_one_of(target: Path, place: Path, named: Callable[[str], bool]) -> bool:
    """Whether `target`, under any spelling (relative or absolute, through `..`, through links
    to its directory or to the file itself, or as a hard link to one that exists), is a file of
    the directory of `place` whose name `named` accepts."""
    for known in {Path(os.path.abspath(place)), Path(os.path.realpath(place))}:
        for candidate in _spellings(target):
            if named(candidate.name) and _same_directory(candidate.parent, known.parent):
                return True
    try:
        beside = [path for path in place.parent.iterdir() if named(path.name)]
    except OSError:
        beside = []
    for path in beside:  # a hard link has a name of its own: compare the files themselves
        try:
            if os.path.samefile(target, path):
                return True
        except OSError:
            continue
    return False


def names_the_live_database(database: Path, target: Path) -> bool:
    """Whether `target`, under any spelling, is the database or a file SQLite keeps beside it."""
    return names_one_of(target, database, lambda name: is_sqlite_name(database.name, name))


def backup_sqlite(source: Path, target: Path) -> int:
    """Copy the database `source` (which must exist) into `target`, atomically: the copy is
    made in a temporary file beside `target`, then renamed over it, so `target` is either
    untouched or the whole copy. Returns the copy's size in bytes. Raises LocksHeld when
    another connection keeps the database locked for LOCK_WAIT_SECONDS."""
    wait = LOCK_WAIT_SECONDS
    deadline = time.monotonic() + wait

    def give_up_when_locked_too_long(status: int, _remaining: int, _total: int) -> None:
        # sqlite3 retries a busy step forever (after the connection's busy timeout, every
        # quarter of a second): past the deadline, this stops it
        if status in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) and time.monotonic() >= deadline:
            raise LocksHeld(f"the database stayed locked for {wait:g} seconds")

    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
    os.close(handle)
    try:
        # mode=rw: never create the database being copied
        live = sqlite3.connect(f"{source.resolve().as_uri()}?mode=rw", uri=True, timeout=wait)
        try:
            copy = sqlite3.connect(temporary)
            try:
                # every page in one step: one read transaction, one commit seen
                live.backup(copy, progress=give_up_when_locked_too_long)
                # one self-contained file: Comptoir turns WAL on again when it opens it
                copy.execute("PRAGMA journal_mode=DELETE")
            finally:
                copy.close()
        finally:
            live.close()
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target.stat().st_size
