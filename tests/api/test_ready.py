"""docs/operations.md "Health and readiness": `/v1/ready` in process."""

from __future__ import annotations

import httpx
import structlog
from fastapi import FastAPI

from comptoir.app import create_app
from comptoir.config import Settings
from comptoir.db.engine import Database
from tests.e2e.conftest import free_port
from tests.response_schemas import CheckedASGITransport


async def test_ready_when_the_database_answers_and_is_migrated(client: httpx.AsyncClient) -> None:
    response = await client.get("/v1/ready")
    assert response.status_code == 200
    assert response.json() == {"status": "ready", "checks": {"database": "ok", "migrations": "ok"}}


async def test_not_ready_while_migrations_are_behind(client: httpx.AsyncClient, database: Database) -> None:
    from sqlalchemy import text

    async with database.transaction() as session:
        current = await session.scalar(text("SELECT version_num FROM alembic_version"))
        await session.execute(text("UPDATE alembic_version SET version_num = '0001'"))
    try:
        response = await client.get("/v1/ready")
    finally:
        async with database.transaction() as session:
            await session.execute(text("UPDATE alembic_version SET version_num = :v"), {"v": current})
    assert response.status_code == 503
    assert response.json() == {"error_type": "service_unavailable", "message": "Not ready: migrations not_current"}
    assert response.headers["Retry-After"] == "1"


async def test_a_closed_redis_port_fails_at_once(settings: Settings, database: Database, app: FastAPI) -> None:
    """At once: by the refused connection, not by the check's timeout (observe/readiness.py)."""
    closed = settings.model_copy(update={"redis_url": f"redis://127.0.0.1:{free_port()}/0"})
    fresh = create_app(closed, database=database, background=False)
    async with httpx.AsyncClient(transport=CheckedASGITransport(app=fresh), base_url="http://testserver") as http:
        await http.get("/v1/health")  # a new app prepares its routes on its first request
        with structlog.testing.capture_logs() as lines:
            response = await http.get("/v1/ready")
    failed = [(line["check"], line["error"]) for line in lines if line["event"] == "ready_check_failed"]
    assert failed == [("redis", "ConnectionError")]
    assert response.status_code == 503
    assert response.json() == {"error_type": "service_unavailable", "message": "Not ready: redis unavailable"}
    await fresh.state.comptoir.fast.close()
    await fresh.state.comptoir.limiter.close()
