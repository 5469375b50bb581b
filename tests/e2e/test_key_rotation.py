"""docs/operations.md "Server key": rotating the server key with real processes. A token, a
client secret and a back-office session made under key A keep working on a process started
with key B after `rotate-key`, while A's process still runs beside it; after
`rotate-key --retire-others` a process with key A refuses to start."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import COMPTOIR, LOOPBACK, Server, free_port, run_cli

KEY_A = "a" * 64
KEY_B = "b" * 64
PASSWORD = "long-enough-password"
MISMATCH = (
    "error: COMPTOIR_SECRET_KEY does not match this database's key: give a server key this database"
    ' accepts (docs/operations.md "Server key")\n'
)


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'comptoir.db'}"
    return request.getfixturevalue("fresh_postgres")


def serve_refused(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")} | LOOPBACK | env
    return subprocess.run(
        [COMPTOIR, "serve", "--port", str(free_port())],
        env=full_env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def log_in(server: Server, email: str) -> httpx.Cookies:
    with server.http() as http:
        form = http.get("/login")
        csrf = re.search(r'name="csrf" value="([^"]+)"', form.text)
        assert csrf is not None
        answer = http.post("/login", data={"csrf": csrf.group(1), "email": email, "password": PASSWORD})
        assert answer.status_code == 303, answer.text
        return http.cookies


def home(server: Server, cookies: httpx.Cookies) -> httpx.Response:
    with httpx.Client(base_url=server.base_url, timeout=10, cookies=cookies) as http:
        return http.get("/")


def test_rotation_keeps_tokens_client_secrets_sessions_and_ids(
    url: str, start_server: Callable[..., Server], tmp_path: Path
) -> None:
    env_a = {"COMPTOIR_DATABASE_URL": url, "COMPTOIR_SECRET_KEY": KEY_A}
    env_b = {"COMPTOIR_DATABASE_URL": url, "COMPTOIR_SECRET_KEY": KEY_B}
    server_a = start_server(env=env_a)
    run_cli("admin", "create-user", "--email", "owner@example.com", "--password", PASSWORD, env=env_a, cwd=tmp_path)
    account = run_cli(
        "admin", "create-account", "--owner", "owner@example.com", "--name", "Shop", "--currency", "EUR",
        env=env_a, cwd=tmp_path,
    )  # fmt: skip
    location = run_cli("admin", "create-location", "--account", str(account["id"]), "--name", "Paris", env=env_a, cwd=tmp_path)
    client = run_cli("admin", "create-client", "--name", "POS", env=env_a, cwd=tmp_path)
    token = run_cli(
        "admin", "connect", "--client", str(client["client_id"]), "--user", "owner@example.com",
        "--scope", "location[orders.read]", "--location", str(location["id"]), env=env_a, cwd=tmp_path,
    )["access_token"]  # fmt: skip
    revocable = run_cli(
        "admin", "connect", "--client", str(client["client_id"]), "--user", "owner@example.com",
        "--scope", "location[orders.read]", "--location", str(location["id"]), "--name", "second",
        env=env_a, cwd=tmp_path,
    )["access_token"]  # fmt: skip
    cookies = log_in(server_a, "owner@example.com")

    assert run_cli("rotate-key", env=env_a | {"COMPTOIR_NEW_SECRET_KEY": KEY_B}, cwd=tmp_path) == {"wraps": 2}
    server_b = start_server(env=env_b)

    for server in (server_a, server_b):  # side by side
        with server.http() as http:
            answer = http.get(f"/v1/locations/{location['id']}", headers={"X-Access-Token": str(token)})
            assert answer.status_code == 200, answer.text
            assert answer.json()["id"] == location["id"]
        assert home(server, cookies).status_code == 200
    with server_b.http() as http:
        revoked = http.post(
            "/oauth2/v1/revoke",
            data={"client_id": client["client_id"], "client_secret": client["client_secret"], "token": revocable},
        )
        assert revoked.status_code == 200, revoked.text
        gone = http.get(f"/v1/locations/{location['id']}", headers={"X-Access-Token": str(revocable)})
        assert gone.status_code == 401
    # the public ids, and what a command prints under key B, are those made under key A
    again = run_cli(
        "admin", "connect", "--client", str(client["client_id"]), "--user", "owner@example.com",
        "--scope", "location[orders.read]", "--location", str(location["id"]), env=env_b, cwd=tmp_path,
    )  # fmt: skip
    assert again["access_token"] == token

    assert run_cli("rotate-key", "--retire-others", env=env_b, cwd=tmp_path) == {"wraps": 1}
    refused = serve_refused(env_a, tmp_path)
    assert refused.returncode == 1
    assert refused.stdout == ""
    assert refused.stderr.endswith(MISMATCH)
    with server_b.http() as http:
        answer = http.get(f"/v1/locations/{location['id']}", headers={"X-Access-Token": str(token)})
        assert answer.status_code == 200


def test_a_process_with_an_unknown_key_refuses_to_start(url: str, tmp_path: Path) -> None:
    env_a = {"COMPTOIR_DATABASE_URL": url, "COMPTOIR_SECRET_KEY": KEY_A}
    run_cli("migrate", env=env_a, cwd=tmp_path)
    refused = serve_refused(env_a | {"COMPTOIR_SECRET_KEY": "c" * 64}, tmp_path)
    assert (refused.returncode, refused.stdout) == (1, "")
    assert refused.stderr.endswith(MISMATCH)
    assert refused.stderr.count("COMPTOIR_SECRET_KEY") == 1
