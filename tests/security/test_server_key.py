"""docs/operations.md "Server key": on PostgreSQL no process makes a key of its own (each
would make a different one, and the tokens one minted would be refused by the others), and
a key short enough to guess is refused; the server processes `serve --workers N` starts
build their app from the environment and refuse the same way."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from comptoir.app import app_from_environment, create_app
from comptoir.config import ServerKeyError, Settings
from tests.conftest import TEST_POSTGRES_URL

UNSET = (
    "COMPTOIR_SECRET_KEY is not set: on PostgreSQL every process must be given the same server key;"
    " make one with `comptoir secret-key`"
)
TOO_SHORT = (
    "COMPTOIR_SECRET_KEY is too short: on PostgreSQL it must be at least 32 bytes; make one with `comptoir secret-key`"
)


@pytest.fixture
def fresh_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("COMPTOIR_"):
            monkeypatch.delenv(name)
    return tmp_path


def test_a_server_process_making_its_own_key_on_postgresql_is_refused(
    fresh_directory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPTOIR_DATABASE_URL", TEST_POSTGRES_URL)
    with pytest.raises(ServerKeyError) as refused:
        app_from_environment()  # what each uvicorn process of `serve --workers N` runs
    assert str(refused.value) == UNSET
    assert list(fresh_directory.iterdir()) == []


@pytest.mark.parametrize("key", ["k" * 31, "é" * 15 + "k"])  # bytes, not characters: 31 each
def test_a_short_server_key_is_refused_on_postgresql(fresh_directory: Path, key: str) -> None:
    settings = Settings(database_url=TEST_POSTGRES_URL, secret_key=key)
    with pytest.raises(ServerKeyError) as refused:
        create_app(settings)
    assert str(refused.value) == TOO_SHORT
    with pytest.raises(ServerKeyError):
        settings.server_key()
    assert list(fresh_directory.iterdir()) == []


@pytest.mark.parametrize("key", ["k" * 32, "é" * 16])
def test_a_key_of_32_bytes_serves_on_postgresql(fresh_directory: Path, key: str) -> None:
    settings = Settings(database_url=TEST_POSTGRES_URL, secret_key=key)
    assert settings.server_key_problem() is None
    assert settings.server_key() == key.encode()
    assert list(fresh_directory.iterdir()) == []


def test_on_sqlite_any_given_key_still_serves(fresh_directory: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{fresh_directory / 'comptoir.db'}", secret_key="k")
    assert settings.server_key() == b"k"
    assert list(fresh_directory.iterdir()) == []
