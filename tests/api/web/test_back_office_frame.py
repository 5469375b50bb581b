"""docs/back-office.md "Layout, navigation and words": errors beside their fields, all at
once and in the form's order, with a summary linking to them; the navigation and the
breadcrumbs; signup's country and currency; the HTML 404 page; the favicon."""

from __future__ import annotations

import re

import httpx
from sqlalchemy import select

from comptoir.models import Account
from tests.api.conftest import Shop
from tests.api.web.test_back_office_accounts import SIGNUP, post_form
from tests.api.web.test_back_office_login import log_in
from tests.factories import World


def summary(page: str) -> list[str]:
    """The error summary's items, in order, as their markup."""
    found = re.search(r'<div class="error-summary" role="alert">(.*?)</div>', page, re.S)
    assert found is not None, page
    return re.findall(r"<li>(.*?)</li>", found.group(1), re.S)


async def test_every_hours_error_is_shown_beside_its_field_at_once_in_the_forms_order(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    url = f"/locations/{shop.location.public_id}"
    before = await world.snapshot()
    refused = await post_form(
        client,
        url,
        f"{url}/hours",
        tuesday="noon to two",
        monday="25:00-14:00",
        wednesday="11:00-15:00, 14:00-16:00",
        thursday="11:00-14:00",  # valid: saved by nothing, since the form is refused
        cutoff_time="99:99",
    )
    assert refused.status_code == 400
    assert summary(refused.text) == [
        '<a href="#monday">Monday: 25:00 is not a valid time of day</a>',
        '<a href="#tuesday">Tuesday: &#39;noon to two&#39; is not a slot like 11:30-14:30</a>',
        '<a href="#wednesday">Wednesday, slot 2: overlaps slot 1</a>',
        '<a href="#cutoff_time">Cutoff time: 99:99 is not a valid time of day</a>',
    ]
    assert (
        '<input id="monday" name="monday" type="text" value="25:00-14:00" aria-invalid="true"'
        ' aria-describedby="monday-error hours-help">'
    ) in refused.text
    assert '<p class="field-error" id="monday-error">Monday: 25:00 is not a valid time of day</p>' in refused.text
    assert '<input id="thursday" name="thursday" type="text" value="11:00-14:00" aria-describedby="hours-help">' in (
        refused.text
    )
    assert await world.snapshot() == before


async def test_the_details_errors_are_beside_their_fields_in_the_forms_order(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    url = f"/locations/{shop.location.public_id}"
    before = await world.snapshot()
    page = await client.get(url)
    refused = await client.post(
        url,
        data={
            "csrf": re.search(r'name="csrf" value="([^"]+)"', page.text).group(1),  # type: ignore[union-attr]
            "preparation_time": "20000",
            "name": "",
            "country": "FR",
            "timezone": "Mars/Olympus",
        },
    )
    assert refused.status_code == 400
    assert [re.sub(r"<.*?>", "", item).split(":")[0] for item in summary(refused.text)] == [
        "Name",
        "Timezone",
        "Preparation time",
    ]
    assert '<a href="#name">Name: must not be empty</a>' in summary(refused.text)
    assert '<p class="field-error" id="preparation_time-error">Preparation time: must be between 0 and' in (
        refused.text
    )
    assert await world.snapshot() == before


async def test_a_new_accounts_errors_name_the_forms_labels(client: httpx.AsyncClient, shop: Shop) -> None:
    await log_in(client, "owner@example.com")
    refused = await post_form(client, "/accounts/new", "/accounts/new", name="", currency="")
    assert summary(refused.text) == [
        '<a href="#name">Account name: must not be empty</a>',
        '<a href="#currency">Currency: must not be empty</a>',
    ]
    assert 'aria-invalid="true" aria-describedby="currency-error currency-help"' in refused.text


async def test_signup_chooses_no_country_for_the_visitor(client: httpx.AsyncClient) -> None:
    page = await client.get("/signup")
    assert '<select id="country" name="country" required>\n    <option value="">Choose…</option>' in page.text
    assert not re.search(r'<option value="[A-Z]{2}"[^>]* selected>', page.text)
    assert '<option value="FR" data-currency="EUR">France</option>' in page.text
    assert "<script>" in page.text
    assert "script-src 'sha256-" in page.headers["content-security-policy"]


async def test_signup_takes_the_country_of_the_browsers_language_region(client: httpx.AsyncClient) -> None:
    page = await client.get("/signup", headers={"Accept-Language": "de-CH,de;q=0.9,en;q=0.8"})
    assert '<option value="CH" data-currency="CHF" selected>Switzerland</option>' in page.text
    plain = await client.get("/signup", headers={"Accept-Language": "fr,en;q=0.8"})
    assert not re.search(r'<option value="[A-Z]{2}"[^>]* selected>', plain.text)


async def test_an_empty_currency_at_signup_is_the_chosen_countrys(client: httpx.AsyncClient, world: World) -> None:
    answer = await post_form(client, "/signup", "/signup", **{**SIGNUP, "country": "CH", "currency": ""})
    assert answer.status_code == 303
    async with world.db.transaction(write=False) as session:
        account = await session.scalar(select(Account).where(Account.name == "Chez Grace"))
    assert account is not None
    assert account.currency == "CHF"


async def test_signup_errors_are_beside_their_fields_in_the_forms_order(
    client: httpx.AsyncClient, world: World
) -> None:
    before = await world.snapshot()
    refused = await post_form(client, "/signup", "/signup", **{**SIGNUP, "country": "", "currency": ""})
    assert refused.status_code == 400
    assert summary(refused.text) == [
        '<a href="#country">Country: choose a country from the list.</a>',
        '<a href="#currency">Currency: choose the currency of the account.</a>',
    ]
    assert '<p class="field-error" id="country-error">Country: choose a country from the list.</p>' in refused.text
    empty = await post_form(client, "/signup", "/signup", **{**SIGNUP, "account_name": "", "location_name": ""})
    assert summary(empty.text) == ['<a href="#account_name">Account name: must not be empty</a>']
    assert await world.snapshot() == before


async def test_an_unknown_address_is_an_html_page_not_found(client: httpx.AsyncClient, shop: Shop) -> None:
    anonymous = await client.get("/nope")
    assert (anonymous.status_code, anonymous.headers["content-type"]) == (404, "text/html; charset=utf-8")
    assert "<title>Page not found · Comptoir</title>" in anonymous.text
    assert '<a href="/">Go to your Comptoir home page</a>' in anonymous.text
    await log_in(client, "owner@example.com")
    for url in ("/nope", f"/locations/{shop.location.public_id}/nope", "/locations/zzzzzz", "/accounts/zzzzzz"):
        page = await client.get(url)
        assert (page.status_code, page.headers["content-type"]) == (404, "text/html; charset=utf-8"), url
        assert "<h1>Page not found</h1>" in page.text
        assert f'<a href="/locations/{shop.location.public_id}">Chez Ada Paris</a>' in page.text  # the navigation


async def test_unknown_api_addresses_keep_their_json_errors(client: httpx.AsyncClient) -> None:
    for url in ("/v1/nope", "/v1", "/oauth2/v1/nope", "/.well-known/nope", "/docs", "/docs/assets/nope"):
        answer = await client.get(url) if url not in ("/v1", "/docs") else await client.delete(url)
        assert answer.headers["content-type"] == "application/json", url
        assert answer.json()["error_type"] == "routing_error", url


async def test_the_favicon_is_served_and_named_by_every_page(client: httpx.AsyncClient) -> None:
    for url in ("/favicon.ico", "/favicon.svg"):
        icon = await client.get(url)
        assert (icon.status_code, icon.headers["content-type"]) == (200, "image/svg+xml"), url
        assert icon.content.startswith(b"<svg ")
    assert '<link rel="icon" href="/favicon.svg" type="image/svg+xml">' in (await client.get("/login")).text


async def test_the_navigation_shows_the_users_accounts_and_locations_only(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await world.location(name="Someone else's")
    await log_in(client, "owner@example.com")
    page = (await client.get("/developers")).text
    paris, account = shop.location.public_id, shop.account.public_id
    nav = re.search(r'<nav aria-label="Back office" class="side">(.*?)</nav>', page, re.S)
    assert nav is not None
    links = re.findall(r'<a href="([^"]+)"[^>]*>([^<]+)</a>', nav.group(1))
    assert links[:10] == [
        ("/", "Home"),
        (f"/accounts/{account}", "Chez Ada"),
        (f"/accounts/{account}/orders", "Orders"),
        (f"/accounts/{account}/connections", "Connections"),
        (f"/locations/{paris}", "Chez Ada Paris"),
        (f"/locations/{paris}/orders", "Orders"),
        (f"/locations/{paris}/today", "Today"),
        (f"/locations/{paris}/customers", "Customers"),
        (f"/locations/{paris}/catalogs", "Catalogs"),
        (f"/locations/{paris}/connections", "Connections"),
    ]
    assert (f"/locations/{shop.other_location.public_id}", "Chez Ada Lyon") in links
    assert links[-2:] == [("/accounts/new", "New account"), ("/developers", "Developers")]
    assert '<a href="/developers" aria-current="page">Developers</a>' in nav.group(1)  # this page
    assert "Someone else" not in page
    assert '<details class="menu"><summary>Menu</summary>' in page  # the phone's menu


async def test_breadcrumbs_are_links_and_the_title_is_the_pages(client: httpx.AsyncClient, shop: Shop) -> None:
    await log_in(client, "owner@example.com")
    page = (await client.get(f"/locations/{shop.location.public_id}")).text
    assert (
        '<nav aria-label="Breadcrumb"><ol class="crumbs"><li><a href="/">Your Comptoir</a></li>'
        f'<li><a href="/accounts/{shop.account.public_id}">Chez Ada</a></li></ol></nav>'
    ) in page
    assert "<h1>Chez Ada Paris</h1>" in page
    assert "<title>Chez Ada Paris · Comptoir</title>" in page
    new = (await client.get(f"/accounts/{shop.account.public_id}/locations/new")).text
    assert (
        f'<li><a href="/accounts/{shop.account.public_id}">Chez Ada</a></li></ol></nav>\n      <h1>New location</h1>'
        in (new)
    )
