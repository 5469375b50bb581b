"""docs/operations.md "Back office": the back office's read-only views of customers and
catalogs (orders: test_back_office_orders.py), as the API shows them, scoped to what the
signed-in user owns."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from comptoir.kit import clock
from tests.api.catalogs.conftest import create as create_catalog
from tests.api.catalogs.conftest import full
from tests.api.conftest import LOCATION_SCOPE, Shop
from tests.api.customers.conftest import lists_of, new_card, new_customer
from tests.api.orders.conftest import ORDER, created
from tests.api.web.test_back_office_login import log_in
from tests.factories import World

T0 = datetime(2026, 6, 24, 10, 0, tzinfo=UTC)  # 12:00 in Paris


def flat(page: httpx.Response) -> str:
    """The page's HTML with every run of whitespace made one space."""
    return " ".join(page.text.split())


def orders_url(shop: Shop) -> str:
    return f"/locations/{shop.location.public_id}/orders"


async def placed_at(client: httpx.AsyncClient, shop: Shop, at: datetime, body: dict[str, Any]) -> dict[str, Any]:
    clock.freeze(at)
    order = await created(client, shop, body)
    clock.reset()
    return order


async def shown(client: httpx.AsyncClient, url: str, status: int = 200) -> str:
    answer = await client.get(url)
    assert answer.status_code == status, answer.text
    return flat(answer)


def order_ids(page: str) -> list[str]:
    return re.findall(r'/orders/(\w+)">', page)


# --- customers ----------------------------------------------------------------------------


@pytest.fixture
async def people(client: httpx.AsyncClient, shop: Shop) -> dict[str, str]:
    """Three customers of the shop's list, by first name: their ids, and the list's as "list"."""
    list_id = await lists_of(client, shop)
    found = {"list": list_id}
    for first, last, email, phone in (
        ("Ann", "Smith", "ann@example.com", "+33612345678"),
        ("Bob", "Martin", "Bob.Martin@shop.fr", "+447911123456"),
        ("Chloé", None, "chloe@example.com", "020 7946 0018"),
    ):
        body = {"first_name": first, "last_name": last, "email": email, "phone": phone}
        found[first] = (await new_customer(client, shop, list_id, body))["id"]
    await log_in(client, "owner@example.com")
    return found


def customer_names(page: str) -> list[str]:
    return re.findall(r'/customers/\w+">([^<]+)</a>', page)


async def test_customers_are_filtered_by_name(client: httpx.AsyncClient, people: dict[str, str]) -> None:
    url = f"/customer-lists/{people['list']}"
    assert customer_names(await shown(client, url)) == ["Chloé", "Bob Martin", "Ann Smith"]
    assert customer_names(await shown(client, url + "?name=SMI")) == ["Ann Smith"]
    assert customer_names(await shown(client, url + "?name=bob+mar")) == ["Bob Martin"]
    assert "No customer matches these filters." in await shown(client, url + "?name=Zed")


async def test_customers_are_filtered_by_the_start_of_their_email(
    client: httpx.AsyncClient, people: dict[str, str]
) -> None:
    url = f"/customer-lists/{people['list']}"
    assert customer_names(await shown(client, url + "?email=BOB.MARTIN@")) == ["Bob Martin"]
    assert customer_names(await shown(client, url + "?email=*%40example.com")) == ["Chloé", "Ann Smith"]


async def test_customers_are_filtered_by_the_start_of_their_phone(
    client: httpx.AsyncClient, people: dict[str, str]
) -> None:
    url = f"/customer-lists/{people['list']}"
    assert customer_names(await shown(client, url + "?phone=%2B44+7911")) == ["Bob Martin"]
    assert customer_names(await shown(client, url + "?phone=020+7946")) == ["Chloé"]
    assert customer_names(await shown(client, url + "?phone=%2B336")) == ["Ann Smith"]


async def test_a_customer_page_shows_orders_and_loyalty_cards_with_operations(
    client: httpx.AsyncClient, shop: Shop, people: dict[str, str]
) -> None:
    list_id, ann = people["list"], people["Ann"]
    order = await created(client, shop, {"status": "new", "customer_id": ann, "items": [ORDER["items"][1]]})
    card = await new_card(client, shop, list_id, ann, name="Points", ref="P-1")
    operations = f"/v1/customer_lists/{list_id}/loyalty_cards/{card['id']}/operations"
    for body in ({"delta": "10.5", "reason": "Welcome"}, {"delta": "-3", "reason": "Coffee", "order_id": order["id"]}):
        assert (await client.post(operations, json=body, headers=shop.headers())).status_code == 200
    page = await shown(client, f"/customer-lists/{list_id}/customers/{ann}")
    assert "<title>Ann Smith · Comptoir</title>" in page
    assert "<tr><th>Phone</th><td>+33612345678</td></tr>" in page
    assert "<tr><th>Orders</th><td>1, 7.50 EUR</td></tr>" in page
    assert '<p><strong>Points</strong> <span class="muted">P-1</span> · balance 7.5</p>' in page
    reasons = re.findall(r"<td>(Welcome|Coffee)</td>", page)
    assert reasons == ["Coffee", "Welcome"]  # newest first
    coffee_order = f'<a href="{orders_url(shop)}/{order["id"]}">{order["id"]}</a>'
    assert f'<td>Coffee</td> <td>{coffee_order}</td> <td class="num">-3.0</td> <td class="num">7.5</td>' in page


# --- catalogs -----------------------------------------------------------------------------


async def test_the_catalog_page_shows_products_skus_prices_and_stock(client: httpx.AsyncClient, shop: Shop) -> None:
    catalog = (await create_catalog(client, shop, {"name": "Carte", "data": full()})).json()
    inventory = f"/v1/catalogs/{catalog['id']}/locations/{shop.location.public_id}/inventory"
    entries = [{"sku_ref": "cola", "stock": "12"}, {"option_ref": "mayo", "stock": 0}]
    assert (await client.put(inventory, json=entries, headers=shop.headers(shop.account_token))).status_code == 200
    await log_in(client, "owner@example.com")
    page = await shown(client, f"/catalogs/{catalog['id']}")
    assert "<title>Carte · Comptoir</title>" in page
    for expected in (
        '<td data-label="Item">Classic burger<br><span class="muted">Burgers</span></td>'
        ' <td data-label="Code">classic</td>',
        '<td data-label="Item">Single<br><span class="muted">Options: Sauces, Sides</span></td>'
        ' <td data-label="Code">classic-single</td> <td data-label="Price" class="num">9.50 EUR</td>'
        ' <td data-label="Stock"><span class="tag tag-ok">In stock</span></td>',
        # a sku without ref or name
        '<td data-label="Item">Classic burger</td> <td data-label="Code"></td>'
        ' <td data-label="Price" class="num">7.00 EUR</td>'
        ' <td data-label="Stock"><span class="tag tag-info">Not tracked (no ref)</span></td>'
        ' <td data-label="Change stock"></td>',
        # a product of one sku: one row, one stock control
        '<tr class="product"> <td data-label="Item">Cola<br><span class="muted">Sodas</span></td>'
        ' <td data-label="Code">cola</td> <td data-label="Price" class="num">3.00 EUR</td>'
        ' <td data-label="Stock"><span class="tag tag-warn">12 left</span></td>',
        '<td data-label="Option">Mayo</td> <td data-label="Code">mayo</td>'
        ' <td data-label="Price" class="num">0.50 EUR</td>'
        ' <td data-label="Stock"><span class="tag tag-bad">Out of stock until further notice</span></td>',
        '<td data-label="Option">Ketchup <span class="tag">default</span></td>',
        "<td>Burger: classic-single, classic-double (+2.00 EUR)",
        '<td>Tip</td><td>tip</td><td class="num">variable</td>',
    ):
        assert expected in page, expected
    assert page.count('aria-label="Out of stock: Cola') == 1
    assert ">Ref<" not in page
    assert ">Sku<" not in page
    assert 'data-label="Sku"' not in page


async def test_an_account_level_catalog_shows_the_stock_of_the_chosen_location(
    client: httpx.AsyncClient, shop: Shop
) -> None:
    body = {"name": "Shared", "data": full()}
    catalog = (await create_catalog(client, shop, body, path="/v1/account/catalogs", token=shop.account_token)).json()
    lyon = f"/v1/catalogs/{catalog['id']}/locations/{shop.other_location.public_id}/inventory"
    assert (
        await client.put(lyon, json=[{"sku_ref": "cola", "stock": "4"}], headers=shop.headers(shop.account_token))
    ).status_code == 200
    await log_in(client, "owner@example.com")
    cola = '<td data-label="Code">cola</td> <td data-label="Price" class="num">3.00 EUR</td> <td data-label="Stock">'
    paris = await shown(client, f"/catalogs/{catalog['id']}")
    assert "Stock at <strong>Chez Ada Paris</strong> · " in paris
    assert cola + '<span class="tag tag-ok">In stock</span>' in paris
    there = await shown(client, f"/catalogs/{catalog['id']}?location={shop.other_location.public_id}")
    assert f'<a href="/catalogs/{catalog["id"]}?location={shop.location.public_id}">Chez Ada Paris</a>' in there
    assert cola + '<span class="tag tag-warn">4 left</span>' in there


# --- access -------------------------------------------------------------------------------


async def test_another_owners_resources_are_not_found(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    theirs = await world.location(name="Not yours")
    their_list = await world.customer_list(location=theirs)
    their_catalog = await world.catalog(location=theirs)
    token = await world.token(LOCATION_SCOPE, location=theirs, catalog=their_catalog, customer_list=their_list)
    their_order = (await client.post("/v1/location/orders", json={"status": "new"}, headers=shop.headers(token))).json()
    their_customer = await new_customer(client, shop, their_list.public_id, {"first_name": "Zoe"}, token)
    await log_in(client, "owner@example.com")
    for url in (
        f"/locations/{theirs.public_id}/orders",
        f"/locations/{theirs.public_id}/orders/{their_order['id']}",
        f"{orders_url(shop)}/{their_order['id']}",  # through a location of one's own
        f"/customer-lists/{their_list.public_id}",
        f"/customer-lists/{their_list.public_id}/customers/{their_customer['id']}",
        f"/catalogs/{their_catalog.public_id}",
        "/catalogs/nonsense",
        "/customer-lists/nonsense",
    ):
        answer = await client.get(url)
        assert answer.status_code == 404, url
        assert "Zoe" not in answer.text
        assert "Not yours" not in answer.text


async def test_every_page_needs_a_login(client: httpx.AsyncClient, shop: Shop) -> None:
    list_id = await lists_of(client, shop)
    customer = await new_customer(client, shop, list_id)
    order = await created(client, shop, {"status": "new"})
    for url in (
        orders_url(shop),
        f"{orders_url(shop)}/{order['id']}",
        f"/customer-lists/{list_id}",
        f"/customer-lists/{list_id}/customers/{customer['id']}",
        f"/catalogs/{await catalog_id(client, shop)}",
    ):
        answer = await client.get(url)
        assert (answer.status_code, answer.headers["location"]) == (303, "/login"), url


async def catalog_id(client: httpx.AsyncClient, shop: Shop) -> str:
    answer = await client.get("/v1/location/catalogs", headers=shop.headers())
    assert answer.status_code == 200, answer.text
    return answer.json()[0]["id"]
