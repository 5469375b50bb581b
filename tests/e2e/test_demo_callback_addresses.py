"""docs/api/callbacks-events.md "Allowed addresses": under `serve --demo`, with
COMPTOIR_CALLBACK_ALLOWED_NETWORKS unset, a callback on this machine may be registered and
tested through the API, and `comptoir admin callback-test`, run beside it on the same
database, reaches it too: both read the same rule."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.conftest import Server, run_cli
from tests.receiver import running_receiver

pytestmark = pytest.mark.e2e

UNSET = ("COMPTOIR_CALLBACK_ALLOWED_NETWORKS",)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_env(request: pytest.FixtureRequest) -> dict[str, str]:
    """SQLite in the directory the processes run in, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return {}
    return {
        "COMPTOIR_DATABASE_URL": request.getfixturevalue("fresh_postgres"),
        "COMPTOIR_SECRET_KEY": "demo-addresses-key-at-least-32-bytes-long",
    }


def test_the_command_lines_test_event_reaches_what_the_apis_reaches_under_serve_demo(
    start_server: Callable[..., Server], tmp_path: Path, database_env: dict[str, str]
) -> None:
    server = start_server("--demo", read_first_line=True, env=database_env, unset=UNSET)
    assert server.first_line is not None
    token = json.loads(server.first_line)["tokens"]["location"]
    headers = {"X-Access-Token": token}
    with running_receiver() as receiver, server.http() as http:
        registered = http.post("/v1/callback", json={"url": receiver.url("/hook"), "events": {}}, headers=headers)
        assert registered.status_code == 200, registered.text
        api = http.post("/v1/callback/test", headers=headers).json()
        command = run_cli("admin", "callback-test", "--token", token, env=database_env, cwd=tmp_path, unset=UNSET)
        assert (api["delivered"], api["status"], api["error"]) == (True, 200, None)
        assert (command["delivered"], command["status"], command["error"]) == (True, 200, None)  # type: ignore[index]
        ids = [request.headers["webhook-id"] for request in receiver.requests_to("/hook")]
        assert ids == [api["event"]["id"], command["event"]["id"]]  # type: ignore[index]
