"""`comptoir sandbox` as an integrator's CI runs it (docs/sandbox.md): one process, one JSON
line once ready, the seed's tokens at work, `comptoir sandbox reset` from another process."""

from __future__ import annotations

import json
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import COMPTOIR, _environment, _read_line, free_port, run_cli
from tests.receiver import Answer, running_receiver
from tests.sandbox.conftest import EXAMPLE
from tests.waiting import wait_until

pytestmark = pytest.mark.e2e


def temporary_databases(where: Path) -> set[Path]:
    return set(where.glob("comptoir-sandbox-*"))


@pytest.fixture
def sandbox_process(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], int, dict]]:
    temporary = tmp_path / "tmp"  # the sandbox's temporary directory, apart from any other's
    temporary.mkdir()
    before = temporary_databases(temporary)
    port = free_port()
    with (tmp_path / "sandbox.log").open("w") as log:
        process = subprocess.Popen(
            [COMPTOIR, "sandbox", "--seed", str(EXAMPLE), "--port", str(port)],
            cwd=tmp_path,
            env=_environment({}, ()) | {"TMPDIR": str(temporary)},
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
        try:
            ready = json.loads(_read_line(process.stdout, 60))
            yield process, port, ready
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=15)
            if process.stdout is not None:
                process.stdout.close()
    assert temporary_databases(temporary) == before  # stopped, the sandbox removed its temporary database


def test_the_sandbox_prints_what_the_seed_made_and_serves_it(
    sandbox_process: tuple[subprocess.Popen[str], int, dict], tmp_path: Path
) -> None:
    process, port, ready = sandbox_process
    assert ready["url"] == f"http://127.0.0.1:{port}"
    pos = {"X-Access-Token": ready["connections"]["pos_paris"]["access_token"]}
    regulars = ready["customer_lists"]["regulars"]
    with httpx.Client(base_url=ready["url"], timeout=30) as http:
        assert http.get("/v1/location", headers=pos).json()["id"] == ready["locations"]["paris"]
        made = http.post(f"/v1/customer_lists/{regulars}/customers", json={"first_name": "Zed"}, headers=pos)
        assert made.status_code == 200
        assert len(http.get(f"/v1/customer_lists/{regulars}/customers", headers=pos).json()) == 3

        reset = run_cli("sandbox", "reset", "--port", str(port), env={}, cwd=tmp_path)
        assert reset == {k: v for k, v in ready.items() if k != "url"}
        assert len(http.get(f"/v1/customer_lists/{regulars}/customers", headers=pos).json()) == 2
    assert process.poll() is None


def test_a_bad_seed_stops_the_sandbox_with_one_line(tmp_path: Path) -> None:
    seed = json.loads(EXAMPLE.read_text())
    seed["locations"][1]["opening_hours"] = {"monday": [{"from": "25:00", "to": "23:00"}]}
    path = tmp_path / "seed.json"
    path.write_text(json.dumps(seed))
    result = subprocess.run(
        [COMPTOIR, "sandbox", "--seed", "seed.json", "--port", str(free_port())],
        cwd=tmp_path,
        env=_environment({}, ()),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == (
        "error: seed.json: locations[1].opening_hours.monday[0].from: '25:00' is not a valid time of day"
        ' (expected HH:mm, e.g. "06:00")\n'
    )


def test_reset_with_no_sandbox_there_is_refused(tmp_path: Path) -> None:
    port = free_port()
    result = subprocess.run(
        [COMPTOIR, "sandbox", "reset", "--port", str(port)],
        env=_environment({}, ()),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr.startswith(f"error: no sandbox answers on 127.0.0.1:{port} (")


def test_a_resend_goes_out_once_the_clock_passes_its_time_and_the_deliveries_show_both(
    sandbox_process: tuple[subprocess.Popen[str], int, dict],
) -> None:
    _process, _port, ready = sandbox_process
    pos = {"X-Access-Token": ready["connections"]["pos_paris"]["access_token"]}
    courier = {"X-Access-Token": ready["connections"]["delivery_app"]["access_token"]}
    with running_receiver() as receiver, httpx.Client(base_url=ready["url"], timeout=30) as http:
        receiver.answer("/courier", lambda n: Answer(status=500 if n == 0 else 200))
        subscribed = http.post(
            "/v1/callback", json={"url": receiver.url("/courier"), "events": {"order": ["create"]}}, headers=courier
        )
        assert subscribed.status_code == 200
        assert http.post("/v1/location/orders", json={"status": "new", "items": []}, headers=pos).status_code == 200
        receiver.wait_for("/courier", 1)
        wait_until(lambda: len(http.get("/sandbox/deliveries").json()) == 1, "the failed attempt listed")

        moved = http.post("/sandbox/clock", json={"advance_seconds": 61})  # past the 60 s wait
        assert moved.status_code == 200
        receiver.wait_for("/courier", 2, 10.0)
        wait_until(lambda: len(http.get("/sandbox/deliveries").json()) == 2, "the resend listed")
        listed = http.get("/sandbox/deliveries", params={"connection": "delivery_app", "event_type": "order.create"})
        assert [(entry["attempt"], entry["response"]["status"]) for entry in listed.json()] == [(2, 200), (1, 500)]

        assert http.post("/sandbox/reset").status_code == 200
        assert http.get("/sandbox/deliveries").json() == []
        assert http.post("/sandbox/clock", json={"advance_seconds": 0}).json()["real"] is True
