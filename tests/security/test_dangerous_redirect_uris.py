"""Registering a redirect URI that runs in the victim's browser or hides its host
(docs/api/oauth.md "Redirect URIs"): `javascript:`, `data:`, `vbscript:` and the other
schemes a browser runs or reads itself, and `user@` before a host, are refused by the one
rule (`connections.service.check_redirect_uri`) at every registration and edit (the back
office, `comptoir admin create-client`), which change nothing; and `/authorize` never sends a
browser to one a row holds all the same. The native apps' URIs stay accepted."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from markupsafe import escape
from sqlalchemy import update

from comptoir.applications.service import check_redirect_uri
from comptoir.models import OAuthClient
from tests.api.conftest import Shop, app, client, shop, world  # noqa: F401 - fixtures
from tests.api.web.test_back_office_developers import output, register
from tests.api.web.test_back_office_login import csrf_of, log_in
from tests.cli.conftest import Result, cli, refused, snapshot  # noqa: F401 - fixtures
from tests.factories import World

Cli = Callable[..., Result]

BROWSER = "whose address the browser runs or reads itself: register an https URL or your application's own scheme"
USERINFO = "has user information (user@) before its host"
NOT_A_URI = "is not an absolute URI without fragment"

REFUSED = [
    ("javascript:alert(document.cookie)", f"'javascript:alert(document.cookie)' uses the javascript: scheme, {BROWSER}"),
    ("JavaScript:alert(1)//", f"'JavaScript:alert(1)//' uses the javascript: scheme, {BROWSER}"),
    ("data:text/html,<script>alert(1)</script>", f"'data:text/html,<script>alert(1)</script>' uses the data: scheme, {BROWSER}"),
    ("vbscript:msgbox(1)", f"'vbscript:msgbox(1)' uses the vbscript: scheme, {BROWSER}"),
    ("file:///etc/passwd", f"'file:///etc/passwd' uses the file: scheme, {BROWSER}"),
    ("blob:https://app.example/7d1c", f"'blob:https://app.example/7d1c' uses the blob: scheme, {BROWSER}"),
    ("about:blank", f"'about:blank' uses the about: scheme, {BROWSER}"),
    ("https://app.example@evil.example/cb", f"'https://app.example@evil.example/cb' {USERINFO}"),
    ("https://user:pass@app.example/cb", f"'https://user:pass@app.example/cb' {USERINFO}"),
    ("com.example.app://me@callback/", f"'com.example.app://me@callback/' {USERINFO}"),
    ("https://evil.example\\@app.example/cb", f"'https://evil.example\\\\@app.example/cb' {NOT_A_URI}"),
    ("java\tscript:alert(1)", f"'java\\tscript:alert(1)' {NOT_A_URI}"),
    ("https://app.example/cb\x00", f"'https://app.example/cb\\x00' {NOT_A_URI}"),
    ("https:///cb", "'https:///cb' has no host"),
    ("https://app.example:99999/cb", "'https://app.example:99999/cb' has an invalid port"),
    ("https://[::1/cb", f"'https://[::1/cb' {NOT_A_URI}"),
]  # fmt: skip
ACCEPTED = [
    "urn:ietf:wg:oauth:2.0:oob",
    "https://app.example/cb",
    "https://app.example:8443/oauth/cb?tenant=7",
    "http://127.0.0.1:8765/cb",
    "http://[::1]:8765/cb",
    "com.example.app:/callback",
    "myapp:/callback",
]


@pytest.mark.parametrize(("uri", "problem"), REFUSED, ids=[uri for uri, _ in REFUSED])
def test_the_registration_rule_refuses_dangerous_redirect_uris_saying_why(uri: str, problem: str) -> None:
    assert check_redirect_uri(uri) == problem


@pytest.mark.parametrize("uri", ACCEPTED)
def test_the_registration_rule_keeps_web_loopback_and_native_app_uris(uri: str) -> None:
    assert check_redirect_uri(uri) is None


@pytest.mark.parametrize(
    ("uri", "problem"),
    [REFUSED[0], REFUSED[2], REFUSED[3], REFUSED[7]],
    ids=["javascript", "data", "vbscript", "user@"],
)
def test_create_client_with_a_dangerous_redirect_uri_is_refused_and_changes_nothing(
    cli: Cli,  # noqa: F811
    snapshot: Callable[[], dict[str, Any]],  # noqa: F811
    uri: str,
    problem: str,
) -> None:
    before = snapshot()
    args = ["--redirect-uri", "https://pos.example/cb", "--redirect-uri", uri]
    refused(cli("admin", "create-client", "--name", "POS", *args), f"redirect_uris[1]: {problem}")
    assert snapshot() == before


def test_create_client_keeps_web_loopback_and_native_app_uris(cli: Cli) -> None:  # noqa: F811
    args = [part for uri in ACCEPTED for part in ("--redirect-uri", uri)]
    assert cli("admin", "create-client", "--name", "POS", *args).json["redirect_uris"] == ACCEPTED


async def test_registering_a_javascript_redirect_uri_on_the_developers_page_is_refused_and_changes_nothing(
    client: httpx.AsyncClient,  # noqa: F811
    shop: Shop,  # noqa: F811
    world: World,  # noqa: F811
) -> None:
    await log_in(client, "owner@example.com")
    before = await world.snapshot()
    answer = await register(client, "Till", "https://till.example/cb\njavascript:alert(document.cookie)")
    assert answer.status_code == 400
    assert (
        "Redirect URIs, line 2: &#39;javascript:alert(document.cookie)&#39; uses the javascript: scheme, "
        "whose address the browser runs or reads itself" in answer.text
    )
    assert await world.snapshot() == before


async def test_editing_in_a_user_at_redirect_uri_on_the_developers_page_is_refused_and_changes_nothing(
    client: httpx.AsyncClient,  # noqa: F811
    shop: Shop,  # noqa: F811
    world: World,  # noqa: F811
) -> None:
    await log_in(client, "owner@example.com")
    client_id = output((await register(client, "Till", "https://till.example/cb")).text, "Client id")
    page = await client.get(f"/developers/{client_id}")
    before = await world.snapshot()
    uris = "https://till.example/cb\nhttps://till.example@evil.example/cb"
    answer = await client.post(
        f"/developers/{client_id}", data={"csrf": csrf_of(page.text), "name": "Till", "redirect_uris": uris}
    )
    assert answer.status_code == 400
    assert (
        "Redirect URIs, line 2: &#39;https://till.example@evil.example/cb&#39; has user information (user@) "
        "before its host" in answer.text
    )
    assert await world.snapshot() == before


@pytest.mark.parametrize("uri", ["javascript:alert(document.cookie)", "https://app.example@evil.example/cb"])
async def test_authorize_never_redirects_to_a_dangerous_uri_a_row_holds(
    client: httpx.AsyncClient,  # noqa: F811
    shop: Shop,  # noqa: F811
    world: World,  # noqa: F811
    uri: str,
) -> None:
    """Defence in depth: a row written before the rule (or by hand) sends no one there."""
    oauth_client = await world.client(name="Old app")
    async with world.db.transaction() as session:
        await session.execute(update(OAuthClient).where(OAuthClient.id == oauth_client.id).values(redirect_uris=[uri]))
    query = {"client_id": oauth_client.public_id, "redirect_uri": uri, "scope": "profile", "state": "s"}
    url = "/oauth2/v1/authorize?" + urlencode(query)
    message = escape(f"The redirect_uri of Old app cannot be used: {check_redirect_uri(uri)}.")
    before = await world.snapshot()
    for bad in ({"response_type": "token"}, {"scope": "nonsense[x]"}, {}):  # would go back, or show the login
        page = await client.get(f"{url}&{urlencode(bad)}")
        assert page.status_code == 400
        assert "location" not in page.headers
        assert f'<p role="alert">{message}</p>' in page.text
        assert "Error code: <code>invalid_request</code>" in page.text
    posted = await client.post(url, data={"step": "deny"})
    assert posted.status_code == 400
    assert "location" not in posted.headers
    assert await world.snapshot() == before
