"""docs/operations.md "Backups" and "Commands": `comptoir backup --to PATH` copies the SQLite
database online; bad input is refused and writes nothing; on PostgreSQL it points to pg_dump.
(Taking a backup while a server writes, then restoring it: tests/e2e/test_backup.py.)"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import Result, refused


def tables_and_rows(path: Path) -> dict[str, int]:
    with closing(sqlite3.connect(path)) as connection:  # closed at once: it would hold a lock
        names = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {name: connection.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] for name in names}


def database_file(database_url: str) -> Path:
    return Path(database_url.split(":///", 1)[1])


# the copies are SQLite's; on PostgreSQL the command refuses (the last test)
SQLITE = pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
POSTGRESQL = pytest.mark.parametrize("db_kind", ["postgresql"], indirect=True)
pytestmark = pytest.mark.database_in_tmp_path  # what a backup leaves is read beside the database


@SQLITE
def test_backup_writes_a_copy_with_every_row_and_prints_its_path_and_size(
    cli: Callable[..., Result], database_url: str, tmp_path: Path
) -> None:
    created = cli("admin", "create-user", "--email", "ann@example.com", "--password", "correct horse battery")
    assert created.code == 0, created.err
    target = tmp_path / "copy.db"
    result = cli("backup", "--to", str(target))
    assert result.code == 0, result.err
    assert result.json == {"backup": str(target.resolve()), "bytes": target.stat().st_size}
    assert tables_and_rows(target) == tables_and_rows(database_file(database_url))
    assert tables_and_rows(target)["users"] == 1
    with sqlite3.connect(target) as copy:
        assert copy.execute("PRAGMA journal_mode").fetchone() == ("delete",)  # one file, no -wal needed
        assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert target.stat().st_mode & 0o777 == 0o600  # the copy holds what the database holds
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


@SQLITE
def test_backup_refuses_a_target_in_a_directory_that_does_not_exist(cli: Callable[..., Result], tmp_path: Path) -> None:
    target = tmp_path / "missing" / "copy.db"
    refused(cli("backup", "--to", str(target)), f"--to: the directory {target.parent} does not exist")
    assert not target.parent.exists()


@SQLITE
def test_backup_refuses_an_existing_target_and_leaves_it_as_it_was(cli: Callable[..., Result], tmp_path: Path) -> None:
    target = tmp_path / "copy.db"
    target.write_bytes(b"an earlier backup")
    refused(cli("backup", "--to", str(target)), f"--to: {target} exists; give another file, or --force to replace it")
    assert target.read_bytes() == b"an earlier backup"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["comptoir.db", "copy.db"]


@SQLITE
def test_backup_force_replaces_an_existing_target(
    cli: Callable[..., Result], database_url: str, tmp_path: Path
) -> None:
    target = tmp_path / "copy.db"
    target.write_bytes(b"an earlier backup")
    result = cli("backup", "--to", str(target), "--force")
    assert result.code == 0, result.err
    assert tables_and_rows(target) == tables_and_rows(database_file(database_url))


@SQLITE
def test_backup_refuses_a_directory_as_target(cli: Callable[..., Result], tmp_path: Path) -> None:
    refused(cli("backup", "--to", str(tmp_path), "--force"), f"--to: {tmp_path} is a directory; give a file name")


@SQLITE
def test_backup_refuses_when_the_database_file_does_not_exist_and_creates_none(
    cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    missing = tmp_path / "nothing-here.db"
    monkeypatch.setenv("COMPTOIR_DATABASE_URL", f"sqlite:///{missing}")
    refused(cli("backup", "--to", str(tmp_path / "copy.db")), f"no database at {missing}: nothing to back up")
    assert not missing.exists()
    assert not (tmp_path / "copy.db").exists()


@SQLITE
def test_backup_refuses_a_database_in_memory(
    cli: Callable[..., Result], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("COMPTOIR_DATABASE_URL", "sqlite:///:memory:")
    refused(cli("backup", "--to", str(tmp_path / "copy.db")), "the database is in memory: there is no file to back up")
    assert not (tmp_path / "copy.db").exists()


@POSTGRESQL
def test_on_postgresql_backup_points_to_pg_dump(
    cli: Callable[..., Result], snapshot: Callable[[], dict[str, Any]], tmp_path: Path
) -> None:
    before = snapshot()
    refused(
        cli("backup", "--to", str(tmp_path / "copy.db")),
        "comptoir backup copies a SQLite database; on PostgreSQL use pg_dump"
        " (for example `pg_dump -Fc -f comptoir.dump DATABASE`), and keep the server key with it",
    )
    assert not (tmp_path / "copy.db").exists()
    assert snapshot() == before
