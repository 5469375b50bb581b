"""examples/verify_callback.py, run as its own process, verifies real callbacks under both
schemes and refuses a forged one (docs/api/callbacks-events.md "Verifying a callback")."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.api.callbacks.conftest import Listener, subscribe
from tests.api.callbacks.test_delivery import secret_of
from tests.factories import World
from tests.waiting import PATIENCE

EXAMPLE = Path(__file__).parents[3] / "examples" / "verify_callback.py"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def example() -> tuple[int, dict[str, str]]:
    port = free_port()
    return port, {**os.environ, "PORT": str(port)}


def start(port: int, env: dict[str, str]) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, str(EXAMPLE)], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    deadline = time.monotonic() + PATIENCE  # a Python process starting
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return process
        time.sleep(0.05)
    process.kill()
    raise AssertionError("the example did not start")


async def test_the_example_verifies_a_real_test_event_and_refuses_a_forged_one(
    client: httpx.AsyncClient, listener: Listener, world: World, example: tuple[int, dict[str, str]]
) -> None:
    port, env = example
    url = f"http://127.0.0.1:{port}/hook"
    await subscribe(client, listener.token, {"location": ["update"]}, url)
    env["CLIENT_SECRET"] = (await secret_of(world, listener)).decode()
    env["SIGNING_SECRET"] = (await client.get("/v1/callback/signing_secret", headers=listener.headers())).json()[
        "secret"
    ]
    process = start(port, env)
    try:
        body = (await client.post("/v1/callback/test", headers=listener.headers())).json()
        assert (body["delivered"], body["status"]) == (True, 200)
        async with httpx.AsyncClient() as outside:
            forged = await outside.post(
                url, content=b'{"id":"x"}', headers={"X-Service-Hmac-SHA256": "00", "webhook-id": "x"}
            )
        assert forged.status_code == 400
    finally:
        process.terminate()
        out, _ = process.communicate(timeout=PATIENCE)
    assert out == f"verified {body['event']['id']}: callback.test\n"
