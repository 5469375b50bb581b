"""docs/operations.md "Retention": the delivery log is kept 30 days; changes go with it
unless an event still needs them."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select

from comptoir import events
from comptoir.db.engine import Database
from comptoir.jobs.timed import purge_history
from comptoir.kit import clock
from comptoir.models import Change, ChangePerson, DeliveryAttempt, Event
from tests.factories import World


async def test_old_attempts_and_unneeded_changes_are_purged(database: Database, world: World) -> None:
    location = await world.location()
    token = await world.token("location[orders.read]", location=location)
    from comptoir.connections.service import find_connection_by_token

    await world.subscribe(token, None, {"location": ["update"]})
    async with database.transaction() as session:
        connection = await find_connection_by_token(session, world.key, token)
        assert connection is not None
        now = clock.now()
        for age in (31, 29):
            session.add(
                DeliveryAttempt(
                    connection_id=connection.id,
                    event_id=1,
                    attempt=1,
                    attempted_at=now - timedelta(days=age),
                    duration_ms=1,
                    url="https://x.example",
                    outcome="acknowledged",
                )
            )

    async def location_update() -> None:
        async with database.transaction() as session:
            await events.record(
                session, resource_type="location", event_type="update", ids={},
                account_id=location.account_id, location_id=location.id,
            )  # fmt: skip

    clock.travel(timedelta(days=-40))
    await location_update()  # an old change with a pending event
    await world.subscribe(token, None, {})
    await location_update()  # an old change without one
    clock.reset()
    assert await purge_history(database) == 2
    async with database.transaction(write=False) as session:
        assert await session.scalar(select(func.count()).select_from(DeliveryAttempt)) == 1
        assert await session.scalar(select(func.count()).select_from(Change)) == 1
        assert await session.scalar(select(func.count()).select_from(Event)) == 1
    assert await purge_history(database) == 0


async def test_a_revoked_connections_pending_events_are_purged_and_a_blocked_ones_kept(
    database: Database, world: World
) -> None:
    """docs/api/callbacks-events.md "How long events live": revoking ends a connection's
    events (the hourly purge deletes those pending); blocking only pauses their delivery."""
    from comptoir.connections.service import find_connection_by_token, revoke, set_blocked

    location = await world.location()
    revoked = await world.token("location[orders.read]", location=location, client=await world.client(name="A"))
    blocked = await world.token("location[orders.read]", location=location, client=await world.client(name="B"))
    for token in (revoked, blocked):
        await world.subscribe(token, None, {"location": ["update"]})
    async with database.transaction() as session:
        await events.record(
            session, resource_type="location", event_type="update", ids={},
            account_id=location.account_id, location_id=location.id,
        )  # fmt: skip
    async with database.transaction() as session:
        gone = await find_connection_by_token(session, world.key, revoked)
        paused = await find_connection_by_token(session, world.key, blocked)
        assert gone is not None
        assert paused is not None
        await revoke(session, gone)
        await set_blocked(session, paused, True)
    assert await purge_history(database) == 1
    async with database.transaction(write=False) as session:
        assert list(await session.scalars(select(Event.connection_id))) == [paused.id]


async def test_events_done_more_than_30_days_ago_are_purged_with_their_changes(
    database: Database, world: World
) -> None:
    """docs/operations.md "Retention": an event delivered or given up is kept 30 days for
    resends, then purged, and its change with it; pending events and recent ones stay."""
    from sqlalchemy import update

    location = await world.location()
    token = await world.token("location[orders.read]", location=location)
    await world.subscribe(token, None, {"location": ["update"]})
    for _ in range(3):
        async with database.transaction() as session:
            await events.record(
                session, resource_type="location", event_type="update", ids={},
                account_id=location.account_id, location_id=location.id,
            )  # fmt: skip
    clock.travel(timedelta(days=-40))  # every change 40 days old
    async with database.transaction() as session:
        await session.execute(update(Change).values(created_at=clock.now()))
    clock.reset()
    async with database.transaction() as session:
        old, recent, pending = list(await session.scalars(select(Event.id).order_by(Event.id)))
        now = clock.now()
        for event_id, done in ((old, now - timedelta(days=30, seconds=1)), (recent, now - timedelta(days=29))):
            await session.execute(update(Event).where(Event.id == event_id).values(done_at=done, next_attempt_at=None))
    assert await purge_history(database) == 2  # the old done event, then its change
    async with database.transaction(write=False) as session:
        assert list(await session.scalars(select(Event.id).order_by(Event.id))) == [recent, pending]
        assert await session.scalar(select(func.count()).select_from(Change)) == 2
    assert await purge_history(database) == 0


async def test_the_person_of_a_purged_change_goes_with_it(database: Database, world: World) -> None:
    """docs/back-office.md "Orders", History: `change_people` names who made a change from the
    back office; a purged change takes its row along (both databases)."""
    location = await world.location()
    owner = await world.user(email="cook@example.com")
    clock.travel(timedelta(days=-40))
    async with database.transaction() as session:
        change = await events.record(
            session, resource_type="location", event_type="update", ids={},
            account_id=location.account_id, location_id=location.id,
        )  # fmt: skip
        session.add(ChangePerson(change_id=change.id, user_id=owner.id))
    clock.reset()
    assert await purge_history(database) == 1
    async with database.transaction(write=False) as session:
        assert await session.scalar(select(func.count()).select_from(ChangePerson)) == 0
