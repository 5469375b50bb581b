"""Abuse of the sandbox (docs/sandbox.md "Safety"): its routes on a normal server, a
database it did not make, a reset asked to load something else, a seed file that is not one,
a seed choosing its own tokens."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from comptoir.config import Settings
from comptoir.kit import clock
from comptoir.sandbox.seed import SeedError, read_seed
from comptoir.sandbox.service import Sandbox, SandboxRefused, start
from tests import databases
from tests.api import conftest as api
from tests.conftest import postgres_url
from tests.response_schemas import CheckedASGITransport
from tests.sandbox import conftest as sandboxes
from tests.sandbox.conftest import EXAMPLE, example, token

app = api.app  # a normal server's app, as `serve` makes it
base_settings, sandbox_url, sandbox, client = (  # a sandbox's, as `comptoir sandbox` makes it
    sandboxes.base_settings,
    sandboxes.sandbox_url,
    sandboxes.sandbox,
    sandboxes.client,
)


@pytest.fixture
async def normal_client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=CheckedASGITransport(app=app), base_url="http://testserver") as http:
        yield http


async def test_sandbox_routes_on_a_normal_server_answer_404(normal_client: httpx.AsyncClient) -> None:
    reset = await normal_client.post("/sandbox/reset")
    unknown = await normal_client.post("/sandbox/anything")
    moved = await normal_client.post("/sandbox/clock", json={"advance_seconds": 3600})
    deliveries = await normal_client.get("/sandbox/deliveries")
    assert [r.status_code for r in (reset, unknown, moved, deliveries)] == [404, 404, 404, 404]
    assert reset.json() == {"error_type": "routing_error", "message": "No route matches [POST] /sandbox/reset"}
    assert moved.json() == {"error_type": "routing_error", "message": "No route matches [POST] /sandbox/clock"}
    assert deliveries.json() == {"error_type": "routing_error", "message": "No route matches [GET] /sandbox/deliveries"}
    assert clock.moved() is False
    assert unknown.json() == {"error_type": "routing_error", "message": "No route matches [POST] /sandbox/anything"}


async def test_a_sqlite_database_the_sandbox_did_not_make_is_refused_and_untouched(
    base_settings: Settings, sqlite_template: Path, tmp_path: Path
) -> None:
    path = tmp_path / "comptoir.db"
    shutil.copy(sqlite_template, path)
    before = _content(path)
    with pytest.raises(SandboxRefused) as refused:
        await start(base_settings, read_seed(EXAMPLE), f"sqlite:///{path}")
    assert str(refused.value) == (
        f"--database: {path} holds data the sandbox did not make; the sandbox wipes its database:"
        " give a new or empty one"
    )
    assert _content(path) == before


def _content(path: Path) -> bytes:
    return path.read_bytes()


async def test_a_postgres_database_the_sandbox_did_not_make_is_refused_and_untouched(
    base_settings: Settings, postgres_template: str
) -> None:
    async def tables() -> int:
        import asyncpg

        connection = await asyncpg.connect(postgres_template)
        try:
            return int(await connection.fetchval("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"))
        finally:
            await connection.close()

    before = await tables()
    with pytest.raises(SandboxRefused) as refused:
        await start(base_settings, read_seed(EXAMPLE), postgres_template)
    assert "holds data the sandbox did not make" in str(refused.value)
    assert await tables() == before > 0


async def test_a_database_the_sandbox_made_is_made_afresh_at_the_next_start(base_settings: Settings) -> None:
    name = databases.new_name()
    databases._registered.add(name)
    try:
        first, _ = await start(base_settings, read_seed(EXAMPLE), postgres_url(name))
        await first.close()
        second, _ = await start(base_settings, read_seed(EXAMPLE), postgres_url(name))
        await second.close()
        assert second.answer == first.answer
    finally:
        await databases.drop(name)


@pytest.mark.parametrize("db_kind", ["sqlite"])
async def test_a_reset_asked_to_load_another_seed_file_reloads_its_own(
    sandbox: Sandbox, client: httpx.AsyncClient, tmp_path: Path, db_kind: str
) -> None:
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"users": []}))
    reset = await client.post("/sandbox/reset", json={"seed": str(other)}, params={"seed": str(other)})
    assert reset.status_code == 200
    assert reset.json() == sandbox.answer
    assert (await client.get("/v1/location", headers=token(sandbox, "pos_paris"))).status_code == 200


def test_a_seed_path_at_a_file_that_is_no_seed_never_echoes_its_content(tmp_path: Path) -> None:
    secret = tmp_path / "credentials"
    secret.write_text("AWS_SECRET=hunter2-not-json\n")
    with pytest.raises(SeedError) as refused:
        read_seed(secret)
    assert str(refused.value) == f"{secret}: line 1 column 1: Expecting value"
    assert "hunter2" not in str(refused.value)


def test_a_seed_path_at_a_directory_or_nothing_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SeedError) as refused:
        read_seed(tmp_path)
    assert str(refused.value) == f"{tmp_path}: no such file"


@pytest.mark.parametrize("field", ["access_token", "id"])
async def test_a_seed_cannot_choose_a_token_or_an_id(base_settings: Settings, tmp_path: Path, field: str) -> None:
    data = example()
    data["connections"][0][field] = "chosen-by-the-seed"
    path = tmp_path / "seed.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SeedError) as refused:
        await start(base_settings, read_seed(path), None)
    assert str(refused.value) == (
        f"{path}: connections[0].{field}: cannot be chosen: the server makes it, the same at every start"
        ' of this seed file (docs/sandbox.md "Ids, tokens and secrets")'
    )


def test_a_huge_seed_file_is_refused_before_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from comptoir.sandbox import seed

    monkeypatch.setattr(seed, "MAX_BYTES", 1024 * 1024)
    path = tmp_path / "seed.json"
    path.write_text(" " * (1024 * 1024 + 1))
    with pytest.raises(SeedError) as refused:
        read_seed(path)
    assert str(refused.value) == f"{path}: larger than 1 MB"


# --- the clock (docs/sandbox.md "The clock") -------------------------------------------------


def _unprocessable(field: str, message: str) -> dict[str, Any]:
    return {
        "error_type": "unprocessable_entity",
        "message": f"{field}: {message}",
        "errors": [{"field": field, "message": message}],
    }


@pytest.mark.parametrize("db_kind", ["sqlite"])
async def test_moving_the_clock_backwards_is_refused_with_422_and_changes_nothing(
    client: httpx.AsyncClient, db_kind: str
) -> None:
    moved = await client.post("/sandbox/clock", json={"advance_seconds": 3600})
    assert moved.status_code == 200
    now = clock.now()
    earlier = (now - timedelta(minutes=5)).replace(microsecond=0)
    backwards = await client.post("/sandbox/clock", json={"now": earlier.isoformat().replace("+00:00", "Z")})
    assert backwards.status_code == 422
    refused = backwards.json()["errors"]
    assert [error["field"] for error in refused] == ["now"]
    shown = refused[0]["message"].removeprefix("is before the sandbox's current time (").removesuffix(")")
    assert timedelta(0) <= datetime.fromisoformat(shown) - now.replace(microsecond=0) < timedelta(seconds=5)
    negative = await client.post("/sandbox/clock", json={"advance_seconds": -60})
    assert negative.json() == _unprocessable("advance_seconds", "must be a whole number of seconds, 0 or more")
    assert clock.now() - now < timedelta(seconds=5)  # not moved back
    assert clock.now() >= now


@pytest.mark.parametrize("db_kind", ["sqlite"])
async def test_advancing_the_clock_a_thousand_years_is_refused_with_422_and_changes_nothing(
    client: httpx.AsyncClient, db_kind: str
) -> None:
    answers = [
        await client.post("/sandbox/clock", json={"advance_seconds": 1000 * 366 * 86400}),
        await client.post("/sandbox/clock", json={"advance_seconds": 10**30}),
        await client.post("/sandbox/clock", json={"now": "3026-06-24T19:30:00Z"}),
        await client.post("/sandbox/clock", json={"now": "9999-12-31T23:59:59Z"}),
    ]
    assert [answer.status_code for answer in answers] == [422, 422, 422, 422]
    assert answers[0].json() == _unprocessable(
        "advance_seconds", "takes the clock more than 10 years past the real time"
    )
    assert answers[1].json() == answers[0].json()
    assert answers[2].json() == _unprocessable("now", "is more than 10 years past the real time")
    assert answers[3].json()["errors"][0]["field"] == "now"
    assert clock.moved() is False


@pytest.mark.parametrize("db_kind", ["sqlite"])
@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({}, "advance_seconds", "is required (or give now)"),
        ({"advance": "PT2H"}, "advance_seconds", "is required (or give now)"),
        ({"advance_seconds": 60, "now": "2030-01-01T00:00:00Z"}, "now", "give advance_seconds or now, not both"),
        ({"advance_seconds": "3600"}, "advance_seconds", "must be a whole number of seconds, 0 or more"),
        ({"advance_seconds": 1.5}, "advance_seconds", "must be a whole number of seconds, 0 or more"),
        ({"advance_seconds": True}, "advance_seconds", "must be a whole number of seconds, 0 or more"),
        (
            {"now": "tomorrow"},
            "now",
            "'tomorrow' is not a valid ISO 8601 time (expected e.g. \"2026-06-24T17:07:53+02:00\")",
        ),
        (
            {"now": 1893456000},
            "now",
            '1893456000 is not a valid ISO 8601 time (expected e.g. "2026-06-24T17:07:53+02:00")',
        ),
    ],
)
async def test_a_bad_clock_body_is_refused_with_422_and_changes_nothing(
    client: httpx.AsyncClient, db_kind: str, body: dict[str, Any], field: str, message: str
) -> None:
    answer = await client.post("/sandbox/clock", json=body)
    assert (answer.status_code, answer.json()) == (422, _unprocessable(field, message))
    assert clock.moved() is False


@pytest.mark.parametrize("db_kind", ["sqlite"])
async def test_a_clock_body_that_is_not_json_is_refused_with_400_and_changes_nothing(
    client: httpx.AsyncClient, db_kind: str
) -> None:
    answer = await client.post("/sandbox/clock", content=b"advance=3600", headers={"Content-Type": "application/json"})
    assert answer.status_code == 400
    assert answer.json()["error_type"] == "bad_request"
    assert clock.moved() is False


@pytest.mark.parametrize("db_kind", ["sqlite"])
async def test_deliveries_filtered_by_a_huge_or_odd_value_answer_an_empty_list(
    client: httpx.AsyncClient, db_kind: str
) -> None:
    for params in ({"connection": "x" * 5000}, {"event_type": "' OR 1=1 --"}, {"connection": "%00"}):
        answer = await client.get("/sandbox/deliveries", params=params)
        assert (answer.status_code, answer.json()) == (200, [])
