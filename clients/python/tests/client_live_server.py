"""One real `comptoir serve` per test module and database (the `live` fixture), seeded with `comptoir demo`
(tests/e2e/conftest.py starts processes the same way)."""

from __future__ import annotations

import os
import signal
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import create_postgres_database, drop_postgres_database
from tests.e2e.conftest import COMPTOIR, LOOPBACK, Server, cli_in_process, free_port, wait_until_up
from tests.response_schemas import CheckedHTTPTransport

from comptoir_client import Comptoir, Retries

KEY = "client-tests-key-at-least-32-bytes-long"


@dataclass
class Live:
    """A running server and its demo data."""

    server: Server
    env: dict[str, str]
    cwd: Path
    demo: dict[str, Any]

    @property
    def base_url(self) -> str:
        return self.server.base_url

    @property
    def location_id(self) -> str:
        return str(self.demo["location_ids"][0])

    def client(self, token: str | None = None, **options: Any) -> Comptoir:
        """A client of this server, every answer checked against the server's document and
        read with the client's models (tests/response_schemas.py)."""
        options.setdefault("transport", CheckedHTTPTransport())
        options.setdefault("retries", Retries(backoff=0.01, max_backoff=0.05))
        return Comptoir(token or self.demo["tokens"]["location"], self.base_url, **options)

    def cli(self, *args: str) -> dict[str, Any]:
        return cli_in_process(*args, env=self.env)

    def connection(self, name: str, scope: str = "location[orders.read]") -> tuple[str, str, str]:
        """A new OAuth client connected to the first location: (client id, secret, token)."""
        made = self.cli("admin", "create-client", "--name", name)
        client_id, secret = str(made["client_id"]), str(made["client_secret"])
        args = ("--client", client_id, "--user", self.demo["user"]["email"], "--scope", scope)
        token = self.cli("admin", "connect", *args, "--location", self.location_id)["access_token"]
        return client_id, secret, str(token)


@contextmanager
def serving(cwd: Path, url: str, **extra: str) -> Iterator[Live]:
    """`comptoir serve` on the database at `url` with `comptoir demo` data, until the block ends."""
    env = {"COMPTOIR_DATABASE_URL": url, "COMPTOIR_SECRET_KEY": KEY, "COMPTOIR_RATE_LIMITS": "off"} | LOOPBACK | extra
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")} | env
    port = free_port()
    log = (cwd / "server.log").open("w")
    process = subprocess.Popen(
        [COMPTOIR, "serve", "--port", str(port)], cwd=cwd, env=full_env, stdout=log, stderr=log, text=True
    )
    server = Server(process, f"http://127.0.0.1:{port}", None, cwd / "server.log")
    try:
        wait_until_up(server)
        yield Live(server, env, cwd, cli_in_process("demo", env=env))
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def live(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    cwd = tmp_path_factory.mktemp("client-live")
    if request.param == "sqlite":
        with serving(cwd, f"sqlite:///{cwd}/comptoir.db") as running:
            yield running
        return
    database = f"comptoir_client_{uuid.uuid4().hex[:10]}"
    try:
        with serving(cwd, create_postgres_database(database)) as running:
            yield running
    finally:
        drop_postgres_database(database)
