"""docs/api/callbacks-events.md "Delivery log": `comptoir admin delivery-log --token T`
prints the recent attempts."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta

from comptoir.config import Settings
from comptoir.connections.service import find_connection_by_token
from comptoir.db.engine import create_database
from comptoir.kit import clock, ids
from comptoir.models import DeliveryAttempt
from tests.cli.conftest import Result, refused
from tests.conftest import SECRET_KEY
from tests.factories import World


def seed(database_url: str) -> str:
    async def build() -> str:
        settings = Settings(database_url=database_url, secret_key=SECRET_KEY)
        db = create_database(settings, pool_size=1)
        world = World(db, settings.server_key())
        try:
            location = await world.location()
            token = await world.token("location[orders.read]", location=location)
            async with db.transaction() as session:
                connection = await find_connection_by_token(session, world.key, token)
                assert connection is not None
                now = clock.now()
                for n, (status, error, outcome) in enumerate(
                    [(503, None, "retry"), (None, "timeout", "retry"), (200, None, "acknowledged")], 1
                ):
                    session.add(
                        DeliveryAttempt(
                            connection_id=connection.id,
                            event_id=7,
                            attempt=n,
                            attempted_at=now + timedelta(seconds=n),
                            duration_ms=12,
                            url="https://pos.example/hook",
                            status_code=status,
                            error=error,
                            response_bytes=2 if status == 200 else None,
                            response_excerpt="ok" if status == 200 else None,
                            outcome=outcome,
                        )
                    )
            return token
        finally:
            await db.dispose()

    return asyncio.run(build())


def test_delivery_log_prints_recent_attempts_newest_first(cli: Callable[..., Result], database_url: str) -> None:
    token = seed(database_url)
    body = cli("admin", "delivery-log", "--token", token).json
    attempts = body["attempts"]
    assert [(a["attempt"], a["status_code"], a["error"], a["outcome"]) for a in attempts] == [
        (3, 200, None, "acknowledged"),
        (2, None, "timeout", "retry"),
        (1, 503, None, "retry"),
    ]
    assert attempts[0] == {
        "event_id": ids.encode("event", 7),
        "attempt": 3,
        "attempted_at": attempts[0]["attempted_at"],
        "duration_ms": 12,
        "url": "https://pos.example/hook",
        "status_code": 200,
        "error": None,
        "response_bytes": 2,
        "response_excerpt": "ok",
        "outcome": "acknowledged",
    }
    assert attempts[0]["attempted_at"].endswith("+00:00")
    assert len(cli("admin", "delivery-log", "--token", token, "--limit", "2").json["attempts"]) == 2


def test_delivery_log_of_an_unknown_token_is_refused(cli: Callable[..., Result]) -> None:
    refused(cli("admin", "delivery-log", "--token", "nope"), "no connection has that token")
