"""Two `serve` processes on one database, each caching connection lookups
(comptoir.db.connection_cache): a change made through one is seen by the other from the next
request. PostgreSQL tells each process by a notification, SQLite by a stamp it reads."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.conftest import Server, run_cli

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("database", ["postgresql", "sqlite"])
def test_a_change_through_one_process_holds_in_the_other_at_once(
    start_server: Callable[..., Server], request: pytest.FixtureRequest, tmp_path: Path, database: str
) -> None:
    url = request.getfixturevalue("fresh_postgres") if database == "postgresql" else f"sqlite:///{tmp_path / 'c.db'}"
    env = {
        "COMPTOIR_DATABASE_URL": url,
        "COMPTOIR_SECRET_KEY": "k-cache-server-key-at-least-32-bytes-long",
        "COMPTOIR_RATE_LIMITS": "off",
    }
    demo = run_cli("demo", env=env, cwd=tmp_path)
    token = {"X-Access-Token": demo["tokens"]["location"]}  # type: ignore[index]
    client = demo["client"]  # type: ignore[index]
    first, second = start_server(env=env), start_server(env=env)
    with first.http() as a, second.http() as b:
        for http in (a, b, a, b):  # each process now holds the token
            assert http.get("/v1/location", headers=token).status_code == 200
        for minutes in (7, 12, 31):  # the location, changed through one, read through the other
            assert a.patch("/v1/location", json={"preparation_time": minutes}, headers=token).status_code == 200
            assert b.get("/v1/location", headers=token).json()["preparation_time"] == minutes
            assert b.patch("/v1/location", json={"preparation_time": minutes + 1}, headers=token).status_code == 200
            assert a.get("/v1/location", headers=token).json()["preparation_time"] == minutes + 1
        revoked = a.post(
            "/oauth2/v1/revoke",
            data={"token": token["X-Access-Token"]},
            auth=(client["client_id"], client["client_secret"]),
        )
        assert revoked.status_code == 200
        assert b.get("/v1/location", headers=token).status_code == 401
        assert a.get("/v1/location", headers=token).status_code == 401
