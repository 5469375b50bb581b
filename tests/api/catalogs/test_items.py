"""spec 4.3 and docs/api/catalogs.md "Read shapes": reads of what a catalog holds."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.catalogs.conftest import create, full
from tests.api.conftest import Shop
from tests.factories import World


@pytest.fixture
async def catalog(client: httpx.AsyncClient, shop: Shop) -> dict[str, Any]:
    answer = await create(client, shop, {"name": "Carte", "data": full()})
    assert answer.status_code == 200, answer.text
    return answer.json()


async def get(client: httpx.AsyncClient, shop: Shop, path: str) -> httpx.Response:
    return await client.get(f"/v1/catalogs/{path}", headers={"X-Access-Token": shop.account_token})


@pytest.mark.parametrize(
    ("section", "path"),
    [
        ("categories", "categories"),
        ("products", "products"),
        ("option_lists", "option_lists"),
        ("deals", "deals"),
        ("discounts", "discounts"),
        ("charges", "charges"),
    ],
)
async def test_each_kind_lists_and_gets_as_the_catalog_holds_it(
    client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any], section: str, path: str
) -> None:
    held = catalog["data"][section]
    listed = await get(client, shop, f"{catalog['id']}/{path}")
    assert listed.status_code == 200
    assert listed.json() == held
    for item in held:
        one = await get(client, shop, f"{catalog['id']}/{path}/{item['id']}")
        assert one.json() == item


async def test_skus_and_options_list_and_get_under_their_parent(
    client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any]
) -> None:
    product = catalog["data"]["products"][0]
    skus = await get(client, shop, f"{catalog['id']}/products/{product['id']}/skus")
    assert skus.json() == product["skus"]
    sku = product["skus"][1]
    assert (await get(client, shop, f"{catalog['id']}/products/{product['id']}/skus/{sku['id']}")).json() == sku
    option_list = catalog["data"]["option_lists"][0]
    options = await get(client, shop, f"{catalog['id']}/option_lists/{option_list['id']}/options")
    assert options.json() == option_list["options"]
    option = option_list["options"][1]
    found = await get(client, shop, f"{catalog['id']}/option_lists/{option_list['id']}/options/{option['id']}")
    assert found.json() == option


async def test_categories_page_depth_first_and_products_in_upload_order(
    client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any]
) -> None:
    first = await get(client, shop, f"{catalog['id']}/categories?count=3")
    assert [c["ref"] for c in first.json()] == ["drinks", "sodas", "mains"]
    second = await get(client, shop, f"{catalog['id']}/categories?count=3&cursor={first.headers['x-cursor-next']}")
    assert [c["ref"] for c in second.json()] == ["burgers"]
    assert "x-cursor-next" not in second.headers
    products = await get(client, shop, f"{catalog['id']}/products?count=1")
    assert [p["name"] for p in products.json()] == ["Classic burger"]
    rest = await get(client, shop, f"{catalog['id']}/products?count=1&cursor={products.headers['x-cursor-next']}")
    assert [p["name"] for p in rest.json()] == ["Cola"]


async def test_skus_are_paginated(client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any]) -> None:
    product = catalog["data"]["products"][0]
    path = f"{catalog['id']}/products/{product['id']}/skus"
    first = await get(client, shop, f"{path}?count=2")
    assert [s["name"] for s in first.json()] == ["Single", "Double"]
    second = await get(client, shop, f"{path}?count=2&cursor={first.headers['x-cursor-next']}")
    assert [s["price"] for s in second.json()] == ["7.00 EUR"]
    assert "x-cursor-next" not in second.headers
    bad = await get(client, shop, f"{path}?cursor=nonsense")
    assert (bad.status_code, bad.json()) == (
        400,
        {"error_type": "bad_request", "message": "cursor is not a value this API gave in X-Cursor-Next"},
    )


async def test_an_item_of_another_catalog_or_kind_is_404(
    client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any]
) -> None:
    other = (await create(client, shop, {"name": "Other", "data": full()})).json()
    product_id = other["data"]["products"][0]["id"]
    for path in (
        f"{catalog['id']}/products/{product_id}",
        f"{catalog['id']}/categories/{product_id}",
        f"{catalog['id']}/products/{catalog['data']['products'][0]['id']}/skus/{product_id}",
        f"{catalog['id']}/deals/zzzzz",
    ):
        answer = await get(client, shop, path)
        assert answer.status_code == 404, path
        assert answer.json()["error_type"] == "not_found"


async def test_items_of_an_unreachable_catalog_are_404(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any]
) -> None:
    lyon = await world.catalog(location=shop.other_location, name="Lyon")
    token = await world.token("location[catalog.read]", location=shop.other_location, catalog=lyon)
    product_id = catalog["data"]["products"][0]["id"]
    answer = await client.get(f"/v1/catalogs/{catalog['id']}/products/{product_id}", headers={"X-Access-Token": token})
    assert (answer.status_code, answer.json()) == (
        404,
        {"error_type": "not_found", "message": f"No catalog with id {catalog['id']!r}"},
    )
