"""Abuse of the back office's frame (docs/back-office.md "Layout, navigation and words"):
the navigation never shows another owner's accounts or locations, names holding markup are
shown as text in the navigation, breadcrumbs and error messages, and the 404 page does not
echo the address it was asked for."""

# ruff: noqa: F811 - the API's fixtures are imported, then named as parameters
from __future__ import annotations

import httpx

from tests.api.conftest import Shop, app, client, shop, world  # noqa: F401 - fixtures
from tests.api.web.test_back_office_accounts import post_form
from tests.api.web.test_back_office_login import log_in
from tests.factories import World

SCRIPT = "<script>alert(1)</script>"


async def test_another_owners_location_is_never_in_the_navigation(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    theirs = await world.location(name="Their secret kitchen")
    await log_in(client, "owner@example.com")
    for url in ("/", f"/locations/{theirs.public_id}", f"/locations/{theirs.public_id}/nope", "/nope"):
        page = await client.get(url)
        assert "Their secret kitchen" not in page.text, url
        assert theirs.public_id not in page.text, url
        assert "Chez Ada Paris" in page.text, url


async def test_markup_in_account_and_location_names_is_shown_as_text(client: httpx.AsyncClient, world: World) -> None:
    owner = await world.user(email="mallory@example.com", password="password123")
    account = await world.account(owner=owner, name=f"Acct {SCRIPT}")
    location = await world.location(account, name=f"Loc {SCRIPT}")
    await log_in(client, "mallory@example.com", "password123")
    escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
    for url in ("/", f"/locations/{location.public_id}", "/nope"):
        page = await client.get(url)
        assert SCRIPT not in page.text, url
        assert f">Acct {escaped}</a>" in page.text, url  # the navigation (and the breadcrumbs)
        assert f">Loc {escaped}</a>" in page.text, url
    crumbs = (await client.get(f"/locations/{location.public_id}")).text
    assert f'<li><a href="/accounts/{account.public_id}">Acct {escaped}</a></li></ol></nav>' in crumbs
    assert f"<title>Loc {escaped} · Comptoir</title>" in crumbs


async def test_markup_in_a_refused_form_is_shown_as_text_in_the_summary_and_beside_the_field(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    url = f"/locations/{shop.location.public_id}"
    before = await world.snapshot()
    refused = await post_form(client, url, f"{url}/hours", monday=SCRIPT, cutoff_time="00:00")
    assert refused.status_code == 400
    assert SCRIPT not in refused.text
    assert "Monday: &#39;&lt;script&gt;alert(1)&lt;/script&gt;&#39; is not a slot like 11:30-14:30" in refused.text
    assert await world.snapshot() == before


async def test_the_404_page_does_not_echo_the_address(client: httpx.AsyncClient, shop: Shop) -> None:
    for signed_in in (False, True):
        if signed_in:
            await log_in(client, "owner@example.com")
        page = await client.get("/%3Cscript%3Ealert(1)%3C/script%3E")
        assert page.status_code == 404
        assert "<script>" not in page.text
        assert "alert(1)" not in page.text


async def test_a_forged_hours_form_is_refused_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    before = await world.snapshot()
    forged = await client.post(
        f"/locations/{shop.location.public_id}/hours", data={"csrf": "forged", "monday": "11:00-14:00"}
    )
    assert forged.status_code == 403
    assert "<h1>This form has expired</h1>" in forged.text  # docs/back-office.md: a bad CSRF token
    assert await world.snapshot() == before
