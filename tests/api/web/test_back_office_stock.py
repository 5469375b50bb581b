"""docs/back-office.md "Stock, catalogs and customers": a sku, an option or a whole product
marked out of stock (until a time or until further notice) and back in the back office,
through the API's inventory rules and `inventory.patch` event; catalogs created, and a
catalog's products paged and filtered by name."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from comptoir.models import Catalog, Change
from comptoir.web import catalogs as catalog_pages
from tests.api.catalogs.conftest import create as create_catalog
from tests.api.catalogs.conftest import full
from tests.api.conftest import ACCOUNT_SCOPE, Shop
from tests.api.web.test_back_office_data import flat
from tests.api.web.test_back_office_login import csrf_of, log_in
from tests.factories import World


@pytest.fixture
async def carte(client: httpx.AsyncClient, shop: Shop) -> str:
    """A catalog of the shop's location with the full content (burger skus, sauces), the
    owner logged in: its id."""
    catalog = (await create_catalog(client, shop, {"name": "Carte", "data": full()})).json()
    await log_in(client, "owner@example.com")
    return str(catalog["id"])


def inventory_url(shop: Shop, catalog_id: str, location_id: str | None = None) -> str:
    return f"/v1/catalogs/{catalog_id}/locations/{location_id or shop.location.public_id}/inventory"


async def inventory(client: httpx.AsyncClient, shop: Shop, catalog_id: str, location_id: str | None = None) -> Any:
    answer = await client.get(inventory_url(shop, catalog_id, location_id), headers=shop.headers(shop.account_token))
    assert answer.status_code == 200, answer.text
    return answer.json()


async def mark(
    client: httpx.AsyncClient, catalog_id: str, item: str, action: str, until: str = "", **more: str
) -> httpx.Response:
    page = await client.get(f"/catalogs/{catalog_id}")
    assert page.status_code == 200, page.text
    form = {"csrf": csrf_of(page.text), "item": item, "action": action, "until": until, **more}
    return await client.post(f"/catalogs/{catalog_id}/stock", data=form)


async def patches(world: World) -> list[Change]:
    async with world.db.transaction(write=False) as session:
        stmt = select(Change).where(Change.resource_type == "inventory").order_by(Change.id)
        return list(await session.scalars(stmt))


async def test_a_sku_out_of_stock_until_a_time_is_on_the_inventory_api_with_its_event(
    client: httpx.AsyncClient, shop: Shop, carte: str, world: World
) -> None:
    answer = await mark(client, carte, "sku:classic-single", "out", "2030-01-01T12:00")
    assert (answer.status_code, answer.headers["location"]) == (303, f"/catalogs/{carte}")
    assert await inventory(client, shop, carte) == [
        {"sku_ref": "classic-single", "option_ref": None, "stock": "0.0", "expires_at": "2030-01-01T12:00:00+01:00"}
    ]
    [change] = await patches(world)
    assert (change.event_type, change.client_id) == ("patch", None)
    assert change.state_change == [
        {
            "sku_ref": "classic-single",
            "option_ref": None,
            "previous_stock": None,
            "stock": "0.0",
            "expires_at": "2030-01-01T12:00:00+01:00",
        }
    ]
    page = flat(await client.get(f"/catalogs/{carte}"))
    assert '<span class="tag tag-bad">Out of stock until 1 Jan 2030 12:00</span>' in page


async def test_an_option_out_of_stock_until_further_notice_then_back(
    client: httpx.AsyncClient, shop: Shop, carte: str, world: World
) -> None:
    assert (await mark(client, carte, "option:mayo", "out")).status_code == 303
    assert await inventory(client, shop, carte) == [
        {"sku_ref": None, "option_ref": "mayo", "stock": "0.0", "expires_at": None}
    ]
    assert "Out of stock until further notice" in flat(await client.get(f"/catalogs/{carte}"))
    assert (await mark(client, carte, "option:mayo", "back")).status_code == 303
    assert await inventory(client, shop, carte) == []
    _out, back = await patches(world)
    assert back.state_change == [
        {"sku_ref": None, "option_ref": "mayo", "previous_stock": "0.0", "stock": None, "expires_at": None}
    ]


async def test_a_product_out_of_stock_marks_every_sku_with_a_ref(
    client: httpx.AsyncClient, shop: Shop, carte: str, world: World
) -> None:
    data = (await client.get(f"/v1/catalogs/{carte}", headers=shop.headers(shop.account_token))).json()["data"]
    burger = next(p for p in data["products"] if p["ref"] == "classic")
    assert (await mark(client, carte, f"product:{burger['id']}", "out", "2030-01-01T12:00")).status_code == 303
    assert [(e["sku_ref"], e["stock"], e["expires_at"]) for e in await inventory(client, shop, carte)] == [
        ("classic-double", "0.0", "2030-01-01T12:00:00+01:00"),
        ("classic-single", "0.0", "2030-01-01T12:00:00+01:00"),
    ]
    [change] = await patches(world)
    assert [entry["sku_ref"] for entry in change.state_change] == ["classic-single", "classic-double"]
    page = flat(await client.get(f"/catalogs/{carte}"))
    assert '<td data-label="Stock"><span class="tag tag-bad">Out of stock until 1 Jan 2030 12:00</span></td>' in page
    assert (await mark(client, carte, f"product:{burger['id']}", "back")).status_code == 303
    assert await inventory(client, shop, carte) == []


async def test_an_account_level_catalog_is_marked_at_the_chosen_location(client: httpx.AsyncClient, shop: Shop) -> None:
    body = {"name": "Shared", "data": full()}
    catalog = (await create_catalog(client, shop, body, path="/v1/account/catalogs", token=shop.account_token)).json()
    await log_in(client, "owner@example.com")
    lyon = shop.other_location.public_id
    answer = await mark(client, catalog["id"], "sku:cola", "out", location=lyon)
    assert (answer.status_code, answer.headers["location"]) == (303, f"/catalogs/{catalog['id']}?location={lyon}")
    assert await inventory(client, shop, catalog["id"], lyon) == [
        {"sku_ref": "cola", "option_ref": None, "stock": "0.0", "expires_at": None}
    ]
    assert await inventory(client, shop, catalog["id"]) == []  # Paris keeps it


async def test_three_left_is_shown_in_words(client: httpx.AsyncClient, shop: Shop, carte: str) -> None:
    entries = [{"sku_ref": "cola", "stock": "3.000"}, {"option_ref": "ketchup", "stock": "0.5"}]
    put = await client.put(inventory_url(shop, carte), json=entries, headers=shop.headers(shop.account_token))
    assert put.status_code == 200, put.text
    page = flat(await client.get(f"/catalogs/{carte}"))
    assert '<span class="tag tag-warn">3 left</span>' in page
    assert '<span class="tag tag-warn">0.5 left</span>' in page
    assert "3.000" not in page
    assert "0.0 left" not in page


@pytest.mark.parametrize(
    ("item", "until", "message"),
    [
        ("sku:classic-single", "tomorrow", "Until: &#39;tomorrow&#39; is not a valid ISO 8601 time"),
        ("sku:classic-single", "2020-01-01T12:00", "Until: must be in the future"),
        ("sku:nope", "", "Item: no sku of the catalog has the ref &#39;nope&#39;"),
        ("product:nope", "", "Item: this product is not in the catalog"),
    ],
)
async def test_a_refused_mark_is_shown_beside_the_field_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, carte: str, world: World, item: str, until: str, message: str
) -> None:
    before = await world.snapshot()
    answer = await mark(client, carte, item, "out", until)
    assert answer.status_code == 400
    field = catalog_pages.until_id(item)
    if item.startswith("sku:classic"):  # beside the item's time
        assert f'<p class="field-error" id="{field}-error">{message}' in answer.text
    else:  # the item is not a field of the form: at the top
        assert message in answer.text
        assert f'id="{field}-error"' not in answer.text
    assert await world.snapshot() == before


# --- catalogs -------------------------------------------------------------------------------


async def catalog_names(world: World) -> list[tuple[str, int | None]]:
    async with world.db.transaction(write=False) as session:
        rows = await session.execute(select(Catalog.name, Catalog.location_id).order_by(Catalog.id))
        return [(name, location_id) for name, location_id in rows]


async def create_at(client: httpx.AsyncClient, url: str, name: str) -> httpx.Response:
    page = await client.get(url)
    assert page.status_code == 200, page.text
    return await client.post(url, data={"csrf": csrf_of(page.text), "name": name})


async def test_a_catalog_is_created_at_a_location_and_listed(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    url = f"/locations/{shop.location.public_id}/catalogs"
    assert f'<a href="{url}">Catalogs</a>' in (await client.get(f"/locations/{shop.location.public_id}")).text
    answer = await create_at(client, url, "Brunch")
    found = re.fullmatch(r"/catalogs/(\w+)", answer.headers["location"])
    assert answer.status_code == 303
    assert found is not None
    listed = (await client.get(f"/v1{url}", headers=shop.headers(shop.account_token))).json()
    assert [c["name"] for c in listed if c["id"] == found.group(1)] == ["Brunch"]
    [change] = [c for c in await world.changes() if c.resource_type == "catalog"]
    assert (change.event_type, change.client_id) == ("create", None)
    assert f'<a href="/catalogs/{found.group(1)}">Brunch</a>' in (await client.get(url)).text


async def test_an_account_level_catalog_is_created_from_the_account(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    answer = await create_at(client, f"/accounts/{shop.account.public_id}/catalogs", "Everywhere")
    assert answer.status_code == 303
    assert ("Everywhere", None) in await catalog_names(world)
    page = (await client.get(f"/locations/{shop.location.public_id}/catalogs")).text
    assert ">Everywhere</a>" in page  # a location lists the account's catalogs too


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("Menu", "Name: &#39;Menu&#39; is already the name of another catalog of this location or account"),
        ("", "Name: must not be empty"),
        ("x" * 256, "Name: "),
    ],
)
async def test_a_refused_catalog_name_is_shown_beside_the_field_and_creates_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World, name: str, message: str
) -> None:
    await log_in(client, "owner@example.com")
    before = await world.snapshot()
    answer = await create_at(client, f"/locations/{shop.location.public_id}/catalogs", name)
    assert answer.status_code == 400
    assert f'<p class="field-error" id="name-error">{message}' in answer.text
    assert 'aria-invalid="true" aria-describedby="name-error"' in answer.text
    assert f'<li><a href="#name">{message}' in answer.text  # the summary at the top links to it
    assert await world.snapshot() == before


async def test_products_are_paged_and_filtered_by_name(
    client: httpx.AsyncClient, shop: Shop, carte: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(catalog_pages, "PRODUCTS_PER_PAGE", 1)
    first = flat(await client.get(f"/catalogs/{carte}"))
    assert '<td data-label="Item">Classic burger' in first
    assert '<td data-label="Item">Cola' not in first
    assert '<a href="?page=2">Next</a>' in first
    second = flat(await client.get(f"/catalogs/{carte}?page=2"))
    assert '<td data-label="Item">Cola' in second
    assert '<a href="?">Previous</a>' in second
    assert ">Next</a>" not in second
    named = flat(await client.get(f"/catalogs/{carte}?q=COL"))
    assert '<td data-label="Item">Cola' in named
    assert "Classic burger" not in named
    assert "No product is named like “Pizza”." in flat(await client.get(f"/catalogs/{carte}?q=Pizza"))


async def test_an_account_catalog_of_an_account_without_locations_has_no_stock_forms(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    owner = await world.user(email="solo@example.com")
    account = await world.account(owner=owner, name="Solo", currency="EUR")
    token = await world.token(ACCOUNT_SCOPE, account=account)
    body = {"name": "Everywhere", "data": full()}
    catalog = (await create_catalog(client, shop, body, path="/v1/account/catalogs", token=token)).json()
    await log_in(client, "solo@example.com", "password123")
    page = flat(await client.get(f"/catalogs/{catalog['id']}"))
    assert "The account has no location yet: stock is kept per location." in page
    assert '<td data-label="Item">Classic burger' in page
    assert "/stock" not in page
