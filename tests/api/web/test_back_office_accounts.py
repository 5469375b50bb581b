"""docs/operations.md "Back office": signing up, creating accounts and locations, and
editing a location's opening hours and order acceptance in the back office, with the API's
checks and events."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sqlalchemy import select

from comptoir.models import Account, Change, Location
from tests.api.conftest import Shop
from tests.api.web.test_back_office_login import csrf_of, log_in
from tests.factories import World

SIGNUP = {
    "first_name": "Grace",
    "last_name": "Hopper",
    "email": "grace@example.com",
    "password": "a long password",
    "account_name": "Chez Grace",
    "location_name": "Chez Grace Nantes",
    "country": "FR",
    "currency": "",
}


async def post_form(client: httpx.AsyncClient, page_url: str, action: str, **fields: str) -> httpx.Response:
    page = await client.get(page_url)
    assert page.status_code == 200, page.text
    return await client.post(action, data={"csrf": csrf_of(page.text), **fields})


async def location_updates(world: World) -> list[Any]:
    async with world.db.transaction(write=False) as session:
        return list(await session.scalars(select(Change).where(Change.resource_type == "location")))


async def test_signing_up_creates_the_user_account_and_first_location_and_logs_in(
    client: httpx.AsyncClient, world: World
) -> None:
    assert 'href="/signup">Sign up</a>' in (await client.get("/login")).text
    answer = await post_form(client, "/signup", "/signup", **SIGNUP)
    assert (answer.status_code, answer.headers["location"]) == (303, "/")
    home = await client.get("/")
    assert "Chez Grace Nantes" in home.text
    async with world.db.transaction(write=False) as session:
        account = await session.scalar(select(Account).where(Account.name == "Chez Grace"))
        assert account is not None
        assert account.currency == "EUR"
        location = await session.scalar(select(Location).where(Location.account_id == account.id))
        assert location is not None
        assert (location.timezone, location.country) == ("Europe/Paris", "FR")


async def test_a_refused_signup_says_why_and_creates_nothing(client: httpx.AsyncClient, world: World) -> None:
    before = await world.snapshot()
    answer = await post_form(client, "/signup", "/signup", **{**SIGNUP, "country": "ZZ", "account_name": ""})
    assert answer.status_code == 400
    assert "Country: choose a country from the list." in answer.text
    assert await world.snapshot() == before


async def test_the_owner_creates_an_account_then_a_location_in_it(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    created = await post_form(client, "/accounts/new", "/accounts/new", name="Ada Traiteur", currency="CHF")
    assert created.status_code == 303
    account_url = created.headers["location"]
    account_page = await client.get(account_url)
    assert "<h1>Ada Traiteur</h1>" in account_page.text
    assert "· CHF</p>" in account_page.text
    new_location = await post_form(
        client,
        f"{account_url}/locations/new",
        f"{account_url}/locations/new",
        name="Ada Genève",
        address="1 rue du Rhône",
        postal_code="1204",
        city="Genève",
        country="CH",
        timezone="Europe/Zurich",
    )
    assert new_location.status_code == 303
    location_id = new_location.headers["location"].removeprefix("/locations/")
    assert location_id.endswith("-1")  # the account's first location
    assert "Ada Genève" in (await client.get(account_url)).text
    new_account_id = account_url.removeprefix("/accounts/")
    # docs/api/locations-accounts.md "Access": an account read needs an account-level token
    api = await client.get(f"/v1/accounts/{new_account_id}", headers=shop.headers())
    assert (api.status_code, api.json()) == (
        403,
        {"error_type": "forbidden", "message": "This endpoint needs an account-level token"},
    )
    # ... and the shop's account token does not reach the new account (docs/api/conventions.md "Access")
    api = await client.get(f"/v1/accounts/{new_account_id}", headers=shop.headers(shop.account_token))
    assert (api.status_code, api.json()) == (
        404,
        {"error_type": "not_found", "message": f"No account with id '{new_account_id}'"},
    )


async def test_a_refused_account_or_location_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    before = await world.snapshot()
    account = await post_form(client, "/accounts/new", "/accounts/new", name="", currency="XXY")
    assert account.status_code == 400
    assert "Account name: must not be empty" in account.text
    assert "Currency: &#39;XXY&#39; is not an ISO 4217 currency code" in account.text  # the API's words
    url = f"/accounts/{shop.account.public_id}/locations/new"
    location = await post_form(client, url, url, name="Nowhere", country="ZZ", timezone="Europe/Paris")
    assert location.status_code == 400
    assert "Country: &#39;ZZ&#39; is not an ISO 3166-1 alpha-2 country code" in location.text
    assert await world.snapshot() == before


async def test_another_owners_account_is_not_found(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    theirs = await world.account(name="Not yours")
    await log_in(client, "owner@example.com")
    assert (await client.get(f"/accounts/{theirs.public_id}")).status_code == 404
    assert (await client.get(f"/accounts/{theirs.public_id}/locations/new")).status_code == 404


async def test_opening_hours_are_saved_as_the_api_shows_them_with_one_event(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    url = f"/locations/{shop.location.public_id}"
    saved = await post_form(
        client, url, f"{url}/hours", monday="11:30-14:30, 18:30-22:30", friday="18:00-01:00", cutoff_time="04:00"
    )
    assert (saved.status_code, saved.headers["location"]) == (303, f"{url}?saved=1")
    api = (await client.get("/v1/location", headers=shop.headers())).json()
    assert api["opening_hours"] == {
        "monday": [{"from": "11:30", "to": "14:30"}, {"from": "18:30", "to": "22:30"}],
        "tuesday": [],
        "wednesday": [],
        "thursday": [],
        "friday": [{"from": "18:00", "to": "01:00"}],
        "saturday": [],
        "sunday": [],
    }
    assert api["cutoff_time"] == "04:00"
    assert 'value="11:30-14:30, 18:30-22:30"' in (await client.get(url)).text
    [change] = await location_updates(world)
    assert change.client_id is None


async def test_bad_opening_hours_are_refused_and_change_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    url = f"/locations/{shop.location.public_id}"
    before = await world.snapshot()
    overlapping = await post_form(client, url, f"{url}/hours", monday="11:00-15:00, 14:00-16:00", cutoff_time="00:00")
    assert overlapping.status_code == 400
    assert "Monday, slot 2: overlaps slot 1" in overlapping.text
    assert 'value="11:00-15:00, 14:00-16:00"' in overlapping.text  # what was written is kept
    garbled = await post_form(client, url, f"{url}/hours", tuesday="noon to two", cutoff_time="00:00")
    assert garbled.status_code == 400
    assert "Tuesday: &#39;noon to two&#39; is not a slot like 11:30-14:30" in garbled.text
    assert await world.snapshot() == before


async def test_order_acceptance_is_set_through_the_apis_rules(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    url = f"/locations/{shop.location.public_id}"
    busy = await post_form(
        client, url, f"{url}/acceptance", mode="busy", extra_preparation_time="15", reason="ignored when busy"
    )
    assert busy.status_code == 303
    api = (await client.get("/v1/location", headers=shop.headers())).json()
    assert (api["order_acceptance"]["mode"], api["order_acceptance"]["extra_preparation_time"]) == ("busy", 15)
    before = await world.snapshot()
    missing = await post_form(client, url, f"{url}/acceptance", mode="busy", extra_preparation_time="")
    assert missing.status_code == 400
    assert "Extra preparation time: is required when mode is busy" in missing.text
    past = await post_form(client, url, f"{url}/acceptance", mode="paused", resume_at="2001-01-01T10:00")
    assert past.status_code == 400
    assert "Resume at: must be in the future" in past.text
    assert await world.snapshot() == before
    normal = await post_form(client, url, f"{url}/acceptance", mode="normal", extra_preparation_time="15")
    assert normal.status_code == 303
    assert (await client.get("/v1/location", headers=shop.headers())).json()["order_acceptance"]["mode"] == "normal"
    assert len(await location_updates(world)) == 2


async def test_a_location_cannot_be_added_to_another_owners_account(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    theirs = await world.account(name="Not yours")
    await log_in(client, "owner@example.com")
    csrf = csrf_of((await client.get("/")).text)
    before = await world.snapshot()
    answer = await client.post(
        f"/accounts/{theirs.public_id}/locations/new",
        data={"csrf": csrf, "name": "Intruder", "country": "FR", "timezone": "Europe/Paris"},
    )
    assert answer.status_code == 404
    assert await world.snapshot() == before


# --- codes checked before anything is written ------------------------------------------------

TOO_LONG = [
    ("currency", "EUROS", "Currency: &#39;EUROS&#39; is not an ISO 4217 currency code (e.g. &#34;EUR&#34;)"),
    ("currency", "E" * 300, "Currency: &#39;" + "E" * 57 + "...&#39; is not an ISO 4217 currency code"),
]


@pytest.mark.parametrize(("field", "value", "message"), TOO_LONG)
async def test_an_over_long_currency_is_refused_beside_its_field_and_creates_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World, field: str, value: str, message: str
) -> None:
    await log_in(client, "owner@example.com")
    before = await world.snapshot()
    answer = await post_form(client, "/accounts/new", "/accounts/new", name="Ada Traiteur", **{field: value})
    assert answer.status_code == 400
    assert f'<p class="field-error" id="{field}-error">{message}' in answer.text
    assert await world.snapshot() == before


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("country", "FRA", "Country: &#39;FRA&#39; is not an ISO 3166-1 alpha-2 country code (e.g. &#34;FR&#34;)"),
        ("country", "F" * 300, "Country: &#39;" + "F" * 57 + "...&#39; is not an ISO 3166-1 alpha-2 country code"),
        ("timezone", "E" * 1000, "Timezone: &#39;" + "E" * 57 + "...&#39; is not an IANA timezone name"),
    ],
)
async def test_an_over_long_country_or_timezone_is_refused_beside_its_field_and_creates_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World, field: str, value: str, message: str
) -> None:
    await log_in(client, "owner@example.com")
    url = f"/accounts/{shop.account.public_id}/locations/new"
    before = await world.snapshot()
    form = {"name": "Ada Nantes", "country": "FR", "timezone": "Europe/Paris", field: value}
    answer = await post_form(client, url, url, **form)
    assert answer.status_code == 400
    assert f'<p class="field-error" id="{field}-error">{message}' in answer.text
    assert await world.snapshot() == before
