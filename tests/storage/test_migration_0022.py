"""Migration 0022 on a database whose users' emails were stored under the former rules
(stripped and lower-cased): each is rewritten as the email rules spell it
(docs/api/oauth.md "Emails"); two that become one address stop the migration, changing
nothing."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from comptoir.db.engine import Database
from comptoir.users.service import find_user_by_email
from tests.factories import World
from tests.storage.migrating import migrate


async def _users_with(world: World, emails: list[str]) -> list[int]:
    """Users stored with exactly these emails (as an older version could store them)."""
    ids = []
    for email in emails:
        user = await world.user()
        async with world.db.transaction() as session:
            await session.execute(
                text("UPDATE users SET email = :email WHERE id = :id"), {"email": email, "id": user.id}
            )
        ids.append(user.id)
    return ids


async def _emails(database: Database) -> list[tuple[int, str]]:
    async with database.transaction(write=False) as session:
        return [tuple(row) for row in (await session.execute(text("SELECT id, email FROM users ORDER BY id"))).all()]


async def _revision(database: Database) -> str:
    async with database.transaction(write=False) as session:
        return str(await session.scalar(text("SELECT version_num FROM alembic_version")))


async def test_upgrading_rewrites_emails_as_the_rules_spell_them(database: Database, world: World) -> None:
    await migrate(database, "0021")
    stored = [
        "kate838@example.com.",
        "ｂｏｂ@example.com",
        "müller@xn--exmple-cua.com",
        "ada@example.com",
        "eve@example.com\u200b",  # refused by the rules: kept as it is
    ]
    ids = await _users_with(world, stored)
    await migrate(database, "head")
    assert await _emails(database) == list(
        zip(
            ids,
            [
                "kate838@example.com",
                "bob@example.com",
                "müller@exämple.com",
                "ada@example.com",
                "eve@example.com\u200b",
            ],
            strict=True,
        )
    )
    async with database.transaction(write=False) as session:
        kept = await find_user_by_email(session, "eve@example.com\u200b")
        assert kept is not None  # still logs in with exactly that spelling
        assert kept.id == ids[4]
        found = await find_user_by_email(session, "Müller@Exämple.com")
        assert found is not None
        assert found.id == ids[2]


async def test_two_emails_that_become_one_address_stop_the_migration(database: Database, world: World) -> None:
    await migrate(database, "0021")
    ids = await _users_with(world, ["kate838@example.com", "kate838@example.com.", "ｂｏｂ@example.com"])
    before = await _emails(database)
    with pytest.raises(Exception, match="migration 0022 stopped") as stopped:
        await migrate(database, "head")
    assert str(stopped.value) == (
        "migration 0022 stopped: these users' emails are one address under the email rules "
        "(docs/api/oauth.md, Emails): "
        f"kate838@example.com: user {ids[0]} (kate838@example.com), user {ids[1]} (kate838@example.com.). "
        "Change or remove all but one of each, then upgrade again."
    )
    assert await _emails(database) == before
    assert await _revision(database) == "0021"
    # the PostgreSQL database is shared by the tests that follow: at head again, without the pair
    async with database.transaction() as session:
        await session.execute(text("DELETE FROM users WHERE id = :id"), {"id": ids[1]})
    await migrate(database, "head")
