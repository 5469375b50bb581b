"""docs/operations.md "Server key": rotating the server key with real processes. A token, a
client secret and a back-office session made under key A keep working on a process started
with key B after `rotate-key`, while A's process still runs beside it; after
`rotate-key --retire-others` a process with key A refuses to start."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import COMPTOIR, LOOPBACK, Server, free_port, run_cli
from tests.waiting import PATIENCE

KEY_A = "a" * 64
KEY_B = "b" * 64
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


def log_in(server: Server, email: str, password: str) -> httpx.Cookies:
    with server.http() as http:
        form = http.get("/login")
        csrf = re.search(r'name="csrf" value="([^"]+)"', form.text)
        assert csrf is not None
        answer = http.post("/login", data={"csrf": csrf.group(1), "email": email, "password": password})
        assert answer.status_code == 303, answer.text
        return http.cookies


def home(server: Server, cookies: httpx.Cookies) -> httpx.Response:
    with httpx.Client(base_url=server.base_url, timeout=PATIENCE, cookies=cookies) as http:
        return http.get("/")


def test_rotation_keeps_tokens_client_secrets_sessions_and_ids(
    url: str, start_server: Callable[..., Server], tmp_path: Path
) -> None:
    env_a = {"COMPTOIR_DATABASE_URL": url, "COMPTOIR_SECRET_KEY": KEY_A}
    env_b = {"COMPTOIR_DATABASE_URL": url, "COMPTOIR_SECRET_KEY": KEY_B}
    server_a = start_server("--demo", env=env_a, read_first_line=True)
    assert server_a.first_line is not None
    demo = json.loads(server_a.first_line)
    location = f"/v1/locations/{demo['location_ids'][0]}"
    cookies = log_in(server_a, demo["user"]["email"], demo["user"]["password"])

    assert run_cli("rotate-key", env=env_a | {"COMPTOIR_NEW_SECRET_KEY": KEY_B}, cwd=tmp_path) == {"wraps": 2}
    server_b = start_server("--demo", env=env_b, read_first_line=True)
    # the same ids, client secret and tokens, printed by a process with key B
    assert server_b.first_line is not None
    assert json.loads(server_b.first_line) == demo

    for server in (server_a, server_b):  # side by side
        with server.http() as http:
            answer = http.get(location, headers={"X-Access-Token": demo["tokens"]["location"]})
            assert answer.status_code == 200, answer.text
        assert home(server, cookies).status_code == 200
    with server_b.http() as http:
        client = demo["client"]
        revoked = http.post("/oauth2/v1/revoke", data=client | {"token": demo["tokens"]["account"]})
        assert revoked.status_code == 200, revoked.text
        gone = http.get(location, headers={"X-Access-Token": demo["tokens"]["account"]})
        assert gone.status_code == 401

    assert run_cli("rotate-key", "--retire-others", env=env_b, cwd=tmp_path) == {"wraps": 1}
    refused = serve_refused(env_a, tmp_path)
    assert (refused.returncode, refused.stdout) == (1, "")
    assert refused.stderr.endswith(MISMATCH)
    with server_b.http() as http:
        answer = http.get(location, headers={"X-Access-Token": demo["tokens"]["location"]})
        assert answer.status_code == 200


def test_a_process_with_an_unknown_key_refuses_to_start(url: str, tmp_path: Path) -> None:
    env_a = {"COMPTOIR_DATABASE_URL": url, "COMPTOIR_SECRET_KEY": KEY_A}
    run_cli("migrate", env=env_a, cwd=tmp_path)
    refused = serve_refused(env_a | {"COMPTOIR_SECRET_KEY": "c" * 64}, tmp_path)
    assert (refused.returncode, refused.stdout) == (1, "")
    assert refused.stderr.endswith(MISMATCH)
    assert refused.stderr.count("COMPTOIR_SECRET_KEY") == 1
