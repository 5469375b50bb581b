"""docs/operations.md "Retention": request log lines, delivery attempts and events done are
kept for their setting's time, exactly: a row older than that goes, a row exactly that old
stays until the next run, a pending event stays whatever its age, and a backlog larger than
one batch goes in one run."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select, update

from comptoir import events
from comptoir.db.engine import Database
from comptoir.jobs.timed import Retention, purge_history, purge_logs
from comptoir.kit import clock
from comptoir.models import DeliveryAttempt, Event, RequestLog
from tests.factories import World
from tests.retention_rows import add_delivery_attempts, add_request_logs, subscribed_connection

KEPT = timedelta(hours=12)  # COMPTOIR_..._RETENTION_DAYS=0.5
AGES = {"older": KEPT + timedelta(seconds=1), "at": KEPT, "younger": KEPT - timedelta(seconds=1)}


@pytest.fixture(autouse=True)
def _frozen() -> None:
    clock.freeze()


async def test_request_log_lines_older_than_the_setting_go_and_one_exactly_that_old_stays(
    database: Database, world: World
) -> None:
    connection_id, _ = await subscribed_connection(world)
    await add_request_logs(database, connection_id, AGES)
    assert await purge_logs(database, Retention(request_log=KEPT)) == 1
    async with database.transaction(write=False) as session:
        assert sorted(await session.scalars(select(RequestLog.request_id))) == ["at", "younger"]


async def test_delivery_attempts_older_than_the_setting_go_and_one_exactly_that_old_stays(
    database: Database, world: World
) -> None:
    connection_id, _ = await subscribed_connection(world)
    await add_delivery_attempts(database, connection_id, AGES)
    assert await purge_history(database, Retention(delivery_log=KEPT)) == 1
    async with database.transaction(write=False) as session:
        urls = sorted(await session.scalars(select(DeliveryAttempt.url)))
    assert urls == ["https://x.example/at", "https://x.example/younger"]


async def test_events_done_longer_ago_than_the_setting_go_and_pending_ones_stay_whatever_their_age(
    database: Database, world: World
) -> None:
    _, location = await subscribed_connection(world)
    clock.travel(-timedelta(days=400))  # every event created 400 days ago
    for _ in range(4):
        async with database.transaction() as session:
            await events.record(
                session, resource_type="location", event_type="update", ids={},
                account_id=location.account_id, location_id=location.id,
            )  # fmt: skip
    clock.travel(timedelta(days=400))
    now = clock.now()
    async with database.transaction() as session:
        older, at, younger, pending = list(await session.scalars(select(Event.id).order_by(Event.id)))
        for event_id, age in ((older, AGES["older"]), (at, AGES["at"]), (younger, AGES["younger"])):
            await session.execute(
                update(Event).where(Event.id == event_id).values(done_at=now - age, next_attempt_at=None)
            )
    await purge_history(database, Retention(events=KEPT))
    async with database.transaction(write=False) as session:
        assert list(await session.scalars(select(Event.id).order_by(Event.id))) == [at, younger, pending]


async def test_a_backlog_larger_than_a_batch_goes_in_one_run_batch_by_batch(database: Database, world: World) -> None:
    connection_id, _ = await subscribed_connection(world)
    old = {f"old{i}": timedelta(days=8) for i in range(7)}
    await add_request_logs(database, connection_id, old | {"new": timedelta(days=1)})
    await add_delivery_attempts(database, connection_id, old | {"new": timedelta(days=1)})
    retention = Retention(request_log=timedelta(days=7), delivery_log=timedelta(days=7), batch=2)
    assert await purge_logs(database, retention) == 7
    assert await purge_history(database, retention) == 7
    async with database.transaction(write=False) as session:
        assert list(await session.scalars(select(RequestLog.request_id))) == ["new"]
        assert list(await session.scalars(select(DeliveryAttempt.url))) == ["https://x.example/new"]
