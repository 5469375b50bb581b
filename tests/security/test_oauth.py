"""Attacks on the authorisation server and the logins, each shown refused: a memory leak
anyone can drive, lockouts aimed at others, telling which emails exist, PKCE downgrade and
authorisation code replay (RFC 9700)."""

from __future__ import annotations

import base64
import gc
import hashlib
import tracemalloc
import urllib.parse
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import UTC, datetime
from urllib.parse import urlencode

import httpx
import pytest
from fastapi import FastAPI

from comptoir.applications.service import OOB_REDIRECT_URI
from comptoir.auth.tokens import REVOKED
from comptoir.kit import clock, crypto
from comptoir.users import logins
from tests.api.conftest import Shop, app, client, shop, world  # noqa: F401 - fixtures
from tests.api.oauth2.conftest import PASSWORD, Flow, flow  # noqa: F401 - fixture
from tests.api.web.test_back_office_login import log_in as back_office_log_in
from tests.factories import World
from tests.response_schemas import CheckedASGITransport
from tests.unit.test_login_throttle import pauses  # noqa: F401 - fixture

OWNER = "owner@example.com"
ADDRESS_A = "203.0.113.10"
ADDRESS_B = "198.51.100.20"

From = Callable[[str], AbstractAsyncContextManager[httpx.AsyncClient]]


@pytest.fixture
def from_address(app: FastAPI) -> From:  # noqa: F811 - fixture
    """An HTTP client whose requests come from `address` (the ASGI client address, what
    the server counts failures against), with its own cookies."""

    @asynccontextmanager
    async def make(address: str) -> AsyncIterator[httpx.AsyncClient]:
        transport = CheckedASGITransport(app=app, client=(address, 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            yield http

    return make


def _on(flow: Flow, http: httpx.AsyncClient) -> Flow:  # noqa: F811 - fixture name
    return Flow(http, flow.client, flow.secret)


async def _login(flow: Flow, email: str, password: str) -> httpx.Response:  # noqa: F811
    page = await flow.http.get(flow.authorize_url("profile"))
    assert page.status_code == 200, page.text
    return await flow.post(page, email=email, password=password)


async def _refused(flow: Flow, email: str = OWNER) -> None:  # noqa: F811
    assert (await _login(flow, email, "wrong-password")).status_code == 400


async def _token(http: httpx.AsyncClient, flow: Flow, code: str, secret: str) -> httpx.Response:  # noqa: F811
    return await http.post("/oauth2/v1/token", data={"code": code}, auth=(flow.client.public_id, secret))


async def _revoke(http: httpx.AsyncClient, flow: Flow, token: str, secret: str) -> httpx.Response:  # noqa: F811
    return await http.post("/oauth2/v1/revoke", data={"token": token}, auth=(flow.client.public_id, secret))


def _live(class_name: str, module: str) -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o).__name__ == class_name and type(o).__module__ == module)


# --- a memory leak anyone can drive -----------------------------------------------------


def _forget_bounded_caches() -> None:
    """The standard library's URL parsing keeps its last 128 URLs (the test client's, with
    their 4 KB queries): bounded, and not the server's doing."""
    urllib.parse.clear_cache()
    gc.collect()


async def _memory_grown(flow: Flow, url: Callable[[int], str], count: int) -> int:  # noqa: F811
    """The memory still held after `count` authorize requests (`url(20)` on), each answered
    200, once 10 requests have warmed up what the first ones set up once."""
    for i in range(10):  # warm up what the first requests set up once
        assert (await flow.http.get(url(i))).status_code == 200
    tracemalloc.start()
    try:
        _forget_bounded_caches()
        before = tracemalloc.get_traced_memory()[0]
        for i in range(20, 20 + count):
            assert (await flow.http.get(url(i))).status_code == 200
        _forget_bounded_caches()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


async def test_authorize_requests_do_not_leak_memory(flow: Flow) -> None:  # noqa: F811
    """GET /oauth2/v1/authorize needs no secret (every client takes the oob redirect URI):
    what each request brings (a 4 KB state) is dropped once it is answered."""
    count = 50

    def url(i: int) -> str:
        state = f"{i:06d}" + "s" * 4090
        query = {"client_id": flow.client.public_id, "redirect_uri": OOB_REDIRECT_URI, "scope": "profile"}
        return "/oauth2/v1/authorize?" + urlencode({**query, "state": state})

    grown = await _memory_grown(flow, url, count)
    assert _live("AuthorizeRequest", "comptoir.oauth2.endpoints") == 0
    assert grown < count * 4096 / 2, grown  # a leak keeps at least the 4 KB text of each


async def test_padded_scopes_do_not_fill_memory(flow: Flow) -> None:  # noqa: F811
    """Spaces are allowed between a scope's parts: 4 KB of them make each request's scope
    a new text, which must not be remembered."""
    count = 50

    def url(i: int) -> str:
        scope = " " * i + "profile" + " " * (4096 - i)
        query = {"client_id": flow.client.public_id, "redirect_uri": OOB_REDIRECT_URI, "scope": scope}
        return "/oauth2/v1/authorize?" + urlencode(query)

    grown = await _memory_grown(flow, url, count)
    assert grown < count * 4096 / 2, grown


# --- lockouts aimed at others -----------------------------------------------------------


@pytest.mark.usefixtures("pauses")
async def test_lockout_from_another_address_does_not_block_the_owner(
    flow: Flow,  # noqa: F811
    shop: Shop,  # noqa: F811
    from_address: From,
) -> None:
    async with from_address(ADDRESS_A) as a, from_address(ADDRESS_B) as b:
        attacker, owner = _on(flow, a), _on(flow, b)
        for _ in range(10):
            await _refused(attacker)
        blocked = await _login(attacker, OWNER, PASSWORD)
        assert blocked.status_code == 429
        assert "Too many failed attempts" in blocked.text
        let_in = await _login(owner, OWNER, PASSWORD)
        assert let_in.status_code == 303
        assert let_in.headers["location"].startswith("/oauth2/v1/authorize?")


@pytest.mark.usefixtures("pauses")
async def test_back_office_lockout_from_another_address_does_not_block_the_owner(
    shop: Shop,  # noqa: F811
    from_address: From,
) -> None:
    async with from_address(ADDRESS_A) as a, from_address(ADDRESS_B) as b:
        for _ in range(10):
            assert (await back_office_log_in(a, OWNER, "wrong-password")).status_code == 400
        assert (await back_office_log_in(a, OWNER)).status_code == 429
        answer = await back_office_log_in(b, OWNER)
        assert (answer.status_code, answer.headers["location"]) == (303, "/")


async def test_an_address_guessing_many_accounts_is_locked_out(
    flow: Flow,  # noqa: F811
    shop: Shop,  # noqa: F811
    from_address: From,
) -> None:
    async with from_address(ADDRESS_A) as a, from_address(ADDRESS_B) as b:
        attacker, owner = _on(flow, a), _on(flow, b)
        for i in range(logins.Throttle.ADDRESS_LIMIT):
            await _refused(attacker, f"guess{i}@example.com")
        assert (await _login(attacker, OWNER, PASSWORD)).status_code == 429  # any account, from there
        assert (await _login(owner, OWNER, PASSWORD)).status_code == 303


@pytest.mark.usefixtures("pauses")
async def test_an_ipv6_network_counts_as_one_address(
    flow: Flow,  # noqa: F811
    shop: Shop,  # noqa: F811
    from_address: From,
) -> None:
    """A host given a /64 cannot get round the lockout by changing its address in it."""
    for i in range(10):
        async with from_address(f"2001:db8:0:7::{i + 1:x}") as http:
            await _refused(_on(flow, http))
    async with from_address("2001:db8:0:7::ffff") as same, from_address("2001:db8:0:8::1") as other:
        assert (await _login(_on(flow, same), OWNER, PASSWORD)).status_code == 429
        assert (await _login(_on(flow, other), OWNER, PASSWORD)).status_code == 303


async def test_failures_from_many_addresses_slow_the_account_rather_than_lock_it(
    flow: Flow,  # noqa: F811
    shop: Shop,  # noqa: F811
    from_address: From,
    pauses: list[float],  # noqa: F811
) -> None:
    for i in range(12):
        async with from_address(f"192.0.2.{i + 1}") as http:
            await _refused(_on(flow, http))
    assert pauses == [0.25, 0.5]  # the 11th and 12th attempts waited
    async with from_address(ADDRESS_B) as b:
        assert (await _login(_on(flow, b), OWNER, PASSWORD)).status_code == 303
    assert pauses == [0.25, 0.5, 0.75]


@pytest.mark.usefixtures("pauses")
async def test_client_secret_lockout_from_another_address_does_not_block_the_client(
    flow: Flow,  # noqa: F811
    shop: Shop,  # noqa: F811
    world: World,  # noqa: F811
    from_address: From,
) -> None:
    clock.freeze(datetime(2026, 3, 2, 10, 5, tzinfo=UTC))  # 5 minutes into a 15-minute window
    code = await flow.code(flow.authorize_url("profile"), OWNER)
    async with from_address(ADDRESS_A) as a, from_address(ADDRESS_B) as b:
        for _ in range(10):
            wrong = await _token(a, flow, code, "wrong")
            assert (wrong.status_code, wrong.json()["error"]) == (401, "invalid_client")
        before = await world.snapshot()
        blocked = await _token(a, flow, code, flow.secret)
        assert blocked.status_code == 429
        assert blocked.json() == {
            "error_type": "too_many_requests",
            "message": "Too many failed client authentications",
            "error": "invalid_client",
        }
        assert blocked.headers["retry-after"] == "600"  # the window's end
        assert await world.snapshot() == before  # the code is not spent
        token = await _token(b, flow, code, flow.secret)
        assert (token.status_code, token.json()["token_type"]) == (200, "Bearer")


@pytest.mark.usefixtures("pauses")
async def test_revoke_lockout_from_another_address_does_not_block_the_client(
    flow: Flow,  # noqa: F811
    shop: Shop,  # noqa: F811
    from_address: From,
) -> None:
    token = (await flow.exchange(await flow.code(flow.authorize_url("profile"), OWNER))).json()["access_token"]
    async with from_address(ADDRESS_A) as a, from_address(ADDRESS_B) as b:
        for _ in range(10):
            wrong = await _revoke(a, flow, token, "wrong")
            assert (wrong.status_code, wrong.json()["error"]) == (401, "invalid_client")
        blocked = await _revoke(a, flow, token, flow.secret)
        assert (blocked.status_code, blocked.json()) == (
            429,
            {
                "error_type": "too_many_requests",
                "message": "Too many failed client authentications",
                "error": "invalid_client",
            },
        )
        assert (await b.get("/v1/user", headers={"X-Access-Token": token})).status_code == 200
        revoked = await _revoke(b, flow, token, flow.secret)
        assert (revoked.status_code, revoked.json()) == (200, {})
        gone = await b.get("/v1/user", headers={"X-Access-Token": token})
        assert (gone.status_code, gone.json()) == (401, {"error_type": "unauthorized", "message": REVOKED})


async def test_failed_client_secrets_from_many_addresses_slow_the_client_rather_than_lock_it(
    flow: Flow,  # noqa: F811
    shop: Shop,  # noqa: F811
    from_address: From,
    pauses: list[float],  # noqa: F811
) -> None:
    code = await flow.code(flow.authorize_url("profile"), OWNER)
    for i in range(11):
        async with from_address(f"192.0.2.{i + 1}") as http:
            wrong = await _token(http, flow, code, "wrong")
            assert (wrong.status_code, wrong.json()["error"]) == (401, "invalid_client")
    assert pauses == [0.25]
    async with from_address(ADDRESS_B) as b:
        token = await _token(b, flow, code, flow.secret)
        assert (token.status_code, token.json()["token_type"]) == (200, "Bearer")
    assert pauses == [0.25, 0.5]


# --- telling which emails exist ---------------------------------------------------------


async def test_login_for_an_unknown_email_takes_a_password_check_too(
    flow: Flow,  # noqa: F811
    shop: Shop,  # noqa: F811
    world: World,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The time of a login is the password hash's: an unknown email is checked against a
    hash of the same cost, so the answer does not tell which emails have an account."""
    checked: list[tuple[str, bool]] = []
    verify = crypto.verify_password

    def spy(password_hash: str | None, password: str) -> bool:
        result = verify(password_hash, password)
        used = crypto._stand_in() if password_hash is None else password_hash
        checked.append((used.rsplit("$", 2)[0], result))  # the algorithm and its parameters
        return result

    monkeypatch.setattr(crypto, "verify_password", spy)
    known = await _login(flow, OWNER, "wrong-password")
    unknown = await _login(flow, "nobody@example.com", "wrong-password")
    assert known.status_code == unknown.status_code == 400
    assert "Wrong email or password." in known.text
    assert "Wrong email or password." in unknown.text
    assert len(checked) == 2
    assert checked[0] == checked[1]  # the same argon2 parameters, each refused
    assert checked[0][0].startswith("$argon2id$")
    assert checked[0][1] is False


# --- RFC 9700: PKCE downgrade and code replay -------------------------------------------


async def test_pkce_downgrade_is_refused(flow: Flow, shop: Shop, world: World) -> None:  # noqa: F811
    """RFC 9700 2.1.1: a code_verifier for a code whose request had no code_challenge."""
    code = await flow.code(flow.authorize_url("profile"), OWNER)
    before = await world.snapshot()
    refused = await flow.exchange(code, code_verifier="v" * 50)
    assert refused.status_code == 400
    assert refused.json() == {
        "error_type": "bad_request",
        "message": "code_verifier was sent but the authorization request had no code_challenge",
        "error": "invalid_grant",
    }
    assert "access_token" not in refused.text
    assert await world.snapshot() == before  # no connection, no token, the code unspent


async def test_pkce_with_a_challenge_still_works(flow: Flow, shop: Shop) -> None:  # noqa: F811
    verifier = "v" * 50
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    url = flow.authorize_url("profile", code_challenge=challenge, code_challenge_method="S256")
    code = await flow.code(url, OWNER)
    assert (await flow.exchange(code, code_verifier=verifier)).status_code == 200


async def test_code_replay_revokes_the_token(flow: Flow, shop: Shop) -> None:  # noqa: F811
    """RFC 6749 4.1.2: a code used twice was stolen; the token it gave is revoked."""
    code = await flow.code(flow.authorize_url("profile"), OWNER)
    token = (await flow.exchange(code)).json()["access_token"]
    assert (await flow.http.get("/v1/user", headers={"X-Access-Token": token})).status_code == 200
    for _ in range(2):  # the replay, and any later one
        replay = await flow.exchange(code)
        assert replay.status_code == 400
        assert replay.json() == {
            "error_type": "bad_request",
            "message": "The authorization code has already been used",
            "error": "invalid_grant",
        }
        assert "access_token" not in replay.text
    answer = await flow.http.get("/v1/user", headers={"X-Access-Token": token})
    assert answer.status_code == 401
    assert answer.json()["message"] == "The access token is invalid or the connection has been revoked"


async def test_code_replay_spares_a_token_issued_later(flow: Flow, shop: Shop) -> None:  # noqa: F811
    """Only the token the code gave is revoked: the connection's next token (after a
    revocation and a new approval) is not that code's."""
    url = flow.authorize_url("profile")
    first_code = await flow.code(url, OWNER)
    first = (await flow.exchange(first_code)).json()["access_token"]
    revoked = await _revoke(flow.http, flow, first, flow.secret)
    assert (revoked.status_code, revoked.json()) == (200, {})
    second = (await flow.exchange(await flow.code(url, OWNER))).json()["access_token"]
    assert second != first
    replay = await flow.exchange(first_code)
    assert (replay.status_code, replay.json()) == (
        400,
        {
            "error_type": "bad_request",
            "message": "The authorization code has already been used",
            "error": "invalid_grant",
        },
    )
    me = await flow.http.get("/v1/user", headers={"X-Access-Token": second})
    assert (me.status_code, me.json()["first_name"]) == (200, "Ada")


async def test_a_replayed_code_of_another_client_revokes_nothing(
    flow: Flow,  # noqa: F811
    shop: Shop,  # noqa: F811
    world: World,  # noqa: F811
) -> None:
    from comptoir.applications.service import client_secret

    code = await flow.code(flow.authorize_url("profile"), OWNER)
    token = (await flow.exchange(code)).json()["access_token"]
    other = await world.client(name="Other")
    before = await world.snapshot()
    refused = await flow.http.post(
        "/oauth2/v1/token", data={"code": code}, auth=(other.public_id, client_secret(world.key, other))
    )
    assert (refused.status_code, refused.json()["message"]) == (400, "The authorization code is unknown")
    assert await world.snapshot() == before
    assert (await flow.http.get("/v1/user", headers={"X-Access-Token": token})).status_code == 200
