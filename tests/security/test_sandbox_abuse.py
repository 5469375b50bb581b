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
from sqlalchemy import text

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


# --- ids, tokens and secrets a seed gives (docs/sandbox.md "Ids, tokens and secrets") ---------


async def test_a_given_token_a_later_connection_would_derive_leaves_both_working(
    base_settings: Settings, sandbox_url: str | None, tmp_path: Path
) -> None:
    """The ordering site given the token the delivery app derives: the delivery app's insert
    meets the unique token hash and draws its next seed; neither token is the other's."""
    first, _key = await start(base_settings, read_seed(EXAMPLE), None)
    await first.close()
    taken = first.answer["connections"]["delivery_app"]["access_token"]
    data = example()
    data["connections"][0]["access_token"] = taken
    path = tmp_path / "seed.json"
    path.write_text(json.dumps(data))
    started, _key = await start(base_settings, read_seed(path), sandbox_url)
    try:
        site, courier = (started.answer["connections"][name] for name in ("ordering_site_paris", "delivery_app"))
        assert site["access_token"] == taken
        assert courier["access_token"] not in (taken, site["access_token"])
        async with _client_of(started) as http:
            at_site = await http.get("/v1/location", headers={"X-Access-Token": site["access_token"]})
            of_courier = await http.get(
                f"/v1/accounts/{courier['account_id']}", headers={"X-Access-Token": courier["access_token"]}
            )
        assert (at_site.status_code, at_site.json()["id"]) == (200, site["location_id"])
        assert (of_courier.status_code, of_courier.json()["id"]) == (200, courier["account_id"])
    finally:
        await started.close()


async def test_an_id_at_the_edge_of_six_characters_leaves_the_next_ids_readable(
    base_settings: Settings, sandbox_url: str | None, tmp_path: Path
) -> None:
    """The customer id of the greatest 6-character key: the next customer, of the seed then of
    the API, takes the keys after it, whose ids have 7 characters, and each is found."""
    data = example()
    data["customer_lists"][0]["customers"][0]["id"] = EDGE
    path = tmp_path / "seed.json"
    path.write_text(json.dumps(data))
    started, _key = await start(base_settings, read_seed(path), sandbox_url)
    try:
        customers = started.answer["customers"]
        assert customers["alice"] == EDGE
        assert len(customers["bruno"]) == 7
        regulars = started.answer["customer_lists"]["regulars"]
        pos = token(started, "pos_paris")
        async with _client_of(started) as http:
            made = await http.post(f"/v1/customer_lists/{regulars}/customers", json={"first_name": "Zed"}, headers=pos)
            found = [
                (await http.get(f"/v1/customer_lists/{regulars}/customers/{id_}", headers=pos)).json()["id"]
                for id_ in (EDGE, customers["bruno"], made.json()["id"])
            ]
        assert found == [EDGE, customers["bruno"], made.json()["id"]]
        assert len({EDGE, customers["bruno"], made.json()["id"]}) == 3
    finally:
        await started.close()


EDGE = "94nsj4"  # the customer id of key 2**30 - 1 under the sandbox's id key


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (  # 7 characters: a key beyond the first billion, up to 2**63 - 1, would end the sequence
            lambda d: d["customer_lists"][0]["customers"][0].update(id="2222223"),
            "customer_lists[0].customers[0].id: '2222223' is not an id: 6 characters, each one of"
            " 23456789abcdefghijkmnpqrstuvwxyz",
        ),
        (
            lambda d: d["customer_lists"][0]["customers"][0].update(id="zzzzzzzzzzzzz"),
            "customer_lists[0].customers[0].id: 'zzzzzzzzzzzzz' is not an id: 6 characters, each one of"
            " 23456789abcdefghijkmnpqrstuvwxyz",
        ),
        (  # the one 6-character id whose key would be 0
            lambda d: d["customer_lists"][0]["customers"][0].update(id="6edty3"),
            "customer_lists[0].customers[0].id: '6edty3' is the one id that names no row: give another",
        ),
        (  # the account's next location would have a number of 10 digits, an id no one reads
            lambda d: d["locations"][0].update(id=f"{_ACCOUNT}-999999999"),
            "locations[0].id: a location's number is at most 999999998: the account's next one follows it",
        ),
        (  # a header of its own in the token
            lambda d: d["connections"][0].update(access_token="token-of-eight\r\nX-Injected: 1"),
            "connections[0].access_token: must be letters, digits and - . _ ~ + / only, then = only at the end"
            " (RFC 6750 b64token)",
        ),
        (
            lambda d: d["applications"][0].update(client_secret=["a-list-of-secrets"]),
            "applications[0].client_secret: must be a string",
        ),
    ],
)
async def test_a_given_id_or_token_beyond_what_the_server_can_hold_is_refused(
    base_settings: Settings, tmp_path: Path, change: Any, message: str
) -> None:
    data = example()
    data["accounts"][0]["id"] = _ACCOUNT
    change(data)
    path = tmp_path / "seed.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SeedError) as refused:
        await start(base_settings, read_seed(path), None)
    assert str(refused.value) == f"{path}: {message}"


_ACCOUNT = "pizza2"


async def test_a_given_token_and_secret_are_not_stored_in_clear(
    base_settings: Settings, sandbox_url: str | None, tmp_path: Path
) -> None:
    from comptoir.kit import crypto

    data = example()
    data["connections"][1]["access_token"] = "pos-token-kept-sealed"
    data["applications"][1]["client_secret"] = "pos-secret-kept-sealed"
    path = tmp_path / "seed.json"
    path.write_text(json.dumps(data))
    started, key = await start(base_settings, read_seed(path), sandbox_url)
    try:
        async with started.db.transaction(write=False) as session:
            rows = (await session.execute(text("SELECT token_seed, token_hash FROM connections"))).all()
            seeds = (await session.execute(text("SELECT secret_seed FROM oauth_clients"))).scalars().all()
    finally:
        await started.close()
    stored = " ".join([*(seed for row in rows for seed in row), *seeds])
    assert "kept-sealed" not in stored
    assert sum(seed.startswith("given:") for seed, _ in rows) == 1
    assert sum(seed.startswith("given:") for seed in seeds) == 1
    assert crypto.lookup_hash(key, "pos-token-kept-sealed") in {token_hash for _, token_hash in rows}


def _client_of(started: Sandbox) -> Any:
    from contextlib import asynccontextmanager

    from comptoir.app import create_app

    @asynccontextmanager
    async def opened() -> Any:
        app = create_app(started.settings, database=started.db, background=False, sandbox=started)
        async with httpx.AsyncClient(transport=CheckedASGITransport(app=app), base_url="http://testserver") as http:
            yield http
        await app.state.comptoir.fast.close()

    return opened()


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
