"""Attacks on the token headers, the authorisation request, the Developers page and the
consent page, each refused and changing nothing: two tokens at once, malformed or empty or
huge Bearer credentials, response_type injection, replaying the page that showed a secret,
another user's client, and another location's catalog on Allow."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from comptoir.models import Connection
from tests.api.conftest import Shop, app, client, shop, world  # noqa: F401 - fixtures
from tests.api.oauth2.conftest import REDIRECT, Flow, flow, form_of, query_of  # noqa: F401 - fixture
from tests.api.web.test_back_office_developers import output
from tests.api.web.test_back_office_login import csrf_of, log_in
from tests.factories import World
from tests.response_schemas import CheckedASGITransport

REVOKED = "The access token is invalid or the connection has been revoked"
MALFORMED = "The Authorization header must be 'Bearer' and the token, with nothing else"


async def test_two_different_tokens_are_refused_and_change_nothing(
    client: httpx.AsyncClient,  # noqa: F811
    shop: Shop,  # noqa: F811
    world: World,  # noqa: F811
) -> None:
    before = await world.snapshot()
    headers = {"X-Access-Token": shop.account_token, "Authorization": f"Bearer {shop.location_token}"}
    response = await client.patch("/v1/location", json={"preparation_time": 7}, headers=headers)
    assert response.status_code == 400
    assert response.json()["error_type"] == "bad_request"
    assert "RateLimit" not in response.headers  # no connection was charged for it
    assert await world.snapshot() == before


@pytest.mark.parametrize(
    "value",
    ["Bearer a b", "Bearer <script>", "Bearer tok,en", 'Bearer "quoted"', "Bearer =abc", "Bearer a\tb"],
)
async def test_a_malformed_bearer_header_is_a_400_invalid_request(
    client: httpx.AsyncClient,  # noqa: F811
    shop: Shop,  # noqa: F811
    value: str,
) -> None:
    response = await client.get("/v1/location", headers={"Authorization": value})
    assert response.status_code == 400
    assert response.json() == {"error_type": "bad_request", "message": MALFORMED}
    assert response.headers["WWW-Authenticate"] == (
        f'Bearer realm="comptoir", error="invalid_request", error_description="{MALFORMED}"'
    )


@pytest.mark.parametrize("value", ["Bearer", "Bearer ", "bearer    "])
async def test_bearer_with_an_empty_token_is_no_token(
    client: httpx.AsyncClient,  # noqa: F811
    shop: Shop,  # noqa: F811
    value: str,
) -> None:
    response = await client.get("/v1/location", headers={"Authorization": value})
    assert response.status_code == 401
    assert response.json()["message"] == "The X-Access-Token header is missing"
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="comptoir"'


async def test_a_huge_bearer_token_is_a_401_that_echoes_nothing(
    client: httpx.AsyncClient,  # noqa: F811
    shop: Shop,  # noqa: F811
) -> None:
    huge = "A" * 60_000
    response = await client.get("/v1/location", headers={"Authorization": f"Bearer {huge}"})
    assert response.status_code == 401
    assert response.json() == {"error_type": "unauthorized", "message": REVOKED}
    assert len(response.headers["WWW-Authenticate"]) < 200
    assert huge not in response.text


async def test_response_type_injection_goes_back_only_to_the_registered_uri(flow: Flow) -> None:  # noqa: F811
    injected = "code&redirect_uri=https://evil.example/&state=forged"
    answer = await flow.http.get(flow.authorize_url("profile", response_type=injected, state="mine"))
    assert answer.status_code == 303
    location = answer.headers["location"]
    assert urlsplit(location)[:3] == urlsplit(REDIRECT)[:3]
    back = query_of(location)
    assert (back["error"], back["state"]) == ("unsupported_response_type", "mine")
    assert "set-cookie" not in answer.headers


async def test_response_type_markup_is_escaped_on_the_copy_paste_page(flow: Flow) -> None:  # noqa: F811
    url = flow.authorize_url("profile", response_type="<script>alert(1)</script>").replace(
        "https%3A%2F%2Fapp.example%2Fcb", "urn%3Aietf%3Awg%3Aoauth%3A2.0%3Aoob"
    )
    page = await flow.http.get(url)
    assert page.status_code == 400
    assert "<script>alert(1)</script>" not in page.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text


async def test_replaying_the_secret_page_shows_no_secret_and_registers_nothing(
    app: FastAPI,  # noqa: F811
    client: httpx.AsyncClient,  # noqa: F811
    shop: Shop,  # noqa: F811
    world: World,  # noqa: F811
) -> None:
    await log_in(client, "owner@example.com")
    page = await client.get("/developers")
    posted = await client.post(
        "/developers", data={"csrf": csrf_of(page.text), "name": "Till", "redirect_uris": "https://till.example/cb"}
    )
    cookies = dict(client.cookies)  # a copy of the browser's cookie, taken before the page was seen
    secret = output((await client.get(posted.headers["location"])).text, "Client secret")
    before = await world.snapshot()
    for _ in range(2):
        again = await client.get(posted.headers["location"])
        assert again.status_code == 303
    transport = CheckedASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver", cookies=cookies) as copy:
        replayed = await copy.get(posted.headers["location"])
    assert replayed.status_code == 303
    assert secret not in replayed.text
    assert await world.snapshot() == before


async def test_another_users_client_secret_page_is_a_404_and_takes_nothing(
    app: FastAPI,  # noqa: F811
    client: httpx.AsyncClient,  # noqa: F811
    shop: Shop,  # noqa: F811
    world: World,  # noqa: F811
) -> None:
    await world.user(email="mallory@example.com")
    await log_in(client, "owner@example.com")
    page = await client.get("/developers")
    posted = await client.post(
        "/developers", data={"csrf": csrf_of(page.text), "name": "Till", "redirect_uris": "https://till.example/cb"}
    )
    transport = CheckedASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as mallory:
        await log_in(mallory, "mallory@example.com")
        stolen = await mallory.get(posted.headers["location"])
        assert stolen.status_code == 404
        assert "Client secret" not in stolen.text
        client_id = posted.headers["location"].split("/")[2]
        assert (await mallory.get(f"/developers/{client_id}")).status_code == 404
        assert "Till" not in (await mallory.get("/developers")).text
    shown = await client.get(posted.headers["location"])  # the owner's flash is still there
    assert shown.status_code == 200


async def test_allow_with_another_locations_catalog_connects_nothing(
    flow: Flow,  # noqa: F811
    shop: Shop,  # noqa: F811
    world: World,  # noqa: F811
) -> None:
    lyon_menu = await world.catalog(location=shop.other_location, name="Lyon menu")
    foreign = await world.catalog(location=await world.location(name="Not yours"), name="Foreign menu")
    url = flow.authorize_url("location[catalog.read]")
    page = await flow.log_in(url, "owner@example.com")
    action, hidden = form_of(page.text)
    async with world.db.transaction(write=False) as session:
        connections = await session.scalar(select(func.count()).select_from(Connection))
    before = await world.snapshot()
    for catalog in (lyon_menu.public_id, foreign.public_id):
        refused = await flow.http.post(
            action, data={**hidden, "step": "allow", "target": shop.location.public_id, "catalog": catalog}
        )
        assert refused.status_code == 400
        assert "location" not in refused.headers
    assert await world.snapshot() == before
    async with world.db.transaction(write=False) as session:
        assert await session.scalar(select(func.count()).select_from(Connection)) == connections


async def test_the_metadata_document_takes_no_post(client: httpx.AsyncClient) -> None:  # noqa: F811
    response = await client.post("/.well-known/oauth-authorization-server", content=b"x" * 1000)
    assert response.status_code == 404
    assert response.json()["error_type"] == "routing_error"
