"""docs/operations.md "Server key": on PostgreSQL every command that uses the server key
refuses to start without COMPTOIR_SECRET_KEY, or with one shorter than 32 bytes, before it
touches anything: no key file in the working directory, no schema, no row. `comptoir
secret-key` makes a key. On SQLite the key file beside the database still serves."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest

from comptoir.cli import main
from tests import databases
from tests.conftest import drop_postgres_database, postgres_url

UNSET = (
    "error: COMPTOIR_SECRET_KEY is not set: on PostgreSQL every process must be given the same server key;"
    " make one with `comptoir secret-key`\n"
)
TOO_SHORT = (
    "error: COMPTOIR_SECRET_KEY is too short: on PostgreSQL it must be at least 32 bytes;"
    " make one with `comptoir secret-key`\n"
)
COMPTOIR = str(Path(sys.executable).parent / "comptoir")

# every command that uses the key, with arguments it would otherwise accept
COMMANDS = [
    ["serve"],
    ["serve", "--workers", "2", "--demo"],
    ["worker"],
    ["migrate"],
    ["demo"],
    ["admin", "create-user", "--email", "a@example.com", "--password", "long-enough"],
    ["admin", "create-account", "--owner", "a@example.com", "--name", "N", "--currency", "EUR"],
    ["admin", "create-location", "--account", "abcdef", "--name", "N"],
    ["admin", "create-client", "--name", "N"],
    ["admin", "connect", "--client", "abcdef", "--user", "a@example.com", "--scope", "profile"],
    ["admin", "delivery-log", "--token", "t"],
    ["admin", "block-connection", "--token", "t"],
    ["admin", "unblock-connection", "--token", "t"],
    ["admin", "suspend-account", "--account", "abcdef"],
    ["admin", "unsuspend-account", "--account", "abcdef"],
    ["rotate-key"],
    ["rotate-key", "--retire-others"],
]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def empty_postgres() -> Iterator[str]:
    """A PostgreSQL database without any table: a command that ran would create them."""
    name = databases.new_name()
    asyncio.run(databases.create(name))
    yield postgres_url(name)
    drop_postgres_database(name)


def tables(url: str) -> list[str]:
    async def read() -> list[str]:
        connection = await asyncpg.connect(url)
        try:
            rows = await connection.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
            return [row["tablename"] for row in rows]
        finally:
            await connection.close()

    return asyncio.run(read())


@pytest.fixture
def fresh_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("COMPTOIR_"):
            monkeypatch.delenv(name)
    return tmp_path


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_command_on_postgresql_without_a_key_is_refused_and_changes_nothing(
    argv: list[str],
    empty_postgres: str,
    fresh_directory: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("COMPTOIR_DATABASE_URL", empty_postgres)
    assert run(argv, capsys) == (1, "", UNSET)
    assert list(fresh_directory.iterdir()) == []
    assert tables(empty_postgres) == []


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_command_on_postgresql_with_a_short_key_is_refused_and_changes_nothing(
    argv: list[str],
    empty_postgres: str,
    fresh_directory: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("COMPTOIR_DATABASE_URL", empty_postgres)
    monkeypatch.setenv("COMPTOIR_SECRET_KEY", "k" * 31)
    assert run(argv, capsys) == (1, "", TOO_SHORT)
    assert list(fresh_directory.iterdir()) == []
    assert tables(empty_postgres) == []


def test_an_empty_key_on_postgresql_is_refused_as_unset(
    empty_postgres: str, fresh_directory: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COMPTOIR_DATABASE_URL", empty_postgres)
    monkeypatch.setenv("COMPTOIR_SECRET_KEY", "")
    assert run(["migrate"], capsys) == (1, "", UNSET)
    assert list(fresh_directory.iterdir()) == []
    assert tables(empty_postgres) == []


def test_serve_as_a_process_on_postgresql_without_a_key_exits_non_zero(empty_postgres: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")}
    env["COMPTOIR_DATABASE_URL"] = empty_postgres
    done = subprocess.run(
        [COMPTOIR, "serve", "--workers", "2"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout, done.stderr) == (1, "", UNSET)
    assert list(tmp_path.iterdir()) == []
    assert tables(empty_postgres) == []


def test_secret_key_prints_a_fresh_64_hex_key_each_time(
    empty_postgres: str, fresh_directory: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COMPTOIR_DATABASE_URL", empty_postgres)  # reads no setting: no key needed
    keys = []
    for _ in range(3):
        code, out, err = run(["secret-key"], capsys)
        assert (code, err) == (0, "")
        assert re.fullmatch(r"[0-9a-f]{64}\n", out), out
        keys.append(out)
    assert len(set(keys)) == 3
    assert list(fresh_directory.iterdir()) == []
    assert tables(empty_postgres) == []


def test_a_key_from_secret_key_is_accepted_on_postgresql(
    fresh_directory: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    name = databases.new_name()
    asyncio.run(databases.create(name))
    try:
        _, key, _ = run(["secret-key"], capsys)
        monkeypatch.setenv("COMPTOIR_DATABASE_URL", postgres_url(name))
        monkeypatch.setenv("COMPTOIR_SECRET_KEY", key.strip())
        code, _, err = run(["admin", "create-user", "--email", "a@example.com", "--password", "long-enough"], capsys)
        assert (code, err) == (0, "")
        assert list(fresh_directory.iterdir()) == []  # no key file: the key is given
    finally:
        drop_postgres_database(name)


def test_on_sqlite_the_key_file_is_made_beside_the_database(
    fresh_directory: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = fresh_directory / "data"
    monkeypatch.setenv("COMPTOIR_DATABASE_URL", f"sqlite:///{data / 'comptoir.db'}")
    code, _, err = run(["admin", "create-client", "--name", "N"], capsys)
    assert (code, err) == (0, "")
    key = (data / "comptoir-secret.key").read_text()
    assert re.fullmatch(r"[0-9a-f]{64}\n", key)
    assert [p.name for p in fresh_directory.iterdir()] == ["data"]
    # a second command reads the same file
    code, _, err = run(["admin", "create-client", "--name", "M"], capsys)
    assert (code, err) == (0, "")
    assert (data / "comptoir-secret.key").read_text() == key


def test_on_sqlite_a_short_key_still_serves(
    fresh_directory: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COMPTOIR_DATABASE_URL", f"sqlite:///{fresh_directory / 'comptoir.db'}")
    monkeypatch.setenv("COMPTOIR_SECRET_KEY", "k")
    code, out, err = run(["demo"], capsys)
    assert (code, err) == (0, "")
    again = run(["demo"], capsys)
    assert again == (0, out, "")  # the same tokens and client secret: derived from the same key
    assert "comptoir-secret.key" not in {p.name for p in fresh_directory.iterdir()}
