"""The sandbox's database (docs/sandbox.md "The database"): one it may not reach is refused in
one line; an empty SQLite file given is used and marked."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from comptoir.config import Settings
from comptoir.sandbox.repository import SQLITE_MARK
from comptoir.sandbox.seed import read_seed
from comptoir.sandbox.service import SandboxRefused, start
from tests.sandbox.conftest import EXAMPLE


async def test_a_postgres_server_not_there_is_refused_in_one_line(base_settings: Settings) -> None:
    with pytest.raises(SandboxRefused) as refused:
        await start(base_settings, read_seed(EXAMPLE), "postgresql://postgres@127.0.0.1:1/sandbox")
    assert str(refused.value).startswith("--database: postgresql://postgres@127.0.0.1:1/sandbox: ")
    assert "\n" not in str(refused.value)


async def test_an_empty_sqlite_file_given_is_used_and_marked(base_settings: Settings, tmp_path: Path) -> None:
    path = tmp_path / "sandbox.db"
    _touch(path)
    started, _key = await start(base_settings, read_seed(EXAMPLE), f"sqlite:///{path}")
    await started.close()
    assert _mark(path) == SQLITE_MARK
    again, _key = await start(base_settings, read_seed(EXAMPLE), f"sqlite:///{path}")  # made by a sandbox: reused
    await again.close()
    assert again.answer == started.answer


def _touch(path: Path) -> None:
    path.touch()


def _mark(path: Path) -> int:
    connection = sqlite3.connect(path)
    try:
        return int(connection.execute("PRAGMA application_id").fetchone()[0])
    finally:
        connection.close()
