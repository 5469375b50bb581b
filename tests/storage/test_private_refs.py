"""spec 2.2 item 7: a private ref is visible only to the client that set it; another client
reads null and may set its own; refs are usable as filters."""

from __future__ import annotations

from sqlalchemy import select

from comptoir.core.private_refs import refs_for, set_ref
from comptoir.core.repository import private_ref_filter
from comptoir.db.engine import Database
from comptoir.models import Location
from tests.factories import World


async def test_each_client_sees_only_its_own_ref(database: Database, world: World) -> None:
    first, second = await world.client(name="A"), await world.client(name="B")
    location = await world.location()
    async with database.transaction() as session:
        await set_ref(session, "location", location.id, first.id, "A-1")
    async with database.transaction() as session:
        assert await refs_for(session, "location", [location.id], first.id) == {location.id: "A-1"}
        assert await refs_for(session, "location", [location.id], second.id) == {}
        await set_ref(session, "location", location.id, second.id, "B-1")
    async with database.transaction() as session:
        assert await refs_for(session, "location", [location.id], first.id) == {location.id: "A-1"}
        assert await refs_for(session, "location", [location.id], second.id) == {location.id: "B-1"}


async def test_setting_again_replaces_and_none_clears(database: Database, world: World) -> None:
    client = await world.client()
    location = await world.location()
    async with database.transaction() as session:
        await set_ref(session, "location", location.id, client.id, "one")
        await set_ref(session, "location", location.id, client.id, "two")
    async with database.transaction() as session:
        assert await refs_for(session, "location", [location.id], client.id) == {location.id: "two"}
        await set_ref(session, "location", location.id, client.id, None)
    async with database.transaction() as session:
        assert await refs_for(session, "location", [location.id], client.id) == {}


async def test_refs_filter_lists_per_client(database: Database, world: World) -> None:
    first, second = await world.client(name="A"), await world.client(name="B")
    account = await world.account()
    tagged = await world.location(account, name="Tagged")
    await world.location(account, name="Untagged")
    async with database.transaction() as session:
        await set_ref(session, "location", tagged.id, first.id, "shared-ref")
    async with database.transaction() as session:
        names = (
            await session.scalars(
                select(Location.name).where(private_ref_filter("location", Location.id, first.id, "shared-ref"))
            )
        ).all()
        assert names == ["Tagged"]
        assert (
            await session.scalars(
                select(Location.name).where(private_ref_filter("location", Location.id, second.id, "shared-ref"))
            )
        ).all() == []
