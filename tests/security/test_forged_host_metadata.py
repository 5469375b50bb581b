"""A forged `Host` header poisoning the OAuth metadata (docs/operations.md "Public URL",
docs/api/oauth.md "Metadata document"): the document's addresses are built on
COMPTOIR_PUBLIC_URL, or, unset, on the request only when its Host is a loopback name; an
attacker's Host never appears in it. A bad COMPTOIR_PUBLIC_URL stops every command."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from comptoir.config import Settings, parse_forwarded_allow_ips
from comptoir.http.forwarded import TrustedProxies
from comptoir.http.public_url import loopback_host
from tests.api.conftest import app, client  # noqa: F401 - fixtures
from tests.api.oauth2.test_metadata import UNPUBLISHED, publish
from tests.cli.test_server_key import COMMANDS, fresh_directory, run  # noqa: F401 - fixture
from tests.response_schemas import CheckedASGITransport

METADATA = "/.well-known/oauth-authorization-server"
FORGED = [
    "evil.example",
    "evil.example:443",
    "localhost.evil.example",
    "127.0.0.1.evil.example",
    "localhost@evil.example",
    "localhost:80@evil.example",
    "[::1].evil.example",
    "evil.example/localhost",
    "10.0.0.1",
    "0.0.0.0:8000",
    "localhost:99999",
    "evil.example/x?y#z",
    "evil.example:99999",
    '"><script>',
]


def document(base: str) -> dict[str, object]:
    return {
        "issuer": base,
        "authorization_endpoint": f"{base}/oauth2/v1/authorize",
        "token_endpoint": f"{base}/oauth2/v1/token",
        "revocation_endpoint": f"{base}/oauth2/v1/revoke",
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "revocation_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "service_documentation": f"{base}/docs",
    }


@pytest.mark.parametrize("host", FORGED)
async def test_a_forged_host_gets_the_configured_public_url_not_its_own(
    app: FastAPI,  # noqa: F811
    client: httpx.AsyncClient,  # noqa: F811
    host: str,
) -> None:
    publish(app, "https://hub.example.com/")
    response = await client.get(METADATA, headers={"Host": host, "X-Forwarded-Host": host})
    assert response.status_code == 200
    assert response.json() == document("https://hub.example.com")
    assert "evil" not in response.text
    assert host not in response.text


async def test_the_public_url_may_hold_a_port_and_a_path(app: FastAPI, client: httpx.AsyncClient) -> None:  # noqa: F811
    publish(app, "HTTPS://Hub.Example.com:8443/comptoir/")
    response = await client.get(METADATA, headers={"Host": "localhost"})
    assert response.json() == document("https://hub.example.com:8443/comptoir")


@pytest.mark.parametrize("host", FORGED)
async def test_without_a_public_url_a_forged_host_gets_a_404_naming_no_host(
    client: httpx.AsyncClient,  # noqa: F811
    host: str,
) -> None:
    response = await client.get(METADATA, headers={"Host": host})
    assert response.status_code == 404
    assert response.json() == UNPUBLISHED
    assert host not in response.text


@pytest.mark.parametrize(
    ("host", "base"),
    [
        ("localhost", "http://localhost"),
        ("LocalHost:8000", "http://localhost:8000"),
        ("127.0.0.1:8000", "http://127.0.0.1:8000"),
        ("127.1.2.3", "http://127.1.2.3"),
        ("[::1]:8000", "http://[::1]:8000"),
    ],
)
async def test_without_a_public_url_a_loopback_host_gets_the_development_document(
    client: httpx.AsyncClient,  # noqa: F811
    host: str,
    base: str,
) -> None:
    response = await client.get(METADATA, headers={"Host": host, "X-Forwarded-Host": "evil.example"})
    assert response.status_code == 200
    assert response.json() == document(base)


async def test_a_loopback_host_takes_https_only_from_a_trusted_proxy(
    app: FastAPI,  # noqa: F811
) -> None:
    app.state.comptoir.proxies = TrustedProxies(parse_forwarded_allow_ips("10.0.0.2"))
    for peer, scheme in (("10.0.0.2", "https"), ("198.51.100.20", "http")):
        transport = CheckedASGITransport(app=app, client=(peer, 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost:8000") as http:
            response = await http.get(METADATA, headers={"X-Forwarded-Proto": "https"})
            assert response.json()["issuer"] == f"{scheme}://localhost:8000"


@pytest.mark.parametrize(
    ("value", "host"),
    [("localhost", "localhost"), ("[::1]", "[::1]"), ("127.0.0.1:1", "127.0.0.1:1"), ("[::1]:65535", "[::1]:65535")],
)
def test_loopback_hosts_are_read(value: str, host: str) -> None:
    assert loopback_host(value) == host


@pytest.mark.parametrize("value", ["", "::1", "[127.0.0.1]", "127.0.0.1:0", "localhost:", "[::2]", "127.0.0.1 "])
def test_other_hosts_are_not_loopback(value: str) -> None:
    assert loopback_host(value) is None


BAD = [
    "hub.example.com",
    "ftp://hub.example.com",
    "https://",
    "https://user@hub.example.com",
    "https://hub.example.com/?a=1",
    "https://hub.example.com/#top",
    "https://hub.example.com:99999",
    "https://hub example.com",
    "/comptoir",
]


@pytest.mark.parametrize("value", BAD)
def test_a_bad_public_url_is_refused_naming_the_variable(value: str) -> None:
    expected = (
        "COMPTOIR_PUBLIC_URL must be an absolute http or https URL with a host and without user, query or"
        f" fragment, such as https://hub.example.com (got {value!r})"
    )
    with pytest.raises(ValueError, match=re.escape(expected)):
        Settings(public_url=value)


def test_an_empty_public_url_is_unset() -> None:
    assert Settings(public_url="").public_url is None


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_bad_public_url_stops_every_command(
    argv: list[str],
    fresh_directory: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("COMPTOIR_PUBLIC_URL", "hub.example.com")
    expected = (
        "error: COMPTOIR_PUBLIC_URL must be an absolute http or https URL with a host and without user, query or"
        " fragment, such as https://hub.example.com (got 'hub.example.com')\n"
    )
    assert run(argv, capsys) == (1, "", expected)
    assert list(fresh_directory.iterdir()) == []
