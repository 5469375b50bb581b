# ruff: noqa: F811 - fixtures imported, then named as parameters
"""docs/operations.md "Metrics", "Health and readiness", "Logs": real `comptoir` processes."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import PATIENT_BOUNDS, SECRET_KEY
from tests.e2e.conftest import Server, in_world
from tests.e2e.test_callback_workers import (  # noqa: F401 - fixtures
    KEY,
    environment,
    patch_location,
    receiver,
    setup_shop,
    start_worker,
)
from tests.factories import World
from tests.receiver import Answer
from tests.relay import Relay, relay_to
from tests.waiting import PATIENCE, QUICKLY, wait_until

pytestmark = pytest.mark.e2e


def requests_counted(server: Server, route: str) -> float:
    page = httpx.get(f"{server.base_url}/metrics", timeout=PATIENCE).text
    return sum(
        sample.value
        for family in text_string_to_metric_families(page)
        for sample in family.samples
        if sample.name == "comptoir_http_requests_total" and sample.labels["route"] == route
    )


def test_two_workers_metrics_add_up(start_server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    files = tmp_path / "metrics"
    env = {"COMPTOIR_DATABASE_URL": f"sqlite:///{tmp_path}/c.db", "PROMETHEUS_MULTIPROC_DIR": str(files)}
    server = start_server("--workers", "2", "--no-worker", env=env)
    made = 1  # start_server waited for a first /v1/health
    deadline = time.monotonic() + PATIENCE
    # each request on a new connection, until both workers have counted some (a file each)
    while (len(list(files.glob("counter_*.db"))) < 2 or made < 40) and time.monotonic() < deadline:
        with httpx.Client(base_url=server.base_url) as http:
            assert http.get("/v1/health").status_code == 200
            made += 1
    assert len(list(files.glob("counter_*.db"))) == 2
    # every answered request, the start's polls included (one may time out on a loaded
    # machine and be asked again): its access line
    line = "path=/v1/health status=200"
    wait_until(lambda: server.logs().count(line) >= made, f"{made} access lines")  # written once answered
    answered = server.logs().count(line)
    # each worker puts what it counted on the page within half a second (docs/operations.md "Metrics")
    wait_until(lambda: requests_counted(server, "/v1/health") >= answered, f"{answered} counted", within=QUICKLY)
    assert requests_counted(server, "/v1/health") == answered
    assert server.logs().count("Started server process") == 2


@pytest.fixture
def relay() -> Iterator[Relay]:
    with relay_to(5432) as running:
        yield running


def ready(server: Server) -> tuple[int, dict[str, object]]:
    response = httpx.get(f"{server.base_url}/v1/ready", timeout=PATIENCE)
    return response.status_code, response.json()


def test_readiness_follows_the_database(start_server, fresh_postgres: str, relay: Relay) -> None:  # type: ignore[no-untyped-def]
    url = relay.url_of(fresh_postgres, 5432)
    server = start_server("--no-worker", env={"COMPTOIR_DATABASE_URL": url, "COMPTOIR_SECRET_KEY": SECRET_KEY})
    assert ready(server) == (200, {"status": "ready", "checks": {"database": "ok", "migrations": "ok"}})
    relay.refuse()
    assert ready(server) == (
        503,
        {"error_type": "service_unavailable", "message": "Not ready: database unavailable, migrations unavailable"},
    )
    # at once: by the refused connection, not by the check's timeout (observe/readiness.py)
    [failed] = [line for line in server.logs().splitlines() if "event=ready_check_failed" in line]
    assert "check=database" in failed
    assert "error=TimeoutError" not in failed
    assert httpx.get(f"{server.base_url}/v1/health").status_code == 200  # alive all the same
    relay.forward()
    wait_until(lambda: ready(server)[0] == 200, "ready again")
    assert ready(server) == (200, {"status": "ready", "checks": {"database": "ok", "migrations": "ok"}})


def test_a_silent_database_is_a_prompt_503_and_two_log_lines(  # type: ignore[no-untyped-def]
    start_server, fresh_postgres: str, relay: Relay
) -> None:
    """docs/operations.md "When a dependency fails", as an operator sees it: a real `serve`
    whose database stops answering answers each request 503 with `Retry-After` within the
    bounds (defaults), logs the outage once and its end once, and needs no restart."""
    url = relay.url_of(fresh_postgres, 5432)
    env = {"COMPTOIR_DATABASE_URL": url, "COMPTOIR_SECRET_KEY": SECRET_KEY}
    token = _location_token(fresh_postgres)
    server = start_server("--no-worker", env=env, unset=SHIPPED_BOUNDS)  # the defaults, as shipped
    headers = {"X-Access-Token": token}
    assert httpx.get(f"{server.base_url}/v1/location", headers=headers, timeout=30).status_code == 200
    relay.blackhole()
    for _ in range(3):
        started = time.monotonic()
        response = httpx.get(f"{server.base_url}/v1/location", headers=headers, timeout=60)
        took = time.monotonic() - started
        assert (response.status_code, response.headers["retry-after"]) == (503, "2")
        assert response.json()["error_type"] == "service_unavailable"
        assert took < 15, took  # the defaults add up to about 5 s; unbounded, it was a minute
    relay.forward()
    wait_until(
        lambda: httpx.get(f"{server.base_url}/v1/location", headers=headers, timeout=PATIENCE).status_code == 200,
        "the database back",
    )
    logs = server.logs()
    assert logs.count("event=dependency_unavailable") == 1
    assert logs.count("event=dependency_recovered") == 1
    assert "Traceback" not in logs
    assert "internal_error" not in logs


SHIPPED_BOUNDS = tuple(f"COMPTOIR_{name.upper()}" for name in PATIENT_BOUNDS)


def _location_token(database_url: str) -> str:
    async def make(world: World) -> str:
        return await world.token("location[orders.read]", location=await world.location())

    return in_world(database_url, SECRET_KEY, make)


@pytest.mark.parametrize("log_format", ["json", "logfmt"])
def test_every_line_is_in_the_log_format(start_server, tmp_path: Path, log_format: str) -> None:  # type: ignore[no-untyped-def]
    workers = ["--workers", "2"] if log_format == "json" else []  # uvicorn's log_config reaches each worker
    env = {"COMPTOIR_DATABASE_URL": f"sqlite:///{tmp_path}/c.db", "COMPTOIR_LOG_FORMAT": log_format}
    server = start_server(*workers, env=env)
    assert httpx.get(f"{server.base_url}/v1/health", headers={"X-Request-Id": "req-123"}).status_code == 200
    wait_until(lambda: "req-123" in server.logs(), "the request's line")  # written just after its answer
    lines = [line for line in server.logs().splitlines() if line]
    assert any("Uvicorn running on" in line for line in lines)
    if log_format == "json":
        parsed = [json.loads(line) for line in lines]
        tagged = [p for p in parsed if p.get("request_id") == "req-123"]
        assert len(tagged) == 1, tagged
        [request] = tagged
        assert (request["event"], request["path"], request["status"]) == ("request", "/v1/health", 200)
        assert {p.get("logger") for p in parsed if "Started server process" in p["event"]} == {"uvicorn.error"}
    else:
        assert not [line for line in lines if line.startswith(("INFO:", "WARNING:", "ERROR:"))]
        assert all(line.startswith("timestamp=") for line in lines)


def test_the_worker_logs_each_delivery_in_json(  # type: ignore[no-untyped-def]
    start_server, start_worker, receiver, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path}/c.db"
    env = environment(url, COMPTOIR_LOG_FORMAT="json")
    server = start_server("--no-worker", env=env)
    writer, _ = setup_shop(url, receiver, 1)
    receiver.answer("/hook/0", Answer(status=204))
    worker = start_worker(env)
    patch_location(server, writer, 42)
    receiver.wait_for("/hook/0", 1)
    log = tmp_path / "worker-0.log"
    wait_until(lambda: "callback_delivery" in log.read_text(), "the delivery's line")
    worker.send_signal(signal.SIGTERM)
    worker.wait(timeout=PATIENCE)
    lines = [json.loads(line) for line in log.read_text().splitlines() if line]
    [delivery] = [line for line in lines if line["event"] == "callback_delivery"]
    assert {k: delivery[k] for k in ("outcome", "attempt", "status", "error", "level")} == {
        "outcome": "acknowledged",
        "attempt": 1,
        "status": 204,
        "error": None,
        "level": "info",
    }
    assert isinstance(delivery["event_id"], str)
    assert isinstance(delivery["connection_id"], int)
    assert isinstance(delivery["duration_ms"], int | float)
    assert KEY not in log.read_text()
    assert all(json.loads(line) for line in server.logs().splitlines() if line)
