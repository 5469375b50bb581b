"""An online copy of a SQLite database (docs/operations.md "Backups").

SQLite's backup API copies the database page by page through a read transaction of its own:
in WAL mode, readers do not block writers, so servers and workers keep writing while it runs,
and the copy is the database as it was at one commit (never a torn mix of two)."""

from __future__ import annotations

import os
import sqlite3
import tempfile
from pathlib import Path

BUSY_TIMEOUT_SECONDS = 30.0


def backup_sqlite(source: Path, target: Path) -> int:
    """Copy the database `source` (which must exist) into `target`, atomically: the copy is
    made in a temporary file beside `target`, then renamed over it, so `target` is either
    untouched or the whole copy. Returns the copy's size in bytes."""
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
    os.close(handle)
    try:
        # mode=rw: never create the database being copied
        live = sqlite3.connect(f"{source.resolve().as_uri()}?mode=rw", uri=True, timeout=BUSY_TIMEOUT_SECONDS)
        try:
            copy = sqlite3.connect(temporary)
            try:
                live.backup(copy)  # every page in one step: one read transaction, one commit seen
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
