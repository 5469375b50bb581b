"""docs/architecture.md "Transactions", "Events", "Concurrency": one transaction per write,
changes only for committed writes, concurrency protected by the database (atomic counters,
row locks, unique constraints)."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from comptoir import events
from comptoir.app import create_app
from comptoir.config import Settings
from comptoir.db.engine import Database
from comptoir.locations.service import create_location
from comptoir.models import Account, Location
from tests.factories import World
from tests.response_schemas import CheckedASGITransport


async def test_a_rolled_back_write_leaves_no_change(database: Database, world: World) -> None:
    location = await world.location()

    class Boom(Exception):
        pass

    async def write_then_fail() -> None:
        async with database.transaction() as session:
            row = await session.get(Location, location.id)
            assert row is not None
            row.preparation_time = 99
            await events.record(
                session,
                resource_type="location",
                event_type="update",
                ids={"location_id": location.public_id},
                account_id=location.account_id,
                location_id=location.id,
                new_state={},
                previous_state={},
            )
            await session.flush()
            raise Boom

    with pytest.raises(Boom):
        await write_then_fail()
    assert await world.changes() == []
    assert (await world.location_row(location)).preparation_time == 15


async def test_concurrent_location_creations_get_distinct_numbers(database: Database, world: World) -> None:
    account = await world.account()

    async def create(i: int) -> int:
        async with database.transaction() as session:
            fresh = await session.get(Account, account.id)
            assert fresh is not None
            return (await create_location(session, account=fresh, name=f"L{i}", timezone="UTC", country="FR")).number

    numbers = await asyncio.gather(*(create(i) for i in range(8)))
    assert sorted(numbers) == list(range(1, 9))


async def test_concurrent_custom_field_updates_lose_nothing(
    database: Database, world: World, settings: Settings
) -> None:
    location = await world.location()
    token = await world.token("location[orders.write]", location=location)
    app = create_app(settings, database=database, background=False)
    async with httpx.AsyncClient(transport=CheckedASGITransport(app=app), base_url="http://t") as client:
        responses = await asyncio.gather(
            *(
                client.patch("/v1/location", json={"custom_fields": {f"key{i}": i}}, headers={"X-Access-Token": token})
                for i in range(12)
            )
        )
        assert [r.status_code for r in responses] == [200] * 12
        final = (await client.get("/v1/location", headers={"X-Access-Token": token})).json()
    await app.state.comptoir.fast.close()
    assert final["custom_fields"] == {f"key{i}": i for i in range(12)}
    changes = await world.changes()
    assert len(changes) == 12
    # each recorded change starts from the state the previous one ended with
    assert sorted(len(c.previous_state["custom_fields"]) for c in changes) == list(range(12))


async def test_concurrent_authorisations_of_one_connection_give_one_token(database: Database, world: World) -> None:
    location = await world.location()
    client = await world.client()
    tokens = await asyncio.gather(
        *(world.token("location[orders.read]", location=location, client=client) for _ in range(6))
    )
    assert len(set(tokens)) == 1
