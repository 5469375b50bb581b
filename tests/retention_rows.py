"""Rows of the tables the retention purge deletes from, at given ages (docs/operations.md
"Retention")."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from comptoir.connections.service import find_connection_by_token
from comptoir.db.engine import Database
from comptoir.kit import clock
from comptoir.models import DeliveryAttempt, RequestLog
from tests.factories import World


async def subscribed_connection(world: World) -> tuple[int, Any]:
    """A connection subscribed to its location's updates: its id, and the location."""
    location = await world.location()
    token = await world.token("location[orders.read]", location=location)
    await world.subscribe(token, None, {"location": ["update"]})
    async with world.db.transaction() as session:
        connection = await find_connection_by_token(session, world.key, token)
        assert connection is not None
        return connection.id, location


async def add_request_logs(database: Database, connection_id: int, ages: dict[str, timedelta]) -> None:
    now = clock.now()
    async with database.transaction() as session:
        for name, age in ages.items():
            session.add(
                RequestLog(
                    connection_id=connection_id, at=now - age, request_id=name, method="GET", path="/v1/location",
                    status=200, duration_ms=1, request_body="", request_bytes=0, response_body="", response_bytes=0,
                )
            )  # fmt: skip


async def add_delivery_attempts(database: Database, connection_id: int, ages: dict[str, timedelta]) -> None:
    now = clock.now()
    async with database.transaction() as session:
        for name, age in ages.items():
            session.add(
                DeliveryAttempt(
                    connection_id=connection_id, event_id=1, attempt=1, attempted_at=now - age, duration_ms=1,
                    url=f"https://x.example/{name}", outcome="acknowledged",
                )
            )  # fmt: skip
