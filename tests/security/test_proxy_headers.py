"""Spoofed proxy headers (docs/operations.md "Behind a proxy"): a peer that is not a trusted
proxy cannot choose its address (to dodge the login throttle, or lock someone else out)
nor its scheme; a trusted proxy's garbage, very long or IPv6 X-Forwarded-For is read
without harm; a bad COMPTOIR_FORWARDED_ALLOW_IPS stops every command."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from comptoir.config import parse_forwarded_allow_ips
from comptoir.http.forwarded import TrustedProxies
from tests.api.conftest import Shop, app, client, shop, world  # noqa: F401 - fixtures
from tests.api.oauth2.conftest import PASSWORD
from tests.api.web.test_back_office_login import csrf_of
from tests.cli.test_server_key import COMMANDS, fresh_directory, run  # noqa: F401 - fixture
from tests.response_schemas import CheckedASGITransport
from tests.unit.test_login_throttle import pauses  # noqa: F401 - fixture

OWNER = "owner@example.com"
ATTACKER = "198.51.100.20"
VICTIM = "203.0.113.10"
PROXY = "10.0.0.2"
# without COMPTOIR_PUBLIC_URL the metadata follows the request's scheme for a loopback Host only
METADATA_ON_LOOPBACK = "http://localhost/.well-known/oauth-authorization-server"

From = Callable[..., AbstractAsyncContextManager[httpx.AsyncClient]]


@pytest.fixture
def from_address(app: FastAPI) -> From:  # noqa: F811 - fixture
    """A client whose requests come from `address` (the peer's) with `headers` on each."""

    @asynccontextmanager
    async def make(address: str, **headers: str) -> AsyncIterator[httpx.AsyncClient]:
        transport = CheckedASGITransport(app=app, client=(address, 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver", headers=headers) as http:
            yield http

    return make


def trust(app: FastAPI, setting: str) -> None:  # noqa: F811 - fixture name
    app.state.comptoir.proxies = TrustedProxies(parse_forwarded_allow_ips(setting))


async def log_in(http: httpx.AsyncClient, password: str = PASSWORD, **headers: str | bytes) -> httpx.Response:
    form = await http.get("/login", headers=headers)
    data = {"csrf": csrf_of(form.text), "email": OWNER, "password": password}
    if "set-cookie" in form.headers:  # sent back as a browser would over https, if Secure
        headers = {**headers, "Cookie": form.headers["set-cookie"].split(";")[0]}
    return await http.post("/login", data=data, headers=headers)


async def fail_ten_times(http: httpx.AsyncClient, **headers: str | bytes) -> None:
    for _ in range(10):
        assert (await log_in(http, "wrong-password", **headers)).status_code == 400


def secure(answer: httpx.Response) -> bool:
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith("comptoir_session="), cookie
    return "secure" in [part.strip().lower() for part in cookie.split(";")]


# --- an untrusted peer ------------------------------------------------------------------


@pytest.mark.usefixtures("pauses", "shop")
async def test_an_untrusted_peer_cannot_dodge_the_login_throttle_with_x_forwarded_for(from_address: From) -> None:
    async with from_address(ATTACKER) as attacker:
        for i in range(10):
            assert (await log_in(attacker, "wrong-password", **{"X-Forwarded-For": f"192.0.2.{i}"})).status_code == 400
        assert (await log_in(attacker, **{"X-Forwarded-For": "192.0.2.99"})).status_code == 429


@pytest.mark.usefixtures("pauses", "shop")
async def test_an_untrusted_peer_cannot_lock_out_another_address_with_x_forwarded_for(from_address: From) -> None:
    async with from_address(ATTACKER) as attacker, from_address(VICTIM) as victim:
        await fail_ten_times(attacker, **{"X-Forwarded-For": VICTIM})
        answer = await log_in(victim)
        assert (answer.status_code, answer.headers["location"]) == (303, "/")


@pytest.mark.usefixtures("shop")
async def test_an_untrusted_peer_cannot_claim_https(app: FastAPI, from_address: From) -> None:  # noqa: F811
    trust(app, PROXY)
    async with from_address(ATTACKER, **{"X-Forwarded-Proto": "https"}) as attacker:
        assert not secure(await log_in(attacker))
        metadata = (await attacker.get(METADATA_ON_LOOPBACK)).json()
        assert metadata["issuer"] == "http://localhost"


@pytest.mark.usefixtures("shop")
async def test_proxy_headers_are_ignored_when_no_proxy_is_trusted(from_address: From) -> None:
    """The default: even a peer on loopback is taken at its word, its headers ignored."""
    async with from_address("127.0.0.1", **{"X-Forwarded-Proto": "https"}) as local:
        assert not secure(await log_in(local))
        metadata = (await local.get(METADATA_ON_LOOPBACK)).json()
        assert metadata["issuer"] == "http://localhost"


# --- a trusted proxy ----------------------------------------------------------------------


@pytest.mark.usefixtures("shop")
async def test_https_forwarded_by_a_trusted_proxy_makes_the_cookie_secure(
    app: FastAPI,  # noqa: F811
    from_address: From,
) -> None:
    trust(app, PROXY)
    async with from_address(PROXY, **{"X-Forwarded-Proto": "https", "X-Forwarded-For": VICTIM}) as proxy:
        answer = await log_in(proxy)
        assert (answer.status_code, secure(answer)) == (303, True)
        metadata = (await proxy.get(METADATA_ON_LOOPBACK)).json()
        assert metadata["issuer"] == "https://localhost"


@pytest.mark.usefixtures("shop")
async def test_secure_cookies_always_makes_the_cookie_secure_over_http(app: FastAPI, from_address: From) -> None:  # noqa: F811
    state = app.state.comptoir
    state.settings = state.settings.model_copy(update={"secure_cookies": "always"})
    async with from_address(ATTACKER) as http:
        assert secure(await http.get("/login"))
        assert secure(await log_in(http))


GARBAGE: list[str | bytes] = [
    "",
    "unknown",
    ",,,",
    "203.0.113.7, 10.0.0.2, nonsense",
    "1.2.3.4.5",
    "[2001:db8::1",
    "\x7f\x01" * 50,
    "203.0.113.7\t, ",
    "é".encode(),
]


@pytest.mark.usefixtures("pauses", "shop")
@pytest.mark.parametrize("value", GARBAGE)
async def test_garbage_x_forwarded_for_from_a_trusted_proxy_counts_against_the_proxy(
    app: FastAPI,  # noqa: F811
    from_address: From,
    value: str | bytes,
) -> None:
    trust(app, PROXY)
    async with from_address(PROXY) as proxy:
        await fail_ten_times(proxy, **{"X-Forwarded-For": value})
        assert (await log_in(proxy)).status_code == 429
        answer = await log_in(proxy, **{"X-Forwarded-For": "203.0.113.99"})
        assert answer.status_code == 303


@pytest.mark.usefixtures("pauses", "shop")
async def test_a_very_long_x_forwarded_for_is_read_from_its_right_end(
    app: FastAPI,  # noqa: F811
    from_address: From,
) -> None:
    """A client's 100 KB of made-up hops before what the proxy appended changes nothing."""
    trust(app, PROXY)
    made_up = ", ".join(f"192.0.2.{i % 250}" for i in range(8000))
    async with from_address(PROXY) as proxy:
        await fail_ten_times(proxy, **{"X-Forwarded-For": f"{made_up}, {VICTIM}"})
        assert (await log_in(proxy, **{"X-Forwarded-For": VICTIM})).status_code == 429
        assert (await log_in(proxy, **{"X-Forwarded-For": "192.0.2.1"})).status_code == 303


@pytest.mark.usefixtures("pauses", "shop")
async def test_ipv6_clients_and_proxies(app: FastAPI, from_address: From) -> None:  # noqa: F811
    """An IPv6 client forwarded by an IPv6 proxy counts as its /64, as it would directly."""
    trust(app, "2001:db8:ffff::/48")
    async with from_address("2001:db8:ffff::2") as proxy:
        await fail_ten_times(proxy, **{"X-Forwarded-For": "[2001:db8:0:7::1]:51000"})
        assert (await log_in(proxy, **{"X-Forwarded-For": "2001:db8:0:7::ffff"})).status_code == 429
        assert (await log_in(proxy, **{"X-Forwarded-For": "2001:db8:0:8::1"})).status_code == 303


# --- the setting --------------------------------------------------------------------------


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_bad_forwarded_allow_ips_stops_every_command(
    argv: list[str],
    fresh_directory: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("COMPTOIR_FORWARDED_ALLOW_IPS", "127.0.0.1,notanip")
    expected = "error: COMPTOIR_FORWARDED_ALLOW_IPS: 'notanip' is not an IP address, a CIDR network or *\n"
    assert run(argv, capsys) == (1, "", expected)
    assert list(fresh_directory.iterdir()) == []


def test_a_bad_secure_cookies_stops_a_command(
    fresh_directory: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("COMPTOIR_SECURE_COOKIES", "sometimes")
    expected = "error: COMPTOIR_SECURE_COOKIES: Input should be 'auto' or 'always' (got 'sometimes')\n"
    assert run(["serve"], capsys) == (1, "", expected)
