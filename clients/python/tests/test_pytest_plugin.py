"""The pytest plugin (`comptoir_client.pytest_plugin`, docs/sandbox.md "The pytest plugin"), as
an integrator's CI runs it: `pytest` in a process of its own, on the example suite of
examples/integrator_tests (SQLite, PostgreSQL, pytest-xdist, a sandbox already running), and
on small suites written here for how it starts, fails and stops."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests import databases
from tests.conftest import postgres_url
from tests.e2e.conftest import COMPTOIR, _environment, free_port

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).parents[3]
EXAMPLE = ROOT / "examples" / "integrator_tests"
SEED = ROOT / "examples" / "pizzeria.seed.json"


def environment() -> dict[str, str]:
    """An integrator's: no COMPTOIR_ setting but the tests' patient bounds (the sandbox lets
    callbacks reach loopback by itself), and nothing of this pytest session's."""
    full = _environment({}, ("COMPTOIR_CALLBACK_ALLOWED_NETWORKS",))
    return {k: v for k, v in full.items() if not k.startswith("PYTEST_")}


def run_pytest(*args: str, cwd: Path = ROOT, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def passed(result: subprocess.CompletedProcess[str]) -> str:
    """The summary line of a run that passed (else the whole output, to read the failure)."""
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.strip().splitlines()[-1]


def test_the_example_suite_passes_on_sqlite() -> None:
    result = run_pytest(str(EXAMPLE.relative_to(ROOT)), "-p", "comptoir_client.pytest_plugin")
    assert passed(result).startswith("5 passed")


@pytest.fixture
def postgres_database() -> Iterator[str]:
    """The URL of a PostgreSQL database the sandbox creates, dropped at the end."""
    name = databases.new_name()
    databases._registered.add(name)  # dropped at the end, whatever happens
    yield postgres_url(name)
    asyncio.run(databases.drop(name))


def test_the_example_suite_passes_on_postgresql(postgres_database: str) -> None:
    result = run_pytest(str(EXAMPLE), "--comptoir-database", postgres_database)
    assert passed(result).startswith("5 passed")


def test_the_example_suite_passes_with_xdist_each_worker_on_its_own_sandbox(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'sandbox.db'}"
    result = run_pytest(str(EXAMPLE), "-n", "2", "--comptoir-database", database)
    assert passed(result).startswith("5 passed")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["sandbox_gw0.db", "sandbox_gw1.db"]


def test_the_example_suite_waits_for_a_sandbox_service_and_passes_against_it(tmp_path: Path) -> None:
    """As a CI job's container service: started beside the tests, not by them."""
    port = free_port()
    options = ["--comptoir-url", f"http://127.0.0.1:{port}", "--comptoir-command", "no-such-command"]
    tests = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(EXAMPLE), *options],
        cwd=ROOT,
        env=environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    with (tmp_path / "sandbox.log").open("w") as log:
        sandbox = subprocess.Popen(
            [COMPTOIR, "sandbox", "--seed", str(SEED), "--port", str(port)], env=environment(), stderr=log
        )
    try:
        output, _ = tests.communicate(timeout=180)
        assert tests.returncode == 0, output
        assert output.strip().splitlines()[-1].startswith("5 passed")
        assert sandbox.poll() is None  # the session leaves a sandbox it did not start running
    finally:
        tests.kill()
        sandbox.send_signal(signal.SIGTERM)
        sandbox.wait(timeout=15)


def test_one_sandbox_service_for_several_xdist_workers_is_refused(tmp_path: Path) -> None:
    suite(tmp_path, USES_THE_SANDBOX)
    result = run_pytest("-n", "2", "--comptoir-url", "http://127.0.0.1:9", cwd=tmp_path)
    assert result.returncode == 1
    assert "--comptoir-url: one sandbox cannot serve 2 xdist workers; run with -n 0" in result.stdout


def suite(where: Path, tests: str, seed: Path = SEED) -> Path:
    """A test suite of an integrator's in `where`: its pytest.ini names the seed."""
    (where / "pytest.ini").write_text(f"[pytest]\ncomptoir_seed = {seed}\n")
    (where / "test_suite.py").write_text(tests)
    return where


def test_a_suite_that_never_asks_for_the_sandbox_starts_none(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    suite(tmp_path, "def test_plain():\n    assert True\n")
    command = f"{sys.executable} -c 'open({str(marker)!r}, \"w\")'"
    result = run_pytest("--comptoir-command", command, "--strict-config", cwd=tmp_path)
    assert passed(result).startswith("1 passed")
    assert not marker.exists()


USES_THE_SANDBOX = "def test_uses(comptoir_sandbox):\n    assert comptoir_sandbox.url\n"


def test_a_sandbox_that_stops_before_its_ready_line_fails_the_test_with_its_stderr(tmp_path: Path) -> None:
    (tmp_path / "seed.json").write_text(json.dumps({"locations": [{"key": "paris", "account": "nowhere"}]}))
    suite(tmp_path, USES_THE_SANDBOX, Path("seed.json"))  # relative to the ini file
    result = run_pytest(cwd=tmp_path)
    assert result.returncode == 1
    assert "comptoir sandbox: the sandbox exited (1) before its ready line" in result.stdout
    assert f"error: {tmp_path / 'seed.json'}: locations[0].account: names no earlier entry ('nowhere')" in result.stdout


def test_a_sandbox_with_no_ready_line_in_time_fails_the_test_with_its_stderr(tmp_path: Path) -> None:
    suite(tmp_path, USES_THE_SANDBOX)
    slow = tmp_path / "slow_sandbox.py"
    slow.write_text("import sys, time\nprint('still importing', file=sys.stderr, flush=True)\ntime.sleep(60)\n")
    command = f"{sys.executable} {slow}"
    started = time.monotonic()
    result = run_pytest("--comptoir-command", command, "--comptoir-timeout", "1", cwd=tmp_path)
    assert result.returncode == 1
    assert "comptoir sandbox: no ready line within 1 s" in result.stdout
    assert "still importing" in result.stdout
    assert time.monotonic() - started < 30  # stopped, not waited for


def test_a_first_line_that_is_json_but_not_the_ready_line_fails_the_test_and_stops_the_sandbox(
    tmp_path: Path,
) -> None:
    pid_file = tmp_path / "pid"
    chatty = tmp_path / "chatty_sandbox.py"
    chatty.write_text(
        "import os, time\n"
        f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
        'print(\'{"level": "info", "event": "starting"}\', flush=True)\n'
        "time.sleep(120)\n"
    )
    suite(tmp_path, USES_THE_SANDBOX)
    result = run_pytest("--comptoir-command", f"{sys.executable} {chatty}", cwd=tmp_path)
    assert result.returncode == 1
    assert 'comptoir sandbox: the first line on stdout is not the ready line: \'{"level": "info"' in result.stdout
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)  # stopped, not left running


def test_a_command_not_found_fails_the_test_saying_what_to_install(tmp_path: Path) -> None:
    suite(tmp_path, USES_THE_SANDBOX)
    result = run_pytest("--comptoir-command", "no-such-comptoir sandbox", cwd=tmp_path)
    assert result.returncode == 1
    assert (
        "comptoir sandbox: 'no-such-comptoir' is not on PATH: install the server where the tests run,"
        " or give --comptoir-command or --comptoir-url"
    ) in result.stdout


def test_a_sandbox_that_ignores_sigterm_is_killed_at_the_session_end(tmp_path: Path) -> None:
    """SIGTERM first (the sandbox removes its temporary database), SIGKILL after the wait."""
    pid_file = tmp_path / "pid"
    stubborn = tmp_path / "stubborn_sandbox.py"
    stubborn.write_text(
        "import os, signal, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
        'print(\'{"url": "http://127.0.0.1:9"}\', flush=True)\n'
        "time.sleep(120)\n"
    )
    (tmp_path / "conftest.py").write_text("import comptoir_client.pytest_plugin as plugin\nplugin.STOP_SECONDS = 0.5\n")
    suite(
        tmp_path,
        "def test_started(comptoir_sandbox_session):\n    assert comptoir_sandbox_session.url == 'http://127.0.0.1:9'\n",
    )
    started = time.monotonic()
    result = run_pytest("--comptoir-command", f"{sys.executable} {stubborn}", cwd=tmp_path)
    assert passed(result).startswith("1 passed")
    assert time.monotonic() - started < 60
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)  # gone (and reaped by the session)


WHAT_A_TEST_GETS = """
import asyncio
from datetime import datetime, timezone

import pytest

from comptoir_client import APIError, Comptoir
from comptoir_client.pytest_plugin import ClockReading

CLIENTS = []


def test_the_seed_s_values(comptoir_sandbox):
    assert comptoir_sandbox.api_url == comptoir_sandbox.url + "/v1"
    assert comptoir_sandbox.oauth_url == comptoir_sandbox.url + "/oauth2/v1"
    assert comptoir_sandbox.ids["locations"] == {"paris": "pizzas-1", "lyon": "pizzas-2"}
    assert comptoir_sandbox.ids["users"] == {"owner": "6pqkkv"}
    assert comptoir_sandbox.ids["applications"]["pos"] == "tmy6nk"
    assert comptoir_sandbox.token("pos_paris") == comptoir_sandbox.seed["connections"]["pos_paris"]["access_token"]
    assert comptoir_sandbox.token("pos_paris") == "pos-paris-sandbox-token"  # written in the seed
    assert comptoir_sandbox.connection("delivery_app")["scope"] == "account[orders.write]"
    assert comptoir_sandbox.application("pos")["client_id"] == "tmy6nk"
    with pytest.raises(KeyError, match="the seed has no connection 'pos_lyon'"):
        comptoir_sandbox.token("pos_lyon")


def test_a_client_per_connection_closed_after_the_test(comptoir_sandbox):
    client = comptoir_sandbox.client("pos_paris")
    assert isinstance(client, Comptoir)
    assert client.locations.get("pizzas-1").name == "Pizzeria Napoli Paris"
    CLIENTS.append(client)


def test_the_client_of_the_test_before_is_closed():
    with pytest.raises(RuntimeError):
        CLIENTS[0].locations.get("pizzas-1")


def test_an_async_client(comptoir_sandbox):
    async def read():
        async with comptoir_sandbox.async_client("pos_paris") as pos:
            return (await pos.locations.get("pizzas-1")).name

    assert asyncio.run(read()) == "Pizzeria Napoli Paris"


def test_the_clock(comptoir_sandbox):
    assert comptoir_sandbox.now().real is True
    moved = comptoir_sandbox.set_clock(datetime(2030, 6, 24, 19, 30, tzinfo=timezone.utc))
    assert moved == ClockReading(datetime(2030, 6, 24, 19, 30, tzinfo=timezone.utc), False)
    assert comptoir_sandbox.advance_clock(3600).now == datetime(2030, 6, 24, 20, 30, tzinfo=timezone.utc)
    with pytest.raises(APIError, match="now: is before the sandbox's current time"):
        comptoir_sandbox.set_clock("2030-06-24T19:30:00Z")


def test_a_reset_during_the_test(comptoir_sandbox):
    comptoir_sandbox.advance_clock(60)
    assert comptoir_sandbox.reset()["locations"]["paris"] == "pizzas-1"
    assert comptoir_sandbox.now().real is True


def test_deliveries_by_connection_and_event_type(comptoir_sandbox):
    assert comptoir_sandbox.deliveries() == []
    assert comptoir_sandbox.deliveries(connection="pos_paris", event_type="order.create") == []
    with pytest.raises(AssertionError, match="0 of 1 deliveries within 0.2 s"):
        comptoir_sandbox.wait_for_deliveries(connection="pos_paris", timeout=0.2)
"""


def test_what_a_test_gets_from_the_sandbox(tmp_path: Path) -> None:
    suite(tmp_path, WHAT_A_TEST_GETS)
    result = run_pytest(cwd=tmp_path)
    assert passed(result).startswith("7 passed")
