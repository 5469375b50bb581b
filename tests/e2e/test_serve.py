"""docs/operations.md "Commands": `serve --demo` then a real call with the printed token (the README
flow), several server processes sharing rate limits, and the timed job inside `serve`."""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
import redis

from tests.conftest import TEST_REDIS_URL
from tests.e2e.conftest import Server, run_cli
from tests.waiting import PATIENCE, QUICKLY, wait_until

pytestmark = pytest.mark.e2e


def test_serve_demo_prints_the_demo_json_then_serves_the_location(
    start_server: Callable[..., Server], tmp_path: Path
) -> None:
    server = start_server("--demo", read_first_line=True)
    assert server.first_line is not None
    demo = json.loads(server.first_line)
    assert (tmp_path / "comptoir.db").exists()
    assert (tmp_path / "comptoir-secret.key").stat().st_mode & 0o777 == 0o600
    with server.http() as http:
        response = http.get("/v1/location", headers={"X-Access-Token": demo["tokens"]["location"]})
        assert response.status_code == 200
        assert response.json()["id"] == demo["location_ids"][0]
        account = http.get("/v1/locations", headers={"X-Access-Token": demo["tokens"]["account"]})
        assert [loc["id"] for loc in account.json()] == demo["location_ids"]
        assert (
            http.get("/v1/user", headers={"X-Access-Token": demo["tokens"]["location"]}).json()["email"]
            == demo["user"]["email"]
        )
    assert "event=request" in server.logs()


def test_the_demo_output_is_the_same_across_restarts(start_server: Callable[..., Server], tmp_path: Path) -> None:
    first = start_server("--demo", read_first_line=True)
    first.process.terminate()
    first.process.wait(timeout=PATIENCE)  # the fixture closes its pipes at the end
    second = start_server("--demo", read_first_line=True)
    assert second.first_line == first.first_line


def test_two_servers_on_one_postgresql_and_redis_share_rate_limits(
    start_server: Callable[..., Server], fresh_postgres: str, tmp_path: Path
) -> None:
    env = {
        "COMPTOIR_DATABASE_URL": fresh_postgres,
        "COMPTOIR_REDIS_URL": TEST_REDIS_URL,
        "COMPTOIR_REDIS_PREFIX": f"comptoir-e2e:{uuid.uuid4().hex}:",
        "COMPTOIR_REDIS_TIMEOUT_SECONDS": "60",  # the counts asserted are Redis's, however loaded the machine
        "COMPTOIR_SECRET_KEY": "shared-server-key-at-least-32-bytes-long",
    }
    demo = run_cli("demo", env=env, cwd=tmp_path)
    token = {"X-Access-Token": demo["tokens"]["location"]}  # type: ignore[index]
    first, second = start_server(env=env), start_server(env=env)
    prefix = env["COMPTOIR_REDIS_PREFIX"]
    keys = redis.Redis.from_url(TEST_REDIS_URL)

    def clear(pattern: str) -> None:
        for key in keys.scan_iter(pattern):
            keys.delete(key)

    def exchange(
        a: httpx.Client, b: httpx.Client
    ) -> tuple[list[httpx.Response], list[int], list[httpx.Response]] | None:
        """One server's request then the other's, the minute's count taken to 480 more as
        if that many had been made, the 18 left alternately, then one more to each; None when
        the minute ended meanwhile (its counts start again in the next one)."""
        minute = int(time.time() // 60) * 60
        clear(f"{prefix}*:minute:*")
        ones = [a.get("/v1/location", headers=token), b.get("/v1/location", headers=token)]
        counters = list(keys.scan_iter(f"{prefix}*:minute:{minute}"))
        if len(counters) != 1:
            return None
        keys.incrby(counters[0], 480)
        statuses = [(a if i % 2 else b).get("/v1/location", headers=token).status_code for i in range(18)]
        refused = [http.get("/v1/location", headers=token) for http in (a, b)]
        return (ones, statuses, refused) if int(time.time() // 60) * 60 == minute else None

    try:
        with first.http() as a, second.http() as b:
            for _ in range(3):  # how many requests a minute holds is not the machine's to decide
                done = exchange(a, b)
                if done is not None:
                    break
        assert done is not None, "three minutes ended during the requests"
        ones, statuses, refused = done
        assert [one.headers["RateLimit"].split(";t=")[0] for one in ones] == ['"minute";r=499', '"minute";r=498']
        assert statuses == [200] * 18
        for answer in refused:
            assert answer.status_code == 429
            assert 0 < int(answer.headers["Retry-After"]) <= 60
    finally:
        clear(f"{prefix}*")
        keys.close()


def test_serve_with_two_workers_serves_on_one_port(
    start_server: Callable[..., Server], fresh_postgres: str, tmp_path: Path
) -> None:
    env = {
        "COMPTOIR_DATABASE_URL": fresh_postgres,
        "COMPTOIR_SECRET_KEY": "k2-server-key-at-least-32-bytes-long",
        "COMPTOIR_RATE_LIMITS": "off",
    }
    server = start_server("--demo", "--workers", "2", env=env, read_first_line=True)
    assert server.first_line is not None
    token = json.loads(server.first_line)["tokens"]["account"]
    with server.http() as http:
        assert {http.get("/v1/account", headers={"X-Access-Token": token}).status_code for _ in range(20)} == {200}


def test_resume_at_reverts_inside_serve_without_any_read(start_server: Callable[..., Server], tmp_path: Path) -> None:
    server = start_server("--demo", read_first_line=True)
    assert server.first_line is not None
    token = {"X-Access-Token": json.loads(server.first_line)["tokens"]["location"]}
    resume_at = (datetime.now(UTC) + timedelta(seconds=QUICKLY)).isoformat()  # still ahead when the PATCH arrives
    with server.http() as http:
        body = {"order_acceptance": {"mode": "paused", "resume_at": resume_at, "reason": "Rush"}}
        assert http.patch("/v1/location", json=body, headers=token).status_code == 200

    def mode() -> str:
        with sqlite3.connect(tmp_path / "comptoir.db") as db:
            return str(db.execute("SELECT acceptance_mode FROM locations WHERE number = 1").fetchone()[0])

    wait_until(lambda: mode() == "normal", "the reversion")
    with sqlite3.connect(tmp_path / "comptoir.db") as db:
        changes = db.execute(
            "SELECT event_type, connection_id FROM changes WHERE resource_type = 'location' ORDER BY id"
        ).fetchall()
    assert [c[0] for c in changes] == ["update", "update"]  # the demo's catalog and list have their creates
    assert changes[1][1] is None  # the reversion, caused by the service
