"""`comptoir rotate-key` (docs/operations.md "Server key"): a new server key is accepted
beside the current one, then alone, and every secret and id made before stays the same; a
refused rotation changes nothing. On SQLite without COMPTOIR_SECRET_KEY the key file is the
server key."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from comptoir.config import KEY_FILE_NAME, Settings
from comptoir.db.engine import create_database
from comptoir.db.migrate import alembic_config
from tests.cli.conftest import Result, refused
from tests.conftest import SECRET_KEY

KEY_B = "another-server-key-at-least-32-bytes"
MISMATCH = (
    "COMPTOIR_SECRET_KEY does not match this database's key: give a server key this database"
    ' accepts (docs/operations.md "Server key")'
)
NEW_KEY_UNSET = (
    "COMPTOIR_NEW_SECRET_KEY is not set: give the new server key there or on stdin with"
    " --new-key-stdin; make one with `comptoir secret-key`"
)
Cli = Callable[..., Result]


def test_a_new_key_opens_the_same_data_key_and_the_old_one_until_retired(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    demo = cli("demo").json
    monkeypatch.setenv("COMPTOIR_NEW_SECRET_KEY", KEY_B)
    assert cli("rotate-key").json == {"wraps": 2}
    monkeypatch.delenv("COMPTOIR_NEW_SECRET_KEY")
    assert cli("demo").json == demo  # under the old key, still accepted
    monkeypatch.setenv("COMPTOIR_SECRET_KEY", KEY_B)
    assert cli("demo").json == demo  # the same ids, client secret and tokens
    assert cli("admin", "delivery-log", "--token", demo["tokens"]["location"]).json == {"attempts": []}
    assert cli("rotate-key", "--retire-others").json == {"wraps": 1}
    assert cli("demo").json == demo


def test_the_retired_key_is_refused_and_changes_nothing(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, snapshot: Callable[[], dict[str, Any]]
) -> None:
    cli("demo")
    monkeypatch.setenv("COMPTOIR_NEW_SECRET_KEY", KEY_B)
    cli("rotate-key")
    monkeypatch.setenv("COMPTOIR_SECRET_KEY", KEY_B)
    cli("rotate-key", "--retire-others")
    monkeypatch.setenv("COMPTOIR_SECRET_KEY", SECRET_KEY)
    before = snapshot()
    refused(cli("admin", "create-user", "--email", "new@example.com", "--password", "long-enough"), MISMATCH)
    refused(cli("migrate"), MISMATCH)
    assert snapshot() == before


def test_an_unknown_key_is_refused_and_changes_nothing(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, snapshot: Callable[[], dict[str, Any]]
) -> None:
    cli("demo")
    before = snapshot()
    monkeypatch.setenv("COMPTOIR_SECRET_KEY", KEY_B)
    refused(cli("demo"), MISMATCH)
    monkeypatch.setenv("COMPTOIR_NEW_SECRET_KEY", SECRET_KEY)  # the unknown key may not add itself
    refused(cli("rotate-key"), MISMATCH)
    assert snapshot() == before


def test_rotate_key_without_a_new_key_is_refused_and_changes_nothing(
    cli: Cli, snapshot: Callable[[], dict[str, Any]]
) -> None:
    cli("migrate")
    before = snapshot()
    refused(cli("rotate-key"), NEW_KEY_UNSET)
    assert snapshot() == before


def test_an_empty_key_on_stdin_is_refused_and_changes_nothing(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, snapshot: Callable[[], dict[str, Any]]
) -> None:
    cli("migrate")
    before = snapshot()
    monkeypatch.setattr("sys.stdin", io.StringIO("\n"))
    refused(cli("rotate-key", "--new-key-stdin"), "the new key on stdin is empty")
    assert snapshot() == before


def test_a_short_new_key_is_refused_on_both_databases_and_changes_nothing(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, snapshot: Callable[[], dict[str, Any]]
) -> None:
    cli("migrate")
    before = snapshot()
    monkeypatch.setenv("COMPTOIR_NEW_SECRET_KEY", "k" * 31)
    refused(
        cli("rotate-key"),
        "COMPTOIR_NEW_SECRET_KEY is too short: a new server key must be at least 32 bytes;"
        " make one with `comptoir secret-key`",
    )
    refused(
        cli("rotate-key", "--new-data-key"),
        "COMPTOIR_NEW_SECRET_KEY is too short: a new server key must be at least 32 bytes;"
        " make one with `comptoir secret-key`",
    )
    monkeypatch.setattr("sys.stdin", io.StringIO("12345\n"))
    refused(
        cli("rotate-key", "--new-key-stdin"),
        "the new key on stdin is too short: a new server key must be at least 32 bytes;"
        " make one with `comptoir secret-key`",
    )
    assert snapshot() == before


def test_a_new_key_of_32_bytes_is_accepted(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    demo = cli("demo").json
    monkeypatch.setenv("COMPTOIR_NEW_SECRET_KEY", "k" * 32)
    assert cli("rotate-key").json == {"wraps": 2}
    monkeypatch.setenv("COMPTOIR_SECRET_KEY", "k" * 32)
    assert cli("demo").json == demo


@pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
def test_on_sqlite_a_short_current_key_keeps_working_and_rotates_to_a_long_one(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPTOIR_SECRET_KEY", "short")  # given before the rule for new keys
    demo = cli("demo").json
    monkeypatch.setenv("COMPTOIR_NEW_SECRET_KEY", KEY_B)
    assert cli("rotate-key").json == {"wraps": 2}
    monkeypatch.delenv("COMPTOIR_NEW_SECRET_KEY")
    monkeypatch.setenv("COMPTOIR_SECRET_KEY", KEY_B)
    assert cli("rotate-key", "--retire-others").json == {"wraps": 1}
    assert cli("demo").json == demo


def test_the_new_key_is_read_from_stdin(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    demo = cli("demo").json
    monkeypatch.setattr("sys.stdin", io.StringIO(KEY_B + "\n"))
    assert cli("rotate-key", "--new-key-stdin").json == {"wraps": 2}
    monkeypatch.setenv("COMPTOIR_SECRET_KEY", KEY_B)
    assert cli("demo").json == demo


def test_retire_others_takes_no_new_key(cli: Cli, snapshot: Callable[[], dict[str, Any]]) -> None:
    cli("migrate")
    before = snapshot()
    refused(
        cli("rotate-key", "--retire-others", "--new-key-stdin"),
        "--retire-others takes no new key: run it with the new key as COMPTOIR_SECRET_KEY",
    )
    assert snapshot() == before


def test_a_token_made_before_the_wraps_existed_still_works(cli: Cli, database_url: str) -> None:
    """A database upgraded from before migration 0025: the server key becomes its data key."""
    demo = cli("demo").json
    migrate_to(database_url, "0024")
    migrate_to(database_url, "head")
    assert cli("admin", "delivery-log", "--token", demo["tokens"]["location"]).json == {"attempts": []}
    assert cli("demo").json == demo


def test_a_new_data_key_logs_everyone_out(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    demo = cli("demo").json
    monkeypatch.setenv("COMPTOIR_NEW_SECRET_KEY", KEY_B)
    assert cli("rotate-key", "--new-data-key").json == {"wraps": 1}
    refused(cli("demo"), MISMATCH)
    monkeypatch.setenv("COMPTOIR_SECRET_KEY", KEY_B)
    refused(cli("admin", "delivery-log", "--token", demo["tokens"]["location"]), "no connection has that token")
    again = cli("demo").json
    assert again["location_ids"] == demo["location_ids"]  # ids stay: they are not secrets
    assert again["client"]["client_secret"] != demo["client"]["client_secret"]


@pytest.mark.parametrize("db_kind", ["sqlite"], indirect=True)
def test_on_sqlite_the_key_file_is_rotated_by_writing_the_new_key_to_it(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, database_url: str
) -> None:
    monkeypatch.delenv("COMPTOIR_SECRET_KEY")
    key_file = Path(database_url.split(":///", 1)[1]).parent / KEY_FILE_NAME
    demo = cli("demo").json
    old = key_file.read_text()
    monkeypatch.setenv("COMPTOIR_NEW_SECRET_KEY", KEY_B)
    assert cli("rotate-key").json == {"wraps": 2}
    monkeypatch.delenv("COMPTOIR_NEW_SECRET_KEY")
    key_file.write_text(KEY_B + "\n")
    assert cli("demo").json == demo
    assert cli("rotate-key", "--retire-others").json == {"wraps": 1}
    key_file.write_text(old)
    refused(cli("demo"), MISMATCH)


def migrate_to(url: str, revision: str) -> None:
    from alembic import command

    async def run() -> None:
        db = create_database(Settings(database_url=url, secret_key=SECRET_KEY), pool_size=1)
        try:
            async with db.engine.begin() as connection:
                if revision == "head":
                    await connection.run_sync(lambda sync: command.upgrade(alembic_config(sync), "head"))
                else:
                    await connection.run_sync(lambda sync: command.downgrade(alembic_config(sync), revision))
        finally:
            await db.dispose()

    asyncio.run(run())
