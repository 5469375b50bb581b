"""Attacks on the back office's stock, catalog and customer forms (docs/back-office.md
"Stock, catalogs and customers"): another owner's ids, missing or forged CSRF tokens,
unknown refs, oversized or malformed input, markup in names, a customer form that did not see
the customer's latest change (stale or made-up versions). Each refusal changes nothing."""

# ruff: noqa: F811 - the API's fixtures are imported, then named as parameters

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from comptoir.kit import ids
from tests.api.catalogs.conftest import create as create_catalog
from tests.api.catalogs.conftest import full
from tests.api.conftest import LOCATION_SCOPE, Shop, app, client, shop, world  # noqa: F401 - fixtures
from tests.api.customers.conftest import lists_of, new_customer
from tests.api.web.test_back_office_login import csrf_of, log_in
from tests.factories import World

SCRIPT = "<script>alert(1)</script>"
CARTE = {
    "categories": [{"ref": "drinks", "name": "Drinks"}],
    "products": [{"category_ref": "drinks", "name": "Cola", "skus": [{"ref": "cola", "price": "3 EUR"}]}],
}


async def token_of(client: httpx.AsyncClient) -> str:
    return csrf_of((await client.get("/")).text)


async def refused(world: World, post: Callable[[], Awaitable[httpx.Response]], status: int) -> httpx.Response:
    """`post` answered `status` and changed nothing."""
    before = await world.snapshot()
    answer = await post()
    assert answer.status_code == status, answer.text[-600:]
    assert await world.snapshot() == before
    return answer


@pytest.fixture
async def theirs(client: httpx.AsyncClient, shop: Shop, world: World) -> dict[str, Any]:
    """Another owner's location, catalog (with a cola sku), list and customer; then the
    shop's owner logged in."""
    location = await world.location(name="Not yours")
    catalog = await world.catalog(location=location)
    customer_list = await world.customer_list(location=location)
    token = await world.token(LOCATION_SCOPE, location=location, catalog=catalog, customer_list=customer_list)
    put = await client.put(
        f"/v1/catalogs/{catalog.public_id}",
        json={"data": CARTE},
        headers=shop.headers(token),
    )
    assert put.status_code == 200, put.text
    customer = await new_customer(client, shop, customer_list.public_id, {"first_name": "Zoe"}, token)
    await log_in(client, "owner@example.com")
    return {
        "location": location.public_id,
        "account": ids_of_account(location),
        "catalog": catalog.public_id,
        "list": customer_list.public_id,
        "customer": customer["id"],
    }


def ids_of_account(location: Any) -> str:
    return ids.encode("account", location.account_id)


async def test_another_owners_catalog_location_list_and_customer_are_not_found(
    client: httpx.AsyncClient, shop: Shop, world: World, theirs: dict[str, Any]
) -> None:
    csrf = await token_of(client)
    out = {"csrf": csrf, "item": "sku:cola", "action": "out", "until": ""}
    for url, form in (
        (f"/catalogs/{theirs['catalog']}/stock", out),
        (f"/locations/{theirs['location']}/catalogs", {"csrf": csrf, "name": "Mine now"}),
        (f"/accounts/{theirs['account']}/catalogs", {"csrf": csrf, "name": "Mine now"}),
        (f"/locations/{theirs['location']}/customers", {"csrf": csrf, "name": "Mine now"}),
        (f"/accounts/{theirs['account']}/customer-lists", {"csrf": csrf, "name": "Mine now"}),
        (f"/customer-lists/{theirs['list']}/customers/{theirs['customer']}", {"csrf": csrf, "first_name": "Eve"}),
    ):
        answer = await refused(world, lambda url=url, form=form: client.post(url, data=form), 404)
        assert "Zoe" not in answer.text
        assert "Not yours" not in answer.text
    for url in (
        f"/locations/{theirs['location']}/catalogs",
        f"/accounts/{theirs['account']}/catalogs",
        f"/locations/{theirs['location']}/customers",
        f"/accounts/{theirs['account']}/customer-lists",
    ):
        assert (await client.get(url)).status_code == 404, url


async def test_an_account_catalog_is_not_marked_at_another_owners_location(
    client: httpx.AsyncClient, shop: Shop, world: World, theirs: dict[str, Any]
) -> None:
    body = {"name": "Shared", "data": full()}
    catalog = (await create_catalog(client, shop, body, path="/v1/account/catalogs", token=shop.account_token)).json()
    form = {"csrf": await token_of(client), "item": "sku:cola", "action": "out", "location": theirs["location"]}
    await refused(world, lambda: client.post(f"/catalogs/{catalog['id']}/stock", data=form), 404)


async def test_a_customer_of_another_list_is_not_edited_through_ones_own(
    client: httpx.AsyncClient, shop: Shop, world: World, theirs: dict[str, Any]
) -> None:
    mine = await lists_of(client, shop)
    form = {"csrf": await token_of(client), "first_name": "Eve"}
    url = f"/customer-lists/{mine}/customers/{theirs['customer']}"
    await refused(world, lambda: client.post(url, data=form), 404)


@pytest.mark.parametrize("csrf", [None, "forged", ""])
async def test_every_form_needs_its_csrf_token(
    client: httpx.AsyncClient, shop: Shop, world: World, csrf: str | None
) -> None:
    list_id = await lists_of(client, shop)
    customer = await new_customer(client, shop, list_id, {"first_name": "Ann"})
    catalog = (await create_catalog(client, shop, {"name": "Carte", "data": full()})).json()
    await log_in(client, "owner@example.com")
    token = {} if csrf is None else {"csrf": csrf}
    for url, form in (
        (f"/catalogs/{catalog['id']}/stock", {"item": "sku:cola", "action": "out"}),
        (f"/locations/{shop.location.public_id}/catalogs", {"name": "New"}),
        (f"/accounts/{shop.account.public_id}/catalogs", {"name": "New"}),
        (f"/locations/{shop.location.public_id}/customers", {"name": "New"}),
        (f"/accounts/{shop.account.public_id}/customer-lists", {"name": "New"}),
        (f"/customer-lists/{list_id}/customers/{customer['id']}", {"first_name": "Eve"}),
    ):
        await refused(world, lambda url=url, form=form: client.post(url, data={**token, **form}), 403)


async def test_unknown_ids_are_not_found(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    list_id = await lists_of(client, shop)
    await log_in(client, "owner@example.com")
    csrf = await token_of(client)
    for url in (
        "/catalogs/nonsense/stock",
        "/catalogs/zzzzzz/stock",
        "/locations/nonsense/catalogs",
        "/accounts/nonsense/customer-lists",
        f"/customer-lists/{list_id}/customers/nonsense",
        "/customer-lists/nonsense/customers/nonsense",
    ):
        form = {"csrf": csrf, "item": "sku:cola", "action": "out", "name": "x"}
        await refused(world, lambda url=url, form=form: client.post(url, data=form), 404)


@pytest.fixture
async def carte(client: httpx.AsyncClient, shop: Shop) -> str:
    catalog = (await create_catalog(client, shop, {"name": "Carte", "data": full()})).json()
    await log_in(client, "owner@example.com")
    return str(catalog["id"])


@pytest.mark.parametrize(
    "changes",
    [
        {"until": "2" * 100_000},
        {"until": "2030-13-45T99:99"},
        {"until": "2030-01-01T12:00", "action": "back", "item": "sku:" + "x" * 100_000},
        {"action": "delete"},
        {"action": ""},
        {"item": "cola"},
        {"item": "sku:"},
        {"item": "category:burgers"},
        {"item": "sku:cola", "until": "2030-01-01T12:00'><script>alert(1)</script>"},
    ],
)
async def test_malformed_or_oversized_stock_input_is_refused(
    client: httpx.AsyncClient, world: World, carte: str, changes: dict[str, str]
) -> None:
    form = {"csrf": await token_of(client), "item": "sku:cola", "action": "out", "until": "", **changes}
    answer = await refused(world, lambda: client.post(f"/catalogs/{carte}/stock", data=form), 400)
    assert "<script>alert(1)" not in answer.text
    assert len(answer.text) < 200_000


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("page=abc", 400),
        ("page=0", 400),
        ("page=" + "9" * 50, 400),
        ("q=" + "x" * 10_000, 400),
        ("location=<script>", 200),  # an unknown location: the catalog's first, as with none
    ],
)
async def test_malformed_catalog_page_queries_are_answered_plainly(
    client: httpx.AsyncClient, carte: str, query: str, status: int
) -> None:
    answer = await client.get(f"/catalogs/{carte}?{query}")
    assert answer.status_code == status
    assert "<script>" not in answer.text


async def test_oversized_names_and_filters_are_refused(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    list_id = await lists_of(client, shop)
    customer = await new_customer(client, shop, list_id, {"first_name": "Ann"})
    await log_in(client, "owner@example.com")
    csrf = await token_of(client)
    huge = "x" * 100_000
    for url, form in (
        (f"/locations/{shop.location.public_id}/catalogs", {"name": huge}),
        (f"/locations/{shop.location.public_id}/customers", {"name": huge}),
        (f"/customer-lists/{list_id}/customers/{customer['id']}", {"first_name": huge, "email": huge}),
    ):
        await refused(world, lambda url=url, form=form: client.post(url, data={"csrf": csrf, **form}), 400)
    for query in (f"name={huge[:5000]}", f"email={huge[:5000]}", f"phone={huge[:5000]}"):
        assert (await client.get(f"/customer-lists/{list_id}?{query}")).status_code == 400


async def test_markup_in_catalog_product_list_and_customer_names_is_shown_as_text(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    data = {
        "categories": [{"ref": "c", "name": SCRIPT}],
        "products": [
            {"category_ref": "c", "name": SCRIPT, "skus": [{"ref": SCRIPT, "name": SCRIPT, "price": "1 EUR"}]}
        ],
    }
    catalog = (await create_catalog(client, shop, {"name": SCRIPT, "data": data})).json()
    list_id = await lists_of(client, shop)
    customer = await new_customer(client, shop, list_id, {"first_name": SCRIPT, "city": SCRIPT})
    await log_in(client, "owner@example.com")
    csrf = await token_of(client)
    list_made = await client.post(
        f"/locations/{shop.location.public_id}/customers", data={"csrf": csrf, "name": SCRIPT}
    )
    assert list_made.status_code == 303
    for url in (
        f"/catalogs/{catalog['id']}",
        f"/locations/{shop.location.public_id}/catalogs",
        f"/locations/{shop.location.public_id}/customers",
        f"/customer-lists/{list_id}",
        f"/customer-lists/{list_id}/customers/{customer['id']}",
        list_made.headers["location"],
    ):
        page = await client.get(url)
        assert page.status_code == 200, url
        assert SCRIPT not in page.text, url
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text, url
    marked = await client.post(
        f"/catalogs/{catalog['id']}/stock", data={"csrf": csrf, "item": f"sku:{SCRIPT}", "action": "out"}
    )
    assert marked.status_code == 303
    duplicate = await client.post(
        f"/locations/{shop.location.public_id}/customers", data={"csrf": csrf, "name": SCRIPT}
    )
    assert duplicate.status_code == 400
    assert SCRIPT not in duplicate.text


# --- lost updates: a customer form that did not see the customer as it is ------------------


@pytest.fixture
async def consenting(client: httpx.AsyncClient, shop: Shop) -> tuple[str, str]:
    """Ann, who accepted marketing by email and SMS, the owner logged in: (list, customer)."""
    list_id = await lists_of(client, shop)
    body = {"first_name": "Ann", "phone": "+33612345678", "email_marketing": True, "sms_marketing": True}
    customer = await new_customer(client, shop, list_id, body)
    await log_in(client, "owner@example.com")
    return list_id, customer["id"]


async def test_a_stale_customer_form_cannot_give_back_a_withdrawn_marketing_consent(
    client: httpx.AsyncClient, shop: Shop, world: World, consenting: tuple[str, str]
) -> None:
    list_id, customer_id = consenting
    url = f"/customer-lists/{list_id}/customers/{customer_id}"
    page = (await client.get(url)).text  # both consents ticked on the form
    seen = re.search(r'name="seen" value="([^"]+)"', page)
    assert seen is not None
    api = f"/v1/customer_lists/{list_id}/customers/{customer_id}"
    withdrawn = {"email_marketing": False, "sms_marketing": False, "phone": "+33700000001"}
    assert (await client.patch(api, json=withdrawn, headers=shop.headers())).status_code == 200
    form = {"csrf": csrf_of(page), "seen": seen.group(1), "first_name": "Ann", "phone": "+33612345678"}
    form |= {"email_marketing": "yes", "sms_marketing": "yes"}
    await refused(world, lambda: client.post(url, data=form), 409)
    customer = (await client.get(api, headers=shop.headers())).json()
    assert {name: customer[name] for name in withdrawn} == withdrawn


@pytest.mark.parametrize(
    "seen", [None, "", "2000-01-01T00:00:00+00:00", "9999-12-31T23:59:59.999999+00:00", "x" * 100_000, SCRIPT]
)
async def test_a_customer_form_with_a_missing_or_made_up_version_is_refused(
    client: httpx.AsyncClient, world: World, consenting: tuple[str, str], seen: str | None
) -> None:
    list_id, customer_id = consenting
    form = {"csrf": await token_of(client), "first_name": "Eve"} | ({"seen": seen} if seen is not None else {})
    url = f"/customer-lists/{list_id}/customers/{customer_id}"
    answer = await refused(world, lambda: client.post(url, data=form), 409)
    assert SCRIPT not in answer.text
    assert len(answer.text) < 200_000
