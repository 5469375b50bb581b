"""`comptoir backup --to` aimed at the live database: a local command trusts its operator with
paths, but a copy written over the database it copies (by name, through a symlink or a hard
link, or over its WAL files) would destroy it, so that is refused, --force or not, and the
database is left as it was (docs/operations.md "Backups")."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.conftest import Result, cli, refused  # noqa: F401 - fixtures
from tests.cli.test_backup import SQLITE, database_file, tables_and_rows

pytestmark = SQLITE

LIVE = "--to names the live database itself; give another file"


def fingerprint(database: Path) -> tuple[dict[str, int], str]:
    return tables_and_rows(database), hashlib.sha256(database.read_bytes()).hexdigest()


@pytest.mark.parametrize("force", [[], ["--force"]], ids=["plain", "force"])
@pytest.mark.parametrize("spelling", ["same-path", "dotted-path", "symlink", "hard-link", "wal", "shm"])
def test_backup_over_the_live_database_is_refused(
    cli: Callable[..., Result],  # noqa: F811 - the fixture
    database_url: str,
    tmp_path: Path,
    spelling: str,
    force: list[str],
) -> None:
    database = database_file(database_url)
    assert cli("migrate").code == 0
    before = fingerprint(database)
    if spelling == "same-path":
        target = database
    elif spelling == "dotted-path":
        (tmp_path / "sub").mkdir()
        target = tmp_path / "sub" / ".." / database.name
    elif spelling == "symlink":
        target = tmp_path / "link.db"
        target.symlink_to(database)
    elif spelling == "hard-link":
        target = tmp_path / "hard.db"
        os.link(database, target)
    else:
        target = database.with_name(f"{database.name}-{spelling}")
    refused(cli("backup", "--to", str(target), *force), LIVE)
    assert fingerprint(database) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []
