"""OAuth helpers (docs/api/oauth.md): the authorisation URL with state and PKCE S256, and the
token and revoke requests. tests/browser/test_example_app.py runs them against a real server
through examples/connect.py."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from comptoir.oauth2.service import _s256, valid_challenge
from comptoir_client import OAuthClient, OAuthError, authorization_request


def test_the_authorization_url_carries_state_and_the_servers_s256_challenge() -> None:
    ask = authorization_request("https://hub.example/v1", "cl1ent", "https://app.example/cb", "location[orders.read]")
    url = urlsplit(ask.url)
    query = {key: values[0] for key, values in parse_qs(url.query).items()}
    assert (url.scheme, url.netloc, url.path) == ("https", "hub.example", "/oauth2/v1/authorize")
    assert query == {
        "client_id": "cl1ent",
        "redirect_uri": "https://app.example/cb",
        "response_type": "code",
        "scope": "location[orders.read]",
        "state": ask.state,
        "code_challenge": _s256(ask.code_verifier),
        "code_challenge_method": "S256",
    }
    assert valid_challenge(query["code_challenge"])
    assert 43 <= len(ask.code_verifier) <= 128


def test_each_request_gets_a_new_state_and_verifier() -> None:
    first, second = (authorization_request("http://h", "c", "urn:ietf:wg:oauth:2.0:oob", "profile") for _ in "12")
    assert first.state != second.state
    assert first.code_verifier != second.code_verifier


def test_the_exchange_sends_the_code_and_verifier_with_basic_credentials() -> None:
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"access_token": "t0k3n", "token_type": "Bearer", "location_id": "4k3jxr-1"})

    with OAuthClient("cl1ent", "s3cret", "http://hub", transport=httpx.MockTransport(handle)) as oauth:
        token = oauth.exchange("c0de", "v" * 64, "https://app.example/cb")
    assert (token.access_token, token.location_id, token.account_id) == ("t0k3n", "4k3jxr-1", None)
    assert seen[0].url.path == "/oauth2/v1/token"
    assert seen[0].headers["Authorization"] == httpx.BasicAuth("cl1ent", "s3cret")._auth_header
    assert parse_qs(seen[0].content.decode()) == {
        "grant_type": ["authorization_code"],
        "code": ["c0de"],
        "code_verifier": ["v" * 64],
        "redirect_uri": ["https://app.example/cb"],
    }


def test_a_refused_code_raises_oauth_error_with_its_code() -> None:
    body = {"error_type": "bad_request", "message": "The code is invalid", "error": "invalid_grant"}
    transport = httpx.MockTransport(lambda _request: httpx.Response(400, json=body))
    with (
        OAuthClient("cl1ent", "s3cret", "http://hub", transport=transport) as oauth,
        pytest.raises(OAuthError) as raised,
    ):
        oauth.exchange("used")
    assert (raised.value.status, raised.value.error, raised.value.message) == (
        400,
        "invalid_grant",
        "The code is invalid",
    )
