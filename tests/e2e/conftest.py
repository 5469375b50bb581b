"""Real `comptoir` processes, driven over HTTP as integrators and operators would."""

from __future__ import annotations

import asyncio
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeVar

import httpx
import pytest

from comptoir.config import Settings
from comptoir.db.engine import create_database
from tests.conftest import (
    PATIENT_BOUNDS,
    PROCESS_POOLS,
    TEST_ALLOWED_NETWORKS,
    create_postgres_database,
    drop_postgres_database,
    new_database_name,
)
from tests.factories import World
from tests.response_schemas import CheckedHTTPTransport
from tests.waiting import PATIENCE

# what every `comptoir` process of the tests gets: its callback receivers are on loopback, and
# its pools are small (tests/conftest.py PROCESS_POOLS)
LOOPBACK = {
    "COMPTOIR_CALLBACK_ALLOWED_NETWORKS": TEST_ALLOWED_NETWORKS,
    **{f"COMPTOIR_{name.upper()}": str(value) for name, value in (PATIENT_BOUNDS | PROCESS_POOLS).items()},
}

COMPTOIR = str(Path(sys.executable).parent / "comptoir")

T = TypeVar("T")


def in_world(database_url: str, secret_key: str, build: Callable[[World], Awaitable[T]]) -> T:
    """What `build` makes with the test factories in the database the servers of a test use,
    under their server key (rows made before the servers start, or beside them)."""

    async def run() -> T:
        settings = Settings(database_url=database_url, secret_key=secret_key)
        db = create_database(settings, pool_size=2)
        try:
            return await build(World(db, settings.server_key()))
        finally:
            await db.dispose()

    return asyncio.run(run())


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    process: subprocess.Popen[str]
    base_url: str
    first_line: str | None
    stderr_path: Path

    def http(self) -> httpx.Client:
        """A client whose every JSON answer is checked against its documented schema."""
        return httpx.Client(base_url=self.base_url, timeout=PATIENCE, transport=CheckedHTTPTransport())

    def logs(self) -> str:
        return self.stderr_path.read_text()


def wait_until_up(server: Server, timeout: float = PATIENCE) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise AssertionError(f"server exited with {server.process.returncode}: {server.logs()}")
        try:
            if httpx.get(f"{server.base_url}/v1/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"server did not start: {server.logs()}")


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    servers: list[Server] = []
    files: list[IO[str]] = []

    def start(
        *args: str,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        read_first_line: bool = False,
        unset: tuple[str, ...] = (),
    ) -> Server:
        port = free_port()
        stderr_path = tmp_path / f"server-{port}.log"
        stderr_file = stderr_path.open("w")
        files.append(stderr_file)
        full_env = _environment(env or {}, unset)
        process = subprocess.Popen(
            [COMPTOIR, "serve", "--port", str(port), *args],
            cwd=cwd or tmp_path,
            env=full_env,
            stdout=subprocess.PIPE,
            stderr=stderr_file,
            text=True,
        )
        first_line = _read_line(process.stdout, 60) if read_first_line else None
        server = Server(process, f"http://127.0.0.1:{port}", first_line, stderr_path)
        servers.append(server)
        wait_until_up(server)
        return server

    yield start
    for server in servers:
        server.process.send_signal(signal.SIGTERM)
    for server in servers:
        try:
            server.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()
        if server.process.stdout is not None:
            server.process.stdout.close()
    for handle in files:
        handle.close()


def _read_line(stream: IO[str] | None, timeout: float) -> str:
    assert stream is not None
    import select

    ready, _, _ = select.select([stream], [], [], timeout)
    assert ready, "no line on stdout"
    return stream.readline()


@pytest.fixture
def fresh_postgres() -> Iterator[str]:
    name = new_database_name()
    url = create_postgres_database(name)
    yield url
    drop_postgres_database(name)


def _environment(env: dict[str, str], unset: tuple[str, ...]) -> dict[str, str]:
    """A process's environment: this one's without its COMPTOIR_ variables, then LOOPBACK and
    `env`, less the variables named in `unset`."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")} | LOOPBACK | env
    return {k: v for k, v in full.items() if k not in unset}


def run_cli(*args: str, env: dict[str, str], cwd: Path, unset: tuple[str, ...] = ()) -> dict[str, object]:
    full_env = _environment(env, unset)
    result = subprocess.run(
        [COMPTOIR, *args], env=full_env, cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def cli_in_process(*args: str, env: dict[str, str]) -> dict[str, object]:
    """`comptoir *args` as `run_cli` runs it (`env` its whole COMPTOIR_ environment), but in
    this process: a second's start less per command. In a thread, so that it runs beside an
    event loop of this one (Playwright's, an async test's)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(_cli_here, args, env).result()


def _cli_here(args: tuple[str, ...], env: dict[str, str]) -> dict[str, object]:
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from comptoir.cli import main

    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update({k: v for k, v in saved.items() if not k.startswith("COMPTOIR_")} | LOOPBACK | env)
    out, err = io.StringIO(), io.StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                main(list(args))
                code = 0
            except SystemExit as exc:
                code = int(exc.code or 0)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    assert code == 0, err.getvalue()
    return json.loads(out.getvalue())


END = None  # what `sse_messages` puts once the stream ended


def sse_messages(
    http: httpx.Client, path: str, headers: dict[str, str] | None = None
) -> Iterator[queue.Queue[dict[str, str] | None]]:
    """A thread reading the Server-Sent Events at `path` with `http` (once it answered 200):
    each message as a dict of its fields (comments left out), then END; {"broken": why}
    before END when the answer did not end cleanly. The thread is joined after the yield."""
    messages: queue.Queue[dict[str, str] | None] = queue.Queue()
    opened = threading.Event()

    def read() -> None:
        try:
            with http.stream("GET", path, headers=headers) as response:
                assert response.status_code == 200
                opened.set()
                fields: dict[str, str] = {}
                for line in response.iter_lines():
                    if line == "":
                        if fields:
                            messages.put(fields)
                        fields = {}
                    elif not line.startswith(":"):
                        name, _, value = line.partition(":")
                        fields[name] = value.removeprefix(" ")
        except httpx.RemoteProtocolError as exc:  # the server went without ending the answer
            messages.put({"broken": str(exc)})
        messages.put(END)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    assert opened.wait(PATIENCE)
    yield messages
    thread.join(PATIENCE)
