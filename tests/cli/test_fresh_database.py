"""docs/operations.md "Commands": a refused command changes nothing, even on a machine where
Comptoir never ran: no database file, no key file, no schema."""

from __future__ import annotations

from pathlib import Path

import pytest

from comptoir.cli import main
from tests import databases
from tests.conftest import drop_postgres_database, postgres_url


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, capsys.readouterr().err


def test_a_refused_command_leaves_no_file_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COMPTOIR_SECRET_KEY", raising=False)
    monkeypatch.delenv("COMPTOIR_DATABASE_URL", raising=False)
    code, err = run(
        ["admin", "create-account", "--owner", "nobody@example.com", "--name", "N", "--currency", "EUR"], capsys
    )
    assert (code, err) == (1, "error: no user with email 'nobody@example.com'\n")
    assert list(tmp_path.iterdir()) == []
    code, _ = run(["admin", "create-user", "--email", "a@example.com", "--password", "long-enough"], capsys)
    assert code == 0
    assert {p.name for p in tmp_path.iterdir()} >= {"comptoir.db", "comptoir-secret.key"}


def test_a_refused_command_leaves_a_fresh_postgresql_database_empty(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import asyncio

    import asyncpg

    name = databases.new_name()
    asyncio.run(databases.create(name))
    try:
        monkeypatch.setenv("COMPTOIR_DATABASE_URL", postgres_url(name))
        monkeypatch.setenv("COMPTOIR_SECRET_KEY", "k-fresh-database-key-at-least-32-bytes")
        code, _ = run(["admin", "suspend-account", "--account", "zzzzzz"], capsys)
        assert code == 1

        async def tables() -> list[str]:
            connection = await asyncpg.connect(postgres_url(name))
            try:
                rows = await connection.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
                return [row["tablename"] for row in rows]
            finally:
                await connection.close()

        assert asyncio.run(tables()) == []
    finally:
        drop_postgres_database(name)
