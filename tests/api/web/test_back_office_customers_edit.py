"""docs/back-office.md "Stock, catalogs and customers": customer lists created, a list's
customers filtered and paged, and a customer edited in the back office, with the API's
rules, messages and events."""

from __future__ import annotations

import asyncio
import html
import re
from typing import Any

import httpx
import pytest

from comptoir.models import Change
from comptoir.web import data
from tests.api.conftest import Shop
from tests.api.customers.conftest import lists_of, new_customer
from tests.api.web.test_back_office_data import flat
from tests.api.web.test_back_office_login import csrf_of, log_in
from tests.factories import World

ANN = {
    "first_name": "Ann",
    "last_name": "Smith",
    "email": "ann@example.com",
    "phone": "+33612345678",
    "city": "Paris",
    "custom_fields": {"tier": "gold"},
}


async def changes(world: World, resource: str) -> list[Change]:
    return [change for change in await world.changes() if change.resource_type == resource]  # not the shop's


async def create_at(client: httpx.AsyncClient, url: str, name: str) -> httpx.Response:
    page = await client.get(url)
    assert page.status_code == 200, page.text
    return await client.post(url, data={"csrf": csrf_of(page.text), "name": name})


# --- customer lists -------------------------------------------------------------------------


async def test_a_customer_list_is_created_at_a_location(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    await log_in(client, "owner@example.com")
    answer = await create_at(client, f"/locations/{shop.location.public_id}/customers", "Regulars")
    found = re.fullmatch(r"/customer-lists/(\w+)", answer.headers["location"])
    assert answer.status_code == 303
    assert found is not None
    api = f"/v1/locations/{shop.location.public_id}/customer_lists"
    listed = (await client.get(api, headers=shop.headers(shop.account_token))).json()
    assert [c["name"] for c in listed if c["id"] == found.group(1)] == ["Regulars"]
    [change] = await changes(world, "customer_list")
    assert (change.event_type, change.client_id, change.new_state["name"]) == ("create", None, "Regulars")
    page = (await client.get(answer.headers["location"])).text
    assert "No customers yet. They are added by the applications connected to this list" in page


async def test_an_account_level_list_is_created_and_listed_at_its_locations(
    client: httpx.AsyncClient, shop: Shop
) -> None:
    await log_in(client, "owner@example.com")
    answer = await create_at(client, f"/accounts/{shop.account.public_id}/customer-lists", "Everyone")
    assert answer.status_code == 303
    listed = (await client.get("/v1/account/customer_lists", headers=shop.headers(shop.account_token))).json()
    assert [c["name"] for c in listed] == ["Everyone"]
    assert ">Everyone</a>" in (await client.get(f"/locations/{shop.other_location.public_id}/customers")).text


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("Customers", "Name: &#39;Customers&#39; is already the name of another customer list of this location"),
        ("", "Name: must not be empty"),
    ],
)
async def test_a_refused_list_name_is_shown_beside_the_field_and_creates_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World, name: str, message: str
) -> None:
    await log_in(client, "owner@example.com")
    before = await world.snapshot()
    answer = await create_at(client, f"/locations/{shop.location.public_id}/customers", name)
    assert answer.status_code == 400
    assert f'<p class="field-error" id="name-error">{message}' in answer.text
    assert await world.snapshot() == before


# --- a list's customers ----------------------------------------------------------------------


def customer_names(page: str) -> list[str]:
    return re.findall(r'/customers/\w+">([^<]+)</a>', page)


async def test_filters_combine_and_pages_follow_with_them(
    client: httpx.AsyncClient, shop: Shop, monkeypatch: pytest.MonkeyPatch
) -> None:
    list_id = await lists_of(client, shop)
    for first, email in (("Ann", "ann@a.fr"), ("Anna", "anna@b.fr"), ("Annie", "annie@a.fr"), ("Bob", "bob@a.fr")):
        await new_customer(client, shop, list_id, {"first_name": first, "email": email})
    await log_in(client, "owner@example.com")
    monkeypatch.setattr(data, "PAGE_SIZE", 1)
    url = f"/customer-lists/{list_id}"
    first = flat(await client.get(url + "?name=ann&email=*%40a.fr&phone="))
    assert customer_names(first) == ["Annie"]
    found = re.search(r'<a href="(\?name=ann&amp;email=%2A%40a.fr&amp;cursor=[\w-]+)">Next</a>', first)
    assert found is not None, first
    second = flat(await client.get(url + found.group(1).replace("&amp;", "&")))
    assert customer_names(second) == ["Ann"]
    assert ">Next</a>" not in second
    cursor = found.group(1).replace("&amp;", "&").split("cursor=")[1]
    moved = await client.get(url + f"?name=bob&cursor={cursor}")  # a cursor of other filters
    assert moved.status_code == 400
    assert "Next: this link is broken or out of date" in moved.text


async def test_an_empty_filtered_list_says_so(client: httpx.AsyncClient, shop: Shop) -> None:
    list_id = await lists_of(client, shop)
    await new_customer(client, shop, list_id, {"first_name": "Ann"})
    await log_in(client, "owner@example.com")
    page = flat(await client.get(f"/customer-lists/{list_id}?phone=%2B44"))
    assert f'No customer matches these filters. <a href="/customer-lists/{list_id}">Show every customer</a>.' in page


async def test_the_phone_column_is_one_of_the_cards(client: httpx.AsyncClient, shop: Shop) -> None:
    list_id = await lists_of(client, shop)
    await new_customer(client, shop, list_id, ANN)
    await log_in(client, "owner@example.com")
    page = flat(await client.get(f"/customer-lists/{list_id}"))
    assert '<table class="cards">' in page
    assert '<td data-label="Phone">+33612345678</td>' in page


# --- editing a customer ----------------------------------------------------------------------


@pytest.fixture
async def ann(client: httpx.AsyncClient, shop: Shop) -> tuple[str, str]:
    """Ann, a customer of the shop's list, the owner logged in: (list id, customer id)."""
    list_id = await lists_of(client, shop)
    customer = await new_customer(client, shop, list_id, ANN)
    await log_in(client, "owner@example.com")
    return list_id, customer["id"]


FORM = {
    "first_name": "Ann",
    "last_name": "Smith-Lee",
    "company_name": "",
    "email": "ann.lee@example.com",
    "phone": "+33 6 98 76 54 32",
    "birth_date": "1990-04-12",
    "gender": "female",
    "address_1": "3 place des Vosges",
    "address_2": "",
    "postal_code": "75004",
    "city": "Paris",
    "state": "",
    "country": "FR",
    "delivery_notes": "Code 4512",
    "email_marketing": "yes",
}


def seen_of(page: str) -> str:
    """The customer's version the page's form carries (its `seen` field)."""
    found = re.search(r'name="seen" value="([^"]+)"', page)
    assert found is not None, page
    return html.unescape(found.group(1))


async def shown_form(client: httpx.AsyncClient, list_id: str, customer_id: str) -> dict[str, str]:
    """The hidden fields of the customer's page as it is now: its CSRF token and version."""
    page = await client.get(f"/customer-lists/{list_id}/customers/{customer_id}")
    assert page.status_code == 200, page.text
    return {"csrf": csrf_of(page.text), "seen": seen_of(page.text)}


async def send(
    client: httpx.AsyncClient, list_id: str, customer_id: str, hidden: dict[str, str], **changed: str
) -> httpx.Response:
    """The form of a page shown earlier (`hidden`: its hidden fields), saved with FORM."""
    url = f"/customer-lists/{list_id}/customers/{customer_id}"
    return await client.post(url, data={**hidden, **FORM, **changed})


async def save(client: httpx.AsyncClient, list_id: str, customer_id: str, **changed: str) -> httpx.Response:
    """The page shown, then its form saved with FORM."""
    return await send(client, list_id, customer_id, await shown_form(client, list_id, customer_id), **changed)


async def api_customer(client: httpx.AsyncClient, shop: Shop, list_id: str, customer_id: str) -> dict[str, Any]:
    answer = await client.get(f"/v1/customer_lists/{list_id}/customers/{customer_id}", headers=shop.headers())
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


async def test_the_owner_edits_a_customer_and_connected_apps_hear_of_it(
    client: httpx.AsyncClient, shop: Shop, world: World, ann: tuple[str, str]
) -> None:
    list_id, customer_id = ann
    answer = await save(client, list_id, customer_id)
    url = f"/customer-lists/{list_id}/customers/{customer_id}"
    assert (answer.status_code, answer.headers["location"]) == (303, url + "?saved=1")
    customer = await api_customer(client, shop, list_id, customer_id)
    assert {name: customer[name] for name in ("last_name", "email", "phone", "birth_date", "gender", "country")} == {
        "last_name": "Smith-Lee",
        "email": "ann.lee@example.com",
        "phone": "+33698765432",
        "birth_date": "1990-04-12",
        "gender": "female",
        "country": "FR",
    }
    assert (customer["email_marketing"], customer["sms_marketing"]) == (True, False)
    assert customer["custom_fields"] == {"tier": "gold"}  # not on the form: kept
    _create, update = await changes(world, "customer")
    assert (update.event_type, update.client_id) == ("update", None)
    assert (update.previous_state["last_name"], update.new_state["last_name"]) == ("Smith", "Smith-Lee")
    page = flat(await client.get(answer.headers["location"]))
    assert '<p class="notice" role="status">Saved.</p>' in page
    assert 'value="Smith-Lee"' in page


async def test_saving_an_unchanged_customer_records_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World, ann: tuple[str, str]
) -> None:
    list_id, customer_id = ann
    assert (await save(client, list_id, customer_id)).status_code == 303
    assert (await save(client, list_id, customer_id)).status_code == 303
    assert [change.event_type for change in await changes(world, "customer")] == ["create", "update"]


async def test_bad_fields_are_refused_all_at_once_beside_each_and_change_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World, ann: tuple[str, str]
) -> None:
    list_id, customer_id = ann
    before = await world.snapshot()
    answer = await save(client, list_id, customer_id, email="not an email", phone="+1", birth_date="12/04/1990")
    assert answer.status_code == 400
    page = answer.text
    errors = re.findall(r'<p class="field-error" id="(\w+)-error">', page)
    assert errors == ["email", "phone", "birth_date"]  # in the form's order
    assert re.findall(r'<li><a href="#(\w+)">', page) == ["email", "phone", "birth_date"]  # the summary
    assert '<input id="email" name="email" type="email" value="not an email" aria-invalid="true"' in page
    assert await world.snapshot() == before


# --- a form shown before the customer changed -----------------------------------------------

CHANGED = (
    "This customer changed since this page showed it. Nothing was changed: reload the page to see"
    " the customer as they are now, then make your changes again."
)


async def test_a_form_shown_before_an_api_change_is_refused_with_409_and_reverts_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World, ann: tuple[str, str]
) -> None:
    list_id, customer_id = ann
    assert (await save(client, list_id, customer_id)).status_code == 303  # email marketing: yes
    hidden = await shown_form(client, list_id, customer_id)
    meanwhile = {"phone": "+33700000001", "email": "ann@new.example", "email_marketing": False}
    api = f"/v1/customer_lists/{list_id}/customers/{customer_id}"
    assert (await client.patch(api, json=meanwhile, headers=shop.headers())).status_code == 200
    before = await world.snapshot()
    answer = await send(client, list_id, customer_id, hidden, last_name="Smith-Lee-Jones")
    assert answer.status_code == 409
    page = flat(answer)
    assert f"<li>{html.escape(CHANGED, quote=True)}</li>" in page
    assert 'value="Smith-Lee-Jones"' in page  # what was written is still on the form
    assert f'<input type="hidden" name="seen" value="{hidden["seen"]}">' in page  # still the old version
    assert f'<a href="/customer-lists/{list_id}/customers/{customer_id}#edit">Reload the customer</a>' in page
    assert await world.snapshot() == before
    customer = await api_customer(client, shop, list_id, customer_id)
    assert {name: customer[name] for name in (*meanwhile, "last_name")} == {**meanwhile, "last_name": "Smith-Lee"}


async def test_the_form_shown_again_after_the_change_saves(
    client: httpx.AsyncClient, shop: Shop, world: World, ann: tuple[str, str]
) -> None:
    list_id, customer_id = ann
    stale = await shown_form(client, list_id, customer_id)
    api = f"/v1/customer_lists/{list_id}/customers/{customer_id}"
    assert (await client.patch(api, json={"sms_marketing": True}, headers=shop.headers())).status_code == 200
    assert (await send(client, list_id, customer_id, stale)).status_code == 409
    fresh = await shown_form(client, list_id, customer_id)
    assert fresh["seen"] != stale["seen"]
    answer = await send(client, list_id, customer_id, fresh, sms_marketing="yes")
    assert answer.status_code == 303
    customer = await api_customer(client, shop, list_id, customer_id)
    assert (customer["last_name"], customer["sms_marketing"], customer["email_marketing"]) == ("Smith-Lee", True, True)
    assert [(c.event_type, c.client_id is None) for c in await changes(world, "customer")] == [
        ("create", False),
        ("update", False),
        ("update", True),
    ]


async def test_two_pages_saving_at_once_save_once_and_refuse_the_other(
    client: httpx.AsyncClient, shop: Shop, world: World, ann: tuple[str, str]
) -> None:
    list_id, customer_id = ann
    hidden = await shown_form(client, list_id, customer_id)
    answers = await asyncio.gather(
        send(client, list_id, customer_id, hidden, city="Lyon"),
        send(client, list_id, customer_id, hidden, city="Nice"),
    )
    assert sorted(answer.status_code for answer in answers) == [303, 409]
    saved = next(city for city, answer in zip(("Lyon", "Nice"), answers, strict=True) if answer.status_code == 303)
    assert (await api_customer(client, shop, list_id, customer_id))["city"] == saved
    assert [c.event_type for c in await changes(world, "customer")] == ["create", "update"]
