"""Migration 0028 on a database holding a catalog without its content row (made before
content was stored, or by an earlier version's demo): the catalog gets the row an empty
catalog is made with, and a catalog with content keeps its own, untouched."""

from __future__ import annotations

from sqlalchemy import select, text

from comptoir.catalogs import repository
from comptoir.catalogs.content import EMPTY_DATA
from comptoir.db.engine import Database
from comptoir.models.catalog_content import CatalogContent
from tests.factories import World
from tests.storage.migrating import migrate


async def _contents(database: Database) -> dict[int, tuple[str, int, list[str], list[str], list[str]]]:
    async with database.transaction(write=False) as session:
        rows = (await session.execute(select(CatalogContent))).scalars().all()
        return {r.catalog_id: (r.data, r.tag, r.sku_refs, r.option_refs, r.image_ids) for r in rows}


async def test_a_catalog_without_content_gets_an_empty_one_and_others_keep_theirs(
    database: Database, world: World
) -> None:
    await migrate(database, "0027")
    account = await world.account()
    bare = await world.catalog(account=account, name="Made before content")
    kept = await world.catalog(account=account, name="With content")
    async with database.transaction() as session:
        await session.execute(text("DELETE FROM catalog_contents WHERE catalog_id = :id"), {"id": bare.id})
        await session.execute(
            text("UPDATE catalog_contents SET data = :data, tag = 7 WHERE catalog_id = :id"),
            {"data": '{"kept": true}', "id": kept.id},
        )
    await migrate(database, "head")
    contents = await _contents(database)
    assert contents[kept.id] == ('{"kept": true}', 7, [], [], [])
    data, tag, sku_refs, option_refs, image_ids = contents[bare.id]
    assert (data, sku_refs, option_refs, image_ids) == (EMPTY_DATA, [], [], [])
    assert 0 <= tag < 2**62
    async with database.transaction(write=False) as session:
        assert await repository.stored_data(session, bare.id) == EMPTY_DATA
        assert await repository.content_refs(session, bare.id) == {"sku": set(), "option": set()}
