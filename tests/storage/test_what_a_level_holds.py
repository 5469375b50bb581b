"""spec 2.4, 2.6: what a location or an account holds, one rule in two forms
(`core.levels.holds` in memory, `holds_sql` as a condition): for every holder and every
catalog, both answer alike, on both databases."""

from __future__ import annotations

from sqlalchemy import select

from comptoir.core import levels
from comptoir.db.engine import Database
from comptoir.models import Catalog
from tests.factories import World


async def test_the_condition_and_the_check_agree_for_every_holder_and_row(database: Database, world: World) -> None:
    ada, bob = await world.account(name="Ada"), await world.account(name="Bob")
    paris, lyon = await world.location(ada, name="Paris"), await world.location(ada, name="Lyon")
    nice = await world.location(bob, name="Nice")
    rows = [
        await world.catalog(account=ada, name="Ada's"),
        await world.catalog(location=paris, name="Paris's"),
        await world.catalog(location=lyon, name="Lyon's"),
        await world.catalog(account=bob, name="Bob's"),
        await world.catalog(location=nice, name="Nice's"),
    ]
    holders = [(ada.id, None), (ada.id, paris.id), (ada.id, lyon.id), (bob.id, None), (bob.id, nice.id)]
    names = {row.id: row.name for row in rows}
    seen = {}
    async with database.transaction(write=False) as session:
        for account_id, location_id in holders:
            condition = levels.holds_sql(Catalog, account_id, location_id)
            in_sql = set(await session.scalars(select(Catalog.id).where(condition)))
            in_memory = {r.id for r in rows if levels.holds(account_id, location_id, r.account_id, r.location_id)}
            assert in_sql == in_memory, (account_id, location_id)
            seen[(account_id, location_id)] = sorted(names[pk] for pk in in_sql)
    assert seen == {
        (ada.id, None): ["Ada's"],
        (ada.id, paris.id): ["Ada's", "Paris's"],
        (ada.id, lyon.id): ["Ada's", "Lyon's"],
        (bob.id, None): ["Bob's"],
        (bob.id, nice.id): ["Bob's", "Nice's"],
    }
