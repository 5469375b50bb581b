"""Migration 0004 on a database that already holds customer lists (and catalogs): their
names are claimed (comptoir.core.names), so the naming rules hold for the lists created later.
It also goes down again."""

from __future__ import annotations

from sqlalchemy import text

from comptoir.db.engine import Database
from tests.factories import World
from tests.storage.migrating import migrate


async def test_upgrading_claims_the_names_of_existing_lists_and_catalogs(database: Database, world: World) -> None:
    await migrate(database, "0003")
    paris = await world.location(name="Paris")
    lyon = await world.location(await world.account_of(paris), name="Lyon")
    async with database.transaction() as session:
        for table, name, location in (
            ("customer_lists", "Everyone", None),
            ("customer_lists", "Regulars", paris),
            ("customer_lists", "Regulars", lyon),
            ("catalogs", "Menu", paris),
        ):
            await session.execute(
                text(
                    f"INSERT INTO {table} (name, account_id, location_id, created_at)"
                    " VALUES (:name, :account, :location, CURRENT_TIMESTAMP)"
                ),
                {"name": name, "account": paris.account_id, "location": location.id if location else None},
            )
    await migrate(database, "head")
    async with database.transaction(write=False) as session:
        claims = (
            await session.execute(
                text("SELECT kind, account_id, name, account_level, holders FROM name_claims ORDER BY kind, name")
            )
        ).all()
    assert [tuple(row) for row in claims] == [
        ("catalog", paris.account_id, "Menu", False, 1),
        ("customer_list", paris.account_id, "Everyone", True, 1),
        ("customer_list", paris.account_id, "Regulars", False, 2),
    ]
