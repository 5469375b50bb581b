"""docs/api/conventions.md "Null fields" on catalogs and inventories: an optional field of the
content sent as null, at any depth, reads as if it were not sent; a catalog PUT with a null
`name` or `data` keeps them; a required field sent as null is a 422 naming it; a custom
field's key set to null is not stored, and in an inventory PATCH `stock: null` deletes the
entry."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest

from tests.api.catalogs.conftest import create, full
from tests.api.conftest import Shop
from tests.factories import World

NULLS: dict[str, Any] = {
    "variants": None,
    "categories": [
        {"ref": "mains", "name": "Mains", "parent_ref": None, "description": None, "tags": None, "image_ids": None}
    ],
    "products": [
        {
            "ref": None,
            "category_ref": "mains",
            "name": "Burger",
            "description": None,
            "tags": None,
            "nutrition": None,
            "tax_rate": None,
            "image_ids": None,
            "skus": [
                {
                    "ref": "burger",
                    "name": None,
                    "price": "9 EUR",
                    "restrictions": None,
                    "price_overrides": None,
                    "option_list_refs": None,
                    "tags": None,
                    "barcodes": None,
                    "custom_fields": None,
                    "weight": None,
                    "volume": None,
                    "nb_servings": None,
                }
            ],
        },
        {
            "category_ref": "mains",
            "name": "Salad",
            "nutrition": {"legal_name": None, "allergens": None, "energy_kcal": None},
            "skus": [
                {
                    "price": "7 EUR",
                    "restrictions": {"enabled": None, "variant_refs": None, "dow": None, "service_types": None},
                    "price_overrides": [{"price": "6 EUR", "dow": "12345--", "variant_refs": None}],
                    "custom_fields": {"pos": 1, "old": None},
                }
            ],
        },
    ],
    "option_lists": [
        {
            "ref": "sides",
            "name": "Sides",
            "type": "single",
            "min_selections": None,
            "tags": None,
            "options": [
                {
                    "name": "Fries",
                    "ref": None,
                    "price": None,
                    "restrictions": None,
                    "price_overrides": None,
                    "default": None,
                    "tags": None,
                }
            ],
        }
    ],
    "deals": [
        {
            "ref": None,
            "category_ref": None,
            "name": "Menu",
            "description": None,
            "coupon_codes": None,
            "restrictions": None,
            "tags": None,
            "image_ids": None,
            "lines": [
                {"label": None, "skus": [{"ref": "burger", "extra_charge": None}], "pricing_effect": "unchanged"}
            ],
        }
    ],
    "discounts": [
        {
            "ref": None,
            "name": "Two off",
            "description": None,
            "restrictions": None,
            "coupon_codes": None,
            "pricing_effect": "price_off",
            "pricing_value": "2 EUR",
            "image_ids": None,
        }
    ],
    "charges": [{"ref": None, "name": "Tip", "type": "tip", "price": None, "restrictions": None}],
}


def _without_nulls(value: Any) -> Any:
    """`value` with every key whose value is null left out, at every depth."""
    if isinstance(value, dict):
        return {key: _without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_nulls(item) for item in value]
    return value


def _without_ids(value: Any) -> Any:
    """A read shape without the ids generated for it."""
    if isinstance(value, dict):
        return {
            key: _without_ids(item)
            for key, item in value.items()
            if key != "id" and not key.endswith("_id") and not key.endswith("_ids")
        }
    if isinstance(value, list):
        return [_without_ids(item) for item in value]
    return value


async def uploaded(client: httpx.AsyncClient, shop: Shop, name: str, data: Any) -> dict[str, Any]:
    answer = await create(client, shop, {"name": name, "data": data})
    assert answer.status_code == 200, answer.text
    return answer.json()


async def test_content_sent_with_nulls_reads_as_sent_without_them(client: httpx.AsyncClient, shop: Shop) -> None:
    with_nulls = (await uploaded(client, shop, "With nulls", copy.deepcopy(NULLS)))["data"]
    without = (await uploaded(client, shop, "Without", _without_nulls(NULLS)))["data"]
    assert _without_ids(with_nulls) == _without_ids(without)
    assert with_nulls["variants"] == []
    [sides] = with_nulls["option_lists"]
    assert (sides["min_selections"], sides["max_selections"]) == (1, 1)  # the deprecated `single`
    assert with_nulls["products"][1]["skus"][0]["custom_fields"] == {"pos": 1}
    assert with_nulls["charges"][0]["price"] is None  # a variable amount


async def test_a_null_max_selections_is_unlimited(client: httpx.AsyncClient, shop: Shop) -> None:
    data = full()
    data["option_lists"][1] = {**data["option_lists"][1], "max_selections": None}  # `type: single`
    sides = (await uploaded(client, shop, "Unlimited", data))["data"]["option_lists"][1]
    assert (sides["min_selections"], sides["max_selections"], sides["type"]) == (1, None, "multiple")


async def test_a_put_with_null_name_and_data_keeps_both(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    catalog = await uploaded(client, shop, "Carte", full())
    before = await world.snapshot()
    answer = await client.put(
        f"/v1/catalogs/{catalog['id']}", json={"name": None, "data": None}, headers=shop.headers(shop.account_token)
    )
    assert answer.status_code == 200
    assert answer.json() == catalog
    assert await world.snapshot() == before  # no catalog.update either


async def test_a_new_catalogs_null_data_is_empty(client: httpx.AsyncClient, shop: Shop) -> None:
    catalog = await uploaded(client, shop, "Empty", None)
    assert catalog["data"] == {
        "variants": [],
        "categories": [],
        "products": [],
        "option_lists": [],
        "deals": [],
        "discounts": [],
        "charges": [],
    }


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"name": None}, "name", "must not be empty"),
        ({"name": "C", "data": {"variants": [{"ref": "web", "name": None}]}}, "data.variants[0].name", "is required"),
        (
            {"name": "C", "data": {"categories": [{"ref": None, "name": "Mains"}]}},
            "data.categories[0].ref",
            "is required",
        ),
        (
            {"name": "C", "data": {**NULLS, "charges": [{"name": "Tip", "type": None}]}},
            "data.charges[0].type",
            "is required (one of delivery, payment_fee, tip, tax, other)",
        ),
        (
            {"name": "C", "data": {**NULLS, "deals": None, "products": [{**NULLS["products"][0], "skus": None}]}},
            "data.products[0].skus",
            "must hold at least one sku",
        ),
    ],
)
async def test_a_required_field_sent_as_null_is_422_naming_it(
    client: httpx.AsyncClient, shop: Shop, world: World, body: dict[str, Any], field: str, message: str
) -> None:
    before = await world.snapshot()
    answer = await create(client, shop, body)
    assert answer.status_code == 422
    assert answer.json()["errors"] == [{"field": field, "message": message}]
    assert await world.snapshot() == before


# --- inventory ----------------------------------------------------------------------------


@pytest.fixture
async def catalog(client: httpx.AsyncClient, shop: Shop) -> dict[str, Any]:
    return await uploaded(client, shop, "Carte", full())


def inventory(catalog: dict[str, Any], shop: Shop) -> str:
    return f"/v1/catalogs/{catalog['id']}/locations/{shop.location.public_id}/inventory"


async def test_null_refs_and_expiry_of_an_entry_are_not_sent(
    client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any]
) -> None:
    body = [{"sku_ref": "cola", "option_ref": None, "stock": "3", "expires_at": None}]
    answer = await client.put(inventory(catalog, shop), json=body, headers=shop.headers(shop.account_token))
    assert answer.status_code == 200
    assert answer.json() == [{"sku_ref": "cola", "option_ref": None, "stock": "3.0", "expires_at": None}]


async def test_a_null_stock_deletes_on_patch_and_is_required_on_put(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any]
) -> None:
    headers = shop.headers(shop.account_token)
    await client.put(inventory(catalog, shop), json=[{"sku_ref": "cola", "stock": "3"}], headers=headers)
    before = await world.snapshot()
    refused = await client.put(inventory(catalog, shop), json=[{"sku_ref": "cola", "stock": None}], headers=headers)
    assert refused.status_code == 422
    assert refused.json()["errors"] == [{"field": "[0].stock", "message": "is required"}]
    assert await world.snapshot() == before
    deleted = await client.patch(inventory(catalog, shop), json=[{"sku_ref": "cola", "stock": None}], headers=headers)
    assert deleted.status_code == 200
    assert deleted.json() == [{"sku_ref": "cola", "option_ref": None, "stock": None, "expires_at": None}]
    assert (await client.get(inventory(catalog, shop), headers=headers)).json() == []
