"""docs/operations.md "Retention": request log lines, delivery attempts and events done are
kept for their setting's time, exactly: a row older than that goes, a row exactly that old
stays until the next run, a pending event stays whatever its age, and a backlog larger than
one batch goes in one run."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select, update

from comptoir import events
from comptoir.connections.service import find_connection_by_token
from comptoir.db.engine import Database
from comptoir.jobs.timed import Retention, purge_history, purge_logs
from comptoir.kit import clock
from comptoir.models import DeliveryAttempt, Event, RequestLog
from tests.factories import World

KEPT = timedelta(hours=12)  # COMPTOIR_..._RETENTION_DAYS=0.5
AGES = {"older": KEPT + timedelta(seconds=1), "at": KEPT, "younger": KEPT - timedelta(seconds=1)}


async def _connection(world: World) -> tuple[int, Any]:
    """A connection subscribed to its location's updates: its id, and the location."""
    location = await world.location()
    token = await world.token("location[orders.read]", location=location)
    await world.subscribe(token, None, {"location": ["update"]})
    async with world.db.transaction() as session:
        connection = await find_connection_by_token(session, world.key, token)
        assert connection is not None
        return connection.id, location


async def _add_logs(database: Database, connection_id: int, ages: dict[str, timedelta]) -> None:
    now = clock.now()
    async with database.transaction() as session:
        for name, age in ages.items():
            session.add(
                RequestLog(
                    connection_id=connection_id, at=now - age, request_id=name, method="GET", path="/v1/location",
                    status=200, duration_ms=1, request_body="", request_bytes=0, response_body="", response_bytes=0,
                )
            )  # fmt: skip


async def _add_attempts(database: Database, connection_id: int, ages: dict[str, timedelta]) -> None:
    now = clock.now()
    async with database.transaction() as session:
        for name, age in ages.items():
            session.add(
                DeliveryAttempt(
                    connection_id=connection_id, event_id=1, attempt=1, attempted_at=now - age, duration_ms=1,
                    url=f"https://x.example/{name}", outcome="acknowledged",
                )
            )  # fmt: skip


@pytest.fixture(autouse=True)
def _frozen() -> None:
    clock.freeze()


async def test_request_log_lines_older_than_the_setting_go_and_one_exactly_that_old_stays(
    database: Database, world: World
) -> None:
    connection_id, _ = await _connection(world)
    await _add_logs(database, connection_id, AGES)
    assert await purge_logs(database, Retention(request_log=KEPT)) == 1
    async with database.transaction(write=False) as session:
        assert sorted(await session.scalars(select(RequestLog.request_id))) == ["at", "younger"]


async def test_delivery_attempts_older_than_the_setting_go_and_one_exactly_that_old_stays(
    database: Database, world: World
) -> None:
    connection_id, _ = await _connection(world)
    await _add_attempts(database, connection_id, AGES)
    assert await purge_history(database, Retention(delivery_log=KEPT)) == 1
    async with database.transaction(write=False) as session:
        urls = sorted(await session.scalars(select(DeliveryAttempt.url)))
    assert urls == ["https://x.example/at", "https://x.example/younger"]


async def test_events_done_longer_ago_than_the_setting_go_and_pending_ones_stay_whatever_their_age(
    database: Database, world: World
) -> None:
    _, location = await _connection(world)
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
    connection_id, _ = await _connection(world)
    old = {f"old{i}": timedelta(days=8) for i in range(7)}
    await _add_logs(database, connection_id, old | {"new": timedelta(days=1)})
    await _add_attempts(database, connection_id, old | {"new": timedelta(days=1)})
    retention = Retention(request_log=timedelta(days=7), delivery_log=timedelta(days=7), batch=2)
    assert await purge_logs(database, retention) == 7
    assert await purge_history(database, retention) == 7
    async with database.transaction(write=False) as session:
        assert list(await session.scalars(select(RequestLog.request_id))) == ["new"]
        assert list(await session.scalars(select(DeliveryAttempt.url))) == ["https://x.example/new"]
