from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from comptoir.cli import main
from comptoir.config import Settings
from comptoir.db.engine import create_database
from tests.conftest import SECRET_KEY, TEST_ALLOWED_NETWORKS
from tests.factories import World


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def json(self) -> Any:
        lines = self.out.splitlines()
        assert len(lines) == 1, self.out  # exactly one JSON object, on one line
        return json.loads(lines[0])


@pytest.fixture
def cli(
    database_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., Result]:
    monkeypatch.setenv("COMPTOIR_DATABASE_URL", database_url)
    monkeypatch.setenv("COMPTOIR_SECRET_KEY", SECRET_KEY)
    monkeypatch.setenv("COMPTOIR_CALLBACK_ALLOWED_NETWORKS", TEST_ALLOWED_NETWORKS)

    def run(*argv: str) -> Result:
        capsys.readouterr()
        try:
            main(list(argv))
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


@pytest.fixture
def snapshot(database_url: str) -> Callable[[], dict[str, Any]]:
    """Every row of every table, read on a fresh engine (the CLI runs its own event loops)."""

    def take() -> dict[str, Any]:
        async def read() -> dict[str, Any]:
            settings = Settings(database_url=database_url, secret_key=SECRET_KEY)
            db = create_database(settings, pool_size=1)
            try:
                return await World(db, settings.server_key()).snapshot()
            finally:
                await db.dispose()

        return asyncio.run(read())

    return take


def refused(result: Result, message: str) -> None:
    """A refused command: one line on stderr, non-zero exit, nothing on stdout."""
    assert result.code != 0
    assert result.out == ""
    assert result.err.count("\n") == 1, result.err
    assert result.err == f"error: {message}\n"
