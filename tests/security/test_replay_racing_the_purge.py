"""A replay racing the retention purge (docs/operations.md "Retention", docs/api/callbacks-events.md
"Testing, resending and replaying"): the purge selects events done longer ago than the
retention, a replay makes them pending again, and the purge's DELETE must not take them then.
The DELETE states its condition again, so a replayed event stays, on both databases."""

# ruff: noqa: F811 - the API's fixtures are imported, then named as parameters
from __future__ import annotations

import asyncio
import time
from datetime import datetime, timedelta

import httpx
import pytest
from sqlalchemy import func, select, text, update

from comptoir.callbacks import repository as callbacks
from comptoir.callbacks.service import replay
from comptoir.db.engine import Database
from comptoir.jobs.timed import Retention, purge_history
from comptoir.kit import clock, ids
from comptoir.models import Change, Event
from tests.api.callbacks.conftest import Listener, listener, subscribe, touch_location  # noqa: F401
from tests.api.callbacks.test_delivery import connection_id, listed
from tests.api.conftest import Shop, app, client, shop, world  # noqa: F401 - the API's fixtures
from tests.factories import World

AGE = timedelta(days=40)  # older than the 30 days events are kept once done


async def delivered_long_ago(client: httpx.AsyncClient, shop: Shop, database: Database, count: int) -> datetime:
    """`count` events of the listener (an active callback no worker serves), made and done
    40 days ago; when they were made."""
    for minutes in range(count):
        await touch_location(client, shop, 80 + minutes)
    made = clock.now() - AGE
    async with database.transaction() as session:
        await session.execute(update(Change).where(Change.resource_type == "location").values(created_at=made))
        await session.execute(update(Event).values(created_at=made, done_at=made, next_attempt_at=None))
    return made


async def replay_around(client: httpx.AsyncClient, listener: Listener, made: datetime) -> httpx.Response:
    span = {"from": (made - timedelta(seconds=1)).isoformat(), "to": (made + timedelta(seconds=1)).isoformat()}
    return await client.post("/v1/callback/replay", json=span, headers=listener.headers())


async def events_kept(database: Database) -> int:
    async with database.transaction(write=False) as session:
        return (await session.execute(select(func.count()).select_from(Event))).scalar_one()


async def test_a_replay_between_the_purges_selection_and_its_delete_keeps_the_replayed_events(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, database: Database
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]}, "http://127.0.0.1:9/hook")
    made = await delivered_long_ago(client, shop, database, 3)
    cutoff = clock.now() - Retention().events
    async with database.transaction() as session:  # the purge's selection
        batch = await callbacks.done_events(session, cutoff, 1000)
    assert len(batch) == 3
    replayed = await replay_around(client, listener, made)  # the replay
    assert (replayed.status_code, replayed.json()) == (202, {"count": 3})
    async with database.transaction() as session:  # the purge's delete
        assert await callbacks.delete_done(session, batch, cutoff) == 0
    assert [event["id"] for event in await listed(client, listener)] == [
        ids.encode(Event.KIND, pk) for pk in sorted(batch)
    ]
    assert await purge_history(database) == 0  # pending again: never deleted for their age
    assert await events_kept(database) == 3


async def test_the_purge_still_deletes_what_stayed_done(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, database: Database
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]}, "http://127.0.0.1:9/hook")
    await delivered_long_ago(client, shop, database, 2)
    cutoff = clock.now() - Retention().events
    async with database.transaction() as session:
        batch = await callbacks.done_events(session, cutoff, 1000)
    async with database.transaction() as session:
        assert await callbacks.delete_done(session, batch, cutoff) == 2
    assert await events_kept(database) == 0


async def _wait_for_a_blocked_delete(database: Database, within: float = 30) -> None:
    """Until a `DELETE FROM events` of this database waits for a row lock (PostgreSQL)."""
    blocked = text(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        "AND wait_event_type = 'Lock' AND query LIKE 'DELETE FROM events%'"
    )
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        async with database.transaction(write=False) as session:
            if (await session.execute(blocked)).scalar_one():
                return
        await asyncio.sleep(0.02)
    raise AssertionError("the purge never waited for the replay's row locks")


# SQLite runs one write transaction at a time: there the purge and a replay never overlap
@pytest.mark.parametrize("db_kind", ["postgresql"])
async def test_a_replay_committing_while_the_purge_deletes_keeps_the_replayed_events_on_postgresql(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, world: World, database: Database
) -> None:
    """The race as it happens: the replay has updated the events (not yet committed) when the
    purge's DELETE, which selected them as done, reaches them; it waits for the replay's
    locks, then finds them pending again and leaves them."""
    await subscribe(client, listener.token, {"location": ["update"]}, "http://127.0.0.1:9/hook")
    made = await delivered_long_ago(client, shop, database, 29)
    connection = await connection_id(world, listener)
    span = ((made - timedelta(seconds=1)).isoformat(), (made + timedelta(seconds=1)).isoformat())
    async with database.transaction() as session:
        assert await replay(session, connection, *span, charge=None) == {"count": 29}
        purge = asyncio.create_task(purge_history(database))
        await _wait_for_a_blocked_delete(database)
    # the replay has committed: the purge's DELETE goes on
    await asyncio.wait_for(purge, 30)
    assert await events_kept(database) == 29
    assert len(await listed(client, listener)) == 29
