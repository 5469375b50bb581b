"""A pytest plugin for an integrator's tests against `comptoir sandbox` (docs/sandbox.md
"The pytest plugin"). Registered by its `pytest11` entry point, under its module's name:
while no test asks for its fixtures it only adds its options, and starts nothing.

    def test_the_site_places_an_order(comptoir_sandbox):
        with comptoir_sandbox.client("ordering_site_paris") as site:
            site.orders.create(comptoir_sandbox.ids["locations"]["paris"], {"status": "new"})

- `comptoir_sandbox_session` (session): the sandbox, started once per session (once per
  pytest-xdist worker, each on its own port) with `<command> --seed <seed> --port 0
  [--database URL]`, stopped at the end (SIGTERM, then SIGKILL after 10 s); or the one already
  running at `--comptoir-url`.
- `comptoir_sandbox` (function): the same, reset to its seed (`POST /sandbox/reset`) before
  the test: what the seed made, a client per connection, the clock and the deliveries.

The server is never imported: the sandbox runs as a process of its own, `comptoir sandbox`
found on PATH (or beside the Python running pytest) unless `--comptoir-command` says otherwise.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NoReturn

import pytest

if TYPE_CHECKING:  # imported when first used, by a suite that asks for the sandbox
    import httpx

    from comptoir_client.client import AsyncComptoir, Comptoir

DEFAULT_COMMAND = "comptoir sandbox"
DEFAULT_TIMEOUT = 60.0
STOP_SECONDS = 10.0  # between SIGTERM and SIGKILL at the session's end
# The sections of the ready line whose entries are ids (docs/sandbox.md "The ready line").
_ID_SECTIONS = ("accounts", "locations", "catalogs", "customer_lists", "customers", "loyalty_cards")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("comptoir", "Comptoir sandbox (docs/sandbox.md)")
    options = (
        ("seed", "PATH", "the seed file the sandbox starts from (ini: relative to the ini file)"),
        ("url", "URL", "use the sandbox already running there instead of starting one"),
        ("command", "COMMAND", f"how to start a sandbox (default: {DEFAULT_COMMAND!r})"),
        ("database", "URL", "the sandbox's --database (with xdist, each worker's gets _gwN)"),
        ("timeout", "SECONDS", f"how long to wait for the ready line (default: {DEFAULT_TIMEOUT:g})"),
    )
    for name, metavar, help_text in options:
        group.addoption(f"--comptoir-{name}", dest=f"comptoir_{name}", metavar=metavar, help=help_text)
        if name == "seed":  # "paths": relative to the ini file
            parser.addini("comptoir_seed", help_text, type="paths", default=[])
        else:
            parser.addini(f"comptoir_{name}", help_text, type="string", default="")


def _fail(message: str) -> NoReturn:
    """The fixture fails with `message` alone (no traceback of the plugin's)."""
    pytest.fail(message, pytrace=False)


def _setting(config: pytest.Config, name: str) -> str | None:
    """The command line's value, else the ini file's (a seed path relative to the ini file)."""
    given = config.getoption(f"comptoir_{name}")
    if given:
        return str(given)
    value = config.getini(f"comptoir_{name}")
    if isinstance(value, list):
        return str(value[0]) if value else None
    return str(value) or None


class SandboxProcess:
    """A `comptoir sandbox` process of this session: started, waited for, stopped."""

    def __init__(self, argv: list[str], timeout: float) -> None:
        self.log = tempfile.NamedTemporaryFile(prefix="comptoir-sandbox-", suffix=".log", delete=False)  # noqa: SIM115
        try:
            # the command is the test suite's own configuration, as trusted as its code
            self.process = subprocess.Popen(  # noqa: S603
                argv,
                stdout=subprocess.PIPE,
                stderr=self.log,
                encoding="utf-8",  # the ready line's JSON, whatever this machine's locale
                start_new_session=os.name == "posix",
            )
        except OSError as exc:
            self.log.close()
            Path(self.log.name).unlink()
            _fail(f"comptoir sandbox: cannot run {shlex.join(argv)}: {exc}")
        self.argv = argv
        self.lines: queue.Queue[str | None] = queue.Queue()
        assert self.process.stdout is not None
        threading.Thread(target=_read_lines, args=(self.process.stdout, self.lines), daemon=True).start()
        try:
            self.ready = self._wait_ready(timeout)
        except BaseException:  # Ctrl-C while waiting, too: the sandbox is not left running
            self.stop()
            raise

    def logs(self) -> str:
        """What the sandbox wrote on stderr so far."""
        return Path(self.log.name).read_text(errors="replace")

    def _wait_ready(self, timeout: float) -> dict[str, Any]:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            self._refused(f"no ready line within {timeout:g} s")
        if line is None:  # stdout closed: the process ended
            self._refused(f"the sandbox exited ({self.process.wait()}) before its ready line")
        try:
            ready = json.loads(line)
        except ValueError:
            ready = None
        if not isinstance(ready, dict) or not isinstance(ready.get("url"), str):
            self._refused(f"the first line on stdout is not the ready line: {line.strip()!r}")
        return ready

    def _refused(self, what: str) -> NoReturn:
        """Stop the process and fail the fixture, with what it wrote on stderr."""
        self._halt()
        logs = self.logs()
        self.stop()
        _fail(f"comptoir sandbox: {what}\ncommand: {shlex.join(self.argv)}\nits stderr:\n{logs}")

    def stop(self) -> None:
        self._halt()
        self.log.close()
        Path(self.log.name).unlink(missing_ok=True)

    def _halt(self) -> None:
        """SIGTERM (the sandbox closes and removes its temporary database), then SIGKILL after
        STOP_SECONDS; to the process group on POSIX, so that a wrapper's child (`uv run ...`,
        `sh -c ...`) stops too, even when the wrapper itself has already ended."""
        if self.process.poll() is None or os.name == "posix":
            self._signal(kill=False)
            try:
                self.process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self._signal(kill=True)
                self.process.wait()

    def _signal(self, *, kill: bool) -> None:
        if os.name != "posix":
            self.process.kill() if kill else self.process.terminate()
            return
        with contextlib.suppress(ProcessLookupError):  # already gone
            os.killpg(self.process.pid, signal.SIGKILL if kill else signal.SIGTERM)


def _read_lines(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    """Every line the sandbox prints (only the first is read), then None once it is closed:
    read to the end, so the pipe never fills."""
    with stream:
        for line in stream:
            lines.put(line)
    lines.put(None)


@dataclass(frozen=True)
class ClockReading:
    """The sandbox's time (to the second), and whether it is the real one."""

    now: datetime
    real: bool


class Sandbox:
    """A running sandbox, at `url`: what its seed made (`seed`, the ready line's object),
    clients by connection key, its clock and the callback POSTs it made."""

    def __init__(self, url: str, seed: dict[str, Any], http: httpx.Client, process: SandboxProcess | None) -> None:
        self.url = url.rstrip("/")
        self.api_url = f"{self.url}/v1"
        self.oauth_url = f"{self.url}/oauth2/v1"
        self.seed = seed
        self._http, self._process = http, process
        self._clients: list[Comptoir] = []

    @property
    def ids(self) -> dict[str, dict[str, str]]:
        """The seed's ids by section and key: `ids["locations"]["paris"]`; a user's id, an
        application's client id."""
        seed = self.seed
        ids: dict[str, dict[str, str]] = {section: dict(seed.get(section, {})) for section in _ID_SECTIONS}
        ids["users"] = {key: user["id"] for key, user in seed.get("users", {}).items()}
        ids["applications"] = {key: app["client_id"] for key, app in seed.get("applications", {}).items()}
        return ids

    def connection(self, key: str) -> dict[str, Any]:
        """The seed connection's token body (`access_token`, `scope`, `location_id`...)."""
        connections: dict[str, dict[str, Any]] = self.seed["connections"]
        if key not in connections:
            raise KeyError(f"the seed has no connection {key!r} (it has {', '.join(connections) or 'none'})")
        return connections[key]

    def token(self, key: str) -> str:
        """The seed connection's access token."""
        return str(self.connection(key)["access_token"])

    def application(self, key: str) -> dict[str, str]:
        """The seed application's `client_id` and `client_secret`."""
        applications: dict[str, dict[str, str]] = self.seed["applications"]
        return applications[key]

    def client(self, key: str, **options: Any) -> Comptoir:
        """A `Comptoir` client with the connection's token; closed after the test (after the
        session, asked of `comptoir_sandbox_session`)."""
        from comptoir_client.client import Comptoir

        client = Comptoir(token=self.token(key), base_url=self.url, **options)
        self._clients.append(client)
        return client

    def async_client(self, key: str, **options: Any) -> AsyncComptoir:
        """An `AsyncComptoir` client with the connection's token: `async with` it."""
        from comptoir_client.client import AsyncComptoir

        return AsyncComptoir(token=self.token(key), base_url=self.url, **options)

    def reset(self) -> dict[str, Any]:
        """Put the seeded state back (also the clock and the deliveries); what the seed made."""
        answer: dict[str, Any] = self._ask("POST", "/sandbox/reset")
        self.seed = answer
        return answer

    def advance_clock(self, seconds: int) -> ClockReading:
        """Move the sandbox's time forward by `seconds` (whole, 0 or more)."""
        return self._clock({"advance_seconds": seconds})

    def set_clock(self, when: datetime | str) -> ClockReading:
        """Move the sandbox's time forward to `when` (UTC when it has no offset)."""
        return self._clock({"now": when.isoformat() if isinstance(when, datetime) else when})

    def now(self) -> ClockReading:
        """The sandbox's time, unmoved."""
        return self._clock({"advance_seconds": 0})

    def deliveries(self, connection: str | None = None, event_type: str | None = None) -> list[dict[str, Any]]:
        """The callback POSTs made since the last reset, newest first: `connection` a seed key
        or a connection id, `event_type` as `order.update` (docs/sandbox.md "Deliveries")."""
        params = {name: value for name, value in (("connection", connection), ("event_type", event_type)) if value}
        listed: list[dict[str, Any]] = self._ask("GET", "/sandbox/deliveries", params=params)
        return listed

    def wait_for_deliveries(
        self, count: int = 1, connection: str | None = None, event_type: str | None = None, timeout: float = 10.0
    ) -> list[dict[str, Any]]:
        """`deliveries(...)` once it lists at least `count` POSTs (callbacks are sent by the
        sandbox's worker, after the request that made the event has answered)."""
        deadline = time.monotonic() + timeout
        while True:
            listed = self.deliveries(connection, event_type)
            if len(listed) >= count or time.monotonic() > deadline:
                if len(listed) < count:
                    raise AssertionError(f"{len(listed)} of {count} deliveries within {timeout:g} s: {listed}")
                return listed
            time.sleep(0.05)

    def logs(self) -> str:
        """What the sandbox started by this session wrote on stderr ('' for `--comptoir-url`)."""
        return self._process.logs() if self._process is not None else ""

    def _clock(self, body: dict[str, Any]) -> ClockReading:
        answer = self._ask("POST", "/sandbox/clock", json=body)
        return ClockReading(datetime.fromisoformat(answer["now"].replace("Z", "+00:00")), answer["real"])

    def _ask(self, method: str, path: str, **kwargs: Any) -> Any:
        from comptoir_client.errors import error_of

        response = self._http.request(method, path, **kwargs)
        if response.status_code != 200:
            raise error_of(response)  # the API's error format (a clock move refused: 422)
        return response.json()

    def _close_clients(self) -> None:
        for client in self._clients:
            client.close()
        self._clients.clear()


@pytest.fixture(scope="session")
def comptoir_sandbox_session(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    """The session's sandbox, as of its start (use `comptoir_sandbox` in a test: it resets)."""
    import httpx

    config = request.config
    url = _setting(config, "url")
    timeout = float(_setting(config, "timeout") or DEFAULT_TIMEOUT)
    process = None
    if url is None:
        process = SandboxProcess(_argv(config), timeout)
        url, seed = process.ready["url"], {k: v for k, v in process.ready.items() if k != "url"}
    else:
        workers = int(_xdist(config).get("workercount", 1))
        if workers > 1:  # each worker would reset it under the others' tests
            _fail(f"--comptoir-url: one sandbox cannot serve {workers} xdist workers; run with -n 0")
        seed = _first_reset(url, timeout)
    try:
        with httpx.Client(base_url=url, timeout=30) as http:
            sandbox = Sandbox(url, seed, http, process)
            yield sandbox
            sandbox._close_clients()  # those a session-scoped fixture of the suite's asked for
    finally:
        if process is not None:
            process.stop()


def _first_reset(url: str, timeout: float) -> dict[str, Any]:
    """What the seed of the sandbox at `url` made, once it answers (a CI service may still be
    starting): its reset's answer."""
    import httpx

    deadline = time.monotonic() + timeout
    while True:
        try:
            answer = httpx.post(f"{url.rstrip('/')}/sandbox/reset", timeout=30)
        except httpx.TransportError as exc:
            if time.monotonic() > deadline:
                _fail(f"--comptoir-url: no sandbox answers at {url} within {timeout:g} s ({exc})")
            time.sleep(0.5)
            continue
        if answer.status_code != 200:
            _fail(f"--comptoir-url: {url} answered POST /sandbox/reset with {answer.status_code}: is it a sandbox?")
        seed: dict[str, Any] = answer.json()
        return seed


@pytest.fixture
def comptoir_sandbox(comptoir_sandbox_session: Sandbox) -> Iterator[Sandbox]:
    """The session's sandbox reset to its seed: what the seed made, clients, clock, deliveries."""
    comptoir_sandbox_session.reset()
    yield comptoir_sandbox_session
    comptoir_sandbox_session._close_clients()


def _argv(config: pytest.Config) -> list[str]:
    seed = _setting(config, "seed")
    if seed is None:
        _fail("comptoir sandbox: give a seed file (--comptoir-seed or comptoir_seed in the ini file)")
    command = shlex.split(_setting(config, "command") or DEFAULT_COMMAND)
    command[0] = _executable(command[0])
    argv = [*command, "--seed", str(Path(seed).resolve()), "--port", "0"]
    database = _setting(config, "database")
    if database:
        worker = _xdist(config).get("workerid")
        argv += ["--database", _per_worker(database, worker) if worker else database]
    return argv


def _xdist(config: pytest.Config) -> dict[str, Any]:
    """What pytest-xdist tells one of its workers (`workerid`: gw0...; `workercount`), else {}."""
    workerinput: dict[str, Any] = getattr(config, "workerinput", {})
    return workerinput


def _executable(name: str) -> str:
    """`name` on PATH, else beside the Python running pytest (a virtual environment's
    `bin/` when pytest was started without activating it)."""
    found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        _fail(
            f"comptoir sandbox: {name!r} is not on PATH: install the server where the tests run,"
            " or give --comptoir-command or --comptoir-url"
        )
    return found


def _per_worker(database: str, worker: str) -> str:
    """The database of one xdist worker: `name` becomes `name_gw0` (`file.db`, `file_gw0.db`)."""
    url, _, query = database.partition("?")
    head, _, last = url.rpartition("/")
    stem, dot, suffix = last.rpartition(".") if "." in last else (last, "", "")
    return f"{head}/{stem}_{worker}{dot}{suffix}" + (f"?{query}" if query else "")
