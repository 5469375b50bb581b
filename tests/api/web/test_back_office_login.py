"""The back office's login (shared with the OAuth pages), its home page
scoped to what the user owns, and logout."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from urllib.parse import urlencode

import httpx
from sqlalchemy import func, select

from comptoir.applications.service import OOB_REDIRECT_URI
from comptoir.jobs.timed import purge_history
from comptoir.kit import clock
from comptoir.models import BrowserSession
from tests.api.conftest import Shop
from tests.api.oauth2.conftest import PASSWORD
from tests.factories import World


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found is not None, page
    return html.unescape(found.group(1))


async def log_in(client: httpx.AsyncClient, email: str, password: str = PASSWORD) -> httpx.Response:
    form = await client.get("/login")
    return await client.post("/login", data={"csrf": csrf_of(form.text), "email": email, "password": password})


async def test_the_home_page_needs_a_login(client: httpx.AsyncClient) -> None:
    answer = await client.get("/")
    assert (answer.status_code, answer.headers["location"]) == (303, "/login")
    form = await client.get("/login")
    assert '<label for="email">Email</label>' in form.text
    assert '<button type="submit">Log in</button>' in form.text
    assert form.headers["x-frame-options"] == "DENY"


async def test_logging_in_shows_only_what_the_user_owns(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    await world.location(name="Someone else's")
    answer = await log_in(client, "Owner@Example.com")
    assert (answer.status_code, answer.headers["location"]) == (303, "/")
    home = await client.get("/")
    assert home.status_code == 200
    assert "Chez Ada Paris" in home.text
    assert "Chez Ada Lyon" in home.text
    assert "Someone else&#39;s" not in home.text
    assert "Signed in as owner@example.com." in home.text


async def test_a_wrong_password_or_a_forged_form_logs_nobody_in(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    before = await world.snapshot()
    wrong = await log_in(client, "owner@example.com", "not the password")
    assert wrong.status_code == 400
    assert "Wrong email or password." in wrong.text
    forged = await client.post("/login", data={"csrf": "forged", "email": "owner@example.com", "password": PASSWORD})
    assert forged.status_code == 403
    assert "<h1>This form has expired</h1>" in forged.text  # docs/back-office.md: a bad CSRF token
    assert (await client.get("/")).status_code == 303
    assert await world.snapshot() == before


async def test_logout_ends_the_session(client: httpx.AsyncClient, shop: Shop) -> None:
    await log_in(client, "owner@example.com")
    home = await client.get("/")
    out = await client.post("/logout", data={"csrf": csrf_of(home.text)})
    assert (out.status_code, out.headers["location"]) == (303, "/login")
    assert (await client.get("/")).status_code == 303


async def test_one_login_serves_the_oauth_pages_and_the_back_office(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    app = await world.client(name="Le Site")
    await log_in(client, "owner@example.com")
    query = urlencode({"client_id": app.public_id, "redirect_uri": OOB_REDIRECT_URI, "scope": "location[orders.read]"})
    consent = await client.get(f"/oauth2/v1/authorize?{query}")
    assert '<button type="submit" name="step" value="allow">Allow</button>' in consent.text


async def test_logging_out_ends_the_session_even_for_a_copied_cookie(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    copied = client.cookies.get("comptoir_session")
    home = await client.get("/")
    assert home.status_code == 200
    await client.post("/logout", data={"csrf": csrf_of(home.text)})
    client.cookies.set("comptoir_session", copied)  # a cookie kept from before the logout
    answer = await client.get("/")
    assert (answer.status_code, answer.headers["location"]) == (303, "/login")


async def test_expired_sessions_are_purged(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    await log_in(client, "owner@example.com")
    clock.travel(timedelta(days=15))
    assert (await client.get("/")).status_code == 303  # past its 14 days
    await purge_history(world.db)
    async with world.db.transaction(write=False) as session:
        assert await session.scalar(select(func.count()).select_from(BrowserSession)) == 0


async def test_a_forged_logout_is_refused_and_the_session_stays(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    before = await world.snapshot()
    forged = await client.post("/logout", data={"csrf": "forged"})
    assert forged.status_code == 403
    assert "<h1>This form has expired</h1>" in forged.text  # docs/back-office.md: a bad CSRF token
    assert (await client.get("/")).status_code == 200
    assert await world.snapshot() == before
