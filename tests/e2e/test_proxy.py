"""docs/operations.md "Behind a proxy": a real `comptoir serve` behind a proxy on loopback
logs and throttles the client the proxy forwards, and makes its cookies `Secure` when the
proxy says the client came over https; without COMPTOIR_FORWARDED_ALLOW_IPS the headers
are ignored."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable

import httpx
import pytest

from tests.api.web.test_back_office_login import csrf_of
from tests.e2e.conftest import Server
from tests.waiting import PATIENCE

pytestmark = pytest.mark.e2e

DEMO_EMAIL = "demo@comptoir.example"  # cli/demo.py


def log_in(server: Server, email: str, password: str, **headers: str) -> httpx.Response:
    """A back-office login by a browser of its own, through the proxy's headers."""
    with httpx.Client(base_url=server.base_url, timeout=PATIENCE, headers=headers) as browser:
        form = browser.get("/login")
        cookie = form.headers["set-cookie"].split(";")[0]  # sent back as over https, even if Secure
        data = {"csrf": csrf_of(form.text), "email": email, "password": password}
        return browser.post("/login", data=data, headers={"Cookie": cookie})


def secure(answer: httpx.Response) -> bool:
    return "secure" in [part.strip().lower() for part in answer.headers["set-cookie"].split(";")]


def clients_logged(server: Server, path: str, count: int) -> list[str | None]:
    """The `client=` of the access log lines of `path`, once `count` are there: a line is
    written just after its response is sent."""
    deadline = time.monotonic() + PATIENCE
    while True:
        lines = [line for line in server.logs().splitlines() if "event=request" in line and f"path={path} " in line]
        if len(lines) >= count or time.monotonic() > deadline:
            found = [re.search(r"\bclient=(\S+)", line) for line in lines]
            return [match.group(1) if match else None for match in found]
        time.sleep(0.05)


def test_behind_a_trusted_proxy_the_forwarded_client_is_logged_and_throttled(
    start_server: Callable[..., Server],
) -> None:
    server = start_server("--demo", env={"COMPTOIR_FORWARDED_ALLOW_IPS": "127.0.0.1"}, read_first_line=True)
    password = json.loads(server.first_line or "{}")["user"]["password"]
    attacker = {"X-Forwarded-For": "198.51.100.1, 203.0.113.7"}  # the left is the client's own
    for _ in range(10):
        assert log_in(server, DEMO_EMAIL, "wrong-password", **attacker).status_code == 400
    assert log_in(server, DEMO_EMAIL, password, **attacker).status_code == 429
    owner = log_in(server, DEMO_EMAIL, password, **{"X-Forwarded-For": "203.0.113.8", "X-Forwarded-Proto": "https"})
    assert (owner.status_code, owner.headers["location"], secure(owner)) == (303, "/", True)
    plain = log_in(server, DEMO_EMAIL, password, **{"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "http"})
    assert (plain.status_code, secure(plain)) == (303, False)

    assert clients_logged(server, "/login", 26) == ["203.0.113.7"] * 22 + ["203.0.113.8"] * 2 + ["203.0.113.9"] * 2


def test_without_trusted_proxies_the_headers_are_ignored(start_server: Callable[..., Server]) -> None:
    """COMPTOIR_SECURE_COOKIES=always: `Secure` over plain http all the same."""
    server = start_server(env={"COMPTOIR_SECURE_COOKIES": "always"})
    assert secure(httpx.get(f"{server.base_url}/login"))
    answer = log_in(server, DEMO_EMAIL, "wrong-password", **{"X-Forwarded-For": "203.0.113.7"})
    assert answer.status_code == 400
    metadata = httpx.get(
        f"{server.base_url}/.well-known/oauth-authorization-server", headers={"X-Forwarded-Proto": "https"}
    ).json()
    assert metadata["issuer"] == server.base_url
    assert clients_logged(server, "/login", 3) == ["127.0.0.1"] * 3
