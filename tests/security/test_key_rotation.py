"""docs/operations.md "Server key": attacks on the wraps of the data key. A wrong server key
opens no wrap, an altered wrap opens for no key, a key the database does not accept can
neither add a key nor retire the others nor replace the data key, and the database holds
neither key in clear."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import select, update

from comptoir.app import create_app
from comptoir.config import Settings
from comptoir.db.engine import create_database
from comptoir.db.server_key import MISMATCH, KeyMismatch, unwrap, wrap
from comptoir.models import ServerKeyWrap
from tests.cli.conftest import Result, cli, refused, snapshot  # noqa: F401 - fixtures
from tests.conftest import SECRET_KEY

KEY_B = "another-server-key-at-least-32-bytes"
UNKNOWN = "a-key-this-database-never-accepted-0"
Cli = Callable[..., Result]
Snapshot = Callable[[], dict[str, Any]]


def wraps(url: str) -> list[bytes]:
    async def read() -> list[bytes]:
        db = create_database(Settings(database_url=url, secret_key=SECRET_KEY), pool_size=1)
        try:
            async with db.transaction(write=False) as session:
                return list((await session.scalars(select(ServerKeyWrap.wrapped).order_by(ServerKeyWrap.id))).all())
        finally:
            await db.dispose()

    return asyncio.run(read())


def alter_wraps(url: str, change: Callable[[bytes], bytes]) -> None:
    async def write() -> None:
        db = create_database(Settings(database_url=url, secret_key=SECRET_KEY), pool_size=1)
        try:
            async with db.transaction() as session:
                for row in (await session.execute(select(ServerKeyWrap.id, ServerKeyWrap.wrapped))).all():
                    await session.execute(
                        update(ServerKeyWrap).where(ServerKeyWrap.id == row.id).values(wrapped=change(row.wrapped))
                    )
        finally:
            await db.dispose()

    asyncio.run(write())


def test_a_wrong_key_cannot_unwrap() -> None:
    wrapped = wrap(SECRET_KEY.encode(), b"the data key")
    assert unwrap(SECRET_KEY.encode(), wrapped) == b"the data key"
    assert unwrap(KEY_B.encode(), wrapped) is None
    assert unwrap(SECRET_KEY.encode()[:-1], wrapped) is None
    assert unwrap(SECRET_KEY.encode(), b"") is None


def test_a_tampered_wrap_is_refused(
    cli: Cli,  # noqa: F811
    database_url: str,
) -> None:
    cli("migrate")
    alter_wraps(database_url, lambda wrapped: wrapped[:-1] + bytes([wrapped[-1] ^ 1]))
    refused(cli("demo"), MISMATCH)


def test_a_truncated_wrap_is_refused(
    cli: Cli,  # noqa: F811
    database_url: str,
) -> None:
    cli("migrate")
    alter_wraps(database_url, lambda wrapped: wrapped[:20])
    refused(cli("demo"), MISMATCH)


def test_the_database_holds_neither_key_in_clear(
    cli: Cli,  # noqa: F811
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cli("migrate")
    monkeypatch.setenv("COMPTOIR_NEW_SECRET_KEY", KEY_B)
    cli("rotate-key")
    stored = wraps(database_url)
    assert len(stored) == 2
    for wrapped in stored:
        assert SECRET_KEY.encode() not in wrapped
        assert KEY_B.encode() not in wrapped


def test_the_new_key_equal_to_the_current_one_adds_nothing(
    cli: Cli,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    snapshot: Snapshot,  # noqa: F811
) -> None:
    cli("migrate")
    before = snapshot()
    monkeypatch.setenv("COMPTOIR_NEW_SECRET_KEY", SECRET_KEY)
    assert cli("rotate-key").json == {"wraps": 1}
    assert snapshot() == before


@pytest.mark.parametrize(
    "argv", [["rotate-key"], ["rotate-key", "--retire-others"], ["rotate-key", "--new-data-key"]], ids=" ".join
)
def test_an_unknown_key_can_neither_add_nor_retire_keys_nor_replace_the_data_key(
    argv: list[str],
    cli: Cli,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    snapshot: Snapshot,  # noqa: F811
) -> None:
    cli("migrate")
    before = snapshot()
    monkeypatch.setenv("COMPTOIR_SECRET_KEY", UNKNOWN)
    monkeypatch.setenv("COMPTOIR_NEW_SECRET_KEY", UNKNOWN)
    refused(cli(*argv), MISMATCH)
    assert snapshot() == before


async def test_an_app_with_an_unknown_key_refuses_to_start(settings: Settings) -> None:
    first = create_app(settings, background=False)
    async with first.router.lifespan_context(first):  # makes the first wrap, under SECRET_KEY
        pass
    app = create_app(settings.model_copy(update={"secret_key": UNKNOWN}), background=False)
    with pytest.raises(KeyMismatch) as refusal:
        async with app.router.lifespan_context(app):
            pass
    assert str(refusal.value) == MISMATCH
