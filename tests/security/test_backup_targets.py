"""`comptoir backup --to` aimed where a copy would do harm (docs/operations.md "Backups"). A
local command trusts its operator with paths, but some are refused, --force or not, one line
on stderr, a non-zero exit, and nothing changed (neither the target nor the live database):

- the live database, or a file SQLite gives meaning to beside it, under any spelling: a copy
  named `comptoir.db-journal` is taken by SQLite for the crash journal of the live database
  (it locks every process out, then deletes the copy), one named `-wal` or `-shm` corrupts it;
- the server key file, which the copy would destroy;
- anything that exists and is not a regular file (a link is not followed), which `--force`
  would replace by a copy of the database;

and a backup that cannot have the database's locks gives up with a message after a bounded
wait instead of hanging."""

from __future__ import annotations

import hashlib
import os
import socket
import sqlite3
import stat
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from comptoir.config import KEY_FILE_NAME
from tests.cli.conftest import Result, cli, refused  # noqa: F401 - fixtures
from tests.cli.test_backup import SQLITE, database_file, tables_and_rows

pytestmark = [SQLITE, pytest.mark.database_in_tmp_path]  # targets beside the live database

LIVE = "--to names the live database or a file SQLite keeps beside it; give another file"
FORCE = pytest.mark.parametrize("force", [[], ["--force"]], ids=["plain", "force"])
Cli = Callable[..., Result]


def fingerprint(database: Path) -> tuple[dict[str, int], str]:
    return tables_and_rows(database), hashlib.sha256(database.read_bytes()).hexdigest()


def entries(directory: Path) -> dict[str, tuple[int, str]]:
    """Every name under `directory` (links unfollowed), with its kind and, for a regular file,
    its content's digest or, for a link, where it points."""
    found: dict[str, tuple[int, str]] = {}
    for path in sorted(directory.rglob("*")):
        mode = path.lstat().st_mode
        if stat.S_ISREG(mode):
            detail = hashlib.sha256(path.read_bytes()).hexdigest()
        elif stat.S_ISLNK(mode):
            detail = os.readlink(path)
        else:
            detail = ""
        found[str(path.relative_to(directory))] = (stat.S_IFMT(mode), detail)
    return found


@pytest.fixture
def database(cli: Cli, database_url: str) -> Path:  # noqa: F811 - the fixture
    assert cli("migrate").code == 0
    return database_file(database_url)


@FORCE
@pytest.mark.parametrize("spelling", ["same-path", "dotted-path", "symlink", "hard-link", "wal", "shm"])
def test_backup_over_the_live_database_is_refused(
    cli: Cli,  # noqa: F811 - the fixture
    database: Path,
    tmp_path: Path,
    spelling: str,
    force: list[str],
) -> None:
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


@FORCE
@pytest.mark.parametrize(
    "spelling",
    [
        "journal",
        "super-journal",
        "relative-path",
        "dotted-path",
        "through-a-linked-directory",
        "a-link-to-it",
        "a-link-named-so",
    ],
)
def test_backup_to_the_live_databases_journal_is_refused(
    cli: Cli,  # noqa: F811 - the fixture
    database: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    spelling: str,
    force: list[str],
) -> None:
    journal = database.with_name(f"{database.name}-journal")
    (tmp_path / "elsewhere").mkdir()
    if spelling == "journal":
        target = journal
    elif spelling == "super-journal":  # what SQLite names the super-journal of a transaction
        target = database.with_name(f"{database.name}-mj1A2B3C9D4")
    elif spelling == "relative-path":
        monkeypatch.chdir(database.parent)
        target = Path(journal.name)
    elif spelling == "dotted-path":
        target = tmp_path / "elsewhere" / ".." / journal.name
    elif spelling == "through-a-linked-directory":
        (tmp_path / "elsewhere" / "alias").symlink_to(database.parent)
        target = tmp_path / "elsewhere" / "alias" / journal.name
    elif spelling == "a-link-to-it":  # a link whose file does not exist yet, where SQLite would look
        target = tmp_path / "elsewhere" / "copy.db"
        target.symlink_to(journal)
    else:  # the link itself has the journal's name: replacing it would put the copy there
        journal.symlink_to(tmp_path / "elsewhere" / "copy.db")
        target = journal
    before, files = fingerprint(database), entries(tmp_path)
    refused(cli("backup", "--to", str(target), *force), LIVE)
    assert fingerprint(database) == before
    assert entries(tmp_path) == files  # no copy, no partial file, every link as it was


def test_backup_over_the_server_key_file_is_refused(
    cli: Cli,  # noqa: F811 - the fixture
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("COMPTOIR_SECRET_KEY")
    assert cli("migrate").code == 0  # the key file made beside the database is its server key
    database = database_file(database_url)
    key_file = database.parent / KEY_FILE_NAME
    (tmp_path / "sub").mkdir()
    before, files = fingerprint(database), entries(tmp_path)
    for target in (key_file, tmp_path / "sub" / ".." / KEY_FILE_NAME):
        refused(cli("backup", "--to", str(target), "--force"), "--to names the server key file; give another file")
    assert fingerprint(database) == before
    assert entries(tmp_path) == files


def refused_as_not_regular(cli: Cli, target: Path, kind: str, force: list[str], database: Path) -> None:  # noqa: F811
    """The backup to `target` (a `kind`) is refused, and nothing under the database's
    directory changed: neither the target nor the live database."""
    directory = database.parent
    before, files = fingerprint(database), entries(directory)
    refused(
        cli("backup", "--to", str(target), *force), f"--to: {target} is {kind}, not a regular file; give another file"
    )
    assert fingerprint(database) == before
    assert entries(directory) == files


@FORCE
def test_backup_force_does_not_replace_a_fifo(
    cli: Cli,  # noqa: F811 - the fixture
    database: Path,
    tmp_path: Path,
    force: list[str],
) -> None:
    target = tmp_path / "pipe"
    os.mkfifo(target)
    refused_as_not_regular(cli, target, "a FIFO", force, database)
    assert stat.S_ISFIFO(target.lstat().st_mode)


@FORCE
def test_backup_force_does_not_replace_a_symbolic_link_nor_follow_it(
    cli: Cli,  # noqa: F811 - the fixture
    database: Path,
    tmp_path: Path,
    force: list[str],
) -> None:
    (tmp_path / "elsewhere").mkdir()
    earlier = tmp_path / "elsewhere" / "earlier.db"
    earlier.write_bytes(b"an earlier backup")
    target = tmp_path / "latest.db"
    target.symlink_to(earlier)
    refused_as_not_regular(cli, target, "a symbolic link", force, database)
    assert earlier.read_bytes() == b"an earlier backup"


@FORCE
def test_backup_does_not_replace_a_dangling_symbolic_link(
    cli: Cli,  # noqa: F811 - the fixture
    database: Path,
    tmp_path: Path,
    force: list[str],
) -> None:
    target = tmp_path / "latest.db"
    target.symlink_to(tmp_path / "nothing-there.db")
    refused_as_not_regular(cli, target, "a symbolic link", force, database)
    assert not (tmp_path / "nothing-there.db").exists()


@FORCE
def test_backup_force_does_not_replace_a_socket(
    cli: Cli,  # noqa: F811 - the fixture
    database: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    force: list[str],
) -> None:
    monkeypatch.chdir(tmp_path)  # a short name: a socket's path is limited to about 100 bytes
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind("sock")
        refused_as_not_regular(cli, Path("sock"), "a socket", force, database)
    assert stat.S_ISSOCK((tmp_path / "sock").lstat().st_mode)


@FORCE
def test_backup_force_does_not_replace_a_device_node(
    cli: Cli,  # noqa: F811 - the fixture
    database: Path,
    tmp_path: Path,
    force: list[str],
) -> None:
    target = tmp_path / "null"
    try:
        os.mknod(target, stat.S_IFCHR | 0o600, os.makedev(1, 3))  # what /dev/null is
    except PermissionError:
        pytest.skip("making a device node needs CAP_MKNOD")
    refused_as_not_regular(cli, target, "a character device", force, database)
    assert target.lstat().st_rdev == os.makedev(1, 3)


def test_backup_gives_up_after_a_bounded_wait_when_another_connection_holds_the_lock(
    cli: Cli,  # noqa: F811 - the fixture
    database: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = fingerprint(database)
    monkeypatch.setattr("comptoir.db.backup.LOCK_WAIT_SECONDS", 2.0)  # 30 in use
    target = tmp_path / "copy.db"
    pool = ThreadPoolExecutor(1)
    holder = sqlite3.connect(database, isolation_level=None)
    try:
        holder.execute("PRAGMA locking_mode=EXCLUSIVE")  # in WAL mode, readers wait too
        holder.execute("BEGIN EXCLUSIVE")
        holder.execute("DELETE FROM installation")  # a write: the lock is taken
        # a generous bound, far beyond the 2 seconds: only a backup that never gives up fails it
        result = pool.submit(cli, "backup", "--to", str(target)).result(timeout=120)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        pool.shutdown()
    refused(
        result, "the database stayed locked for 2 seconds: another process holds it; nothing was written, try again"
    )
    assert not target.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []
    assert fingerprint(database) == before
