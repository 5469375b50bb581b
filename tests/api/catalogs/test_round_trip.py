"""A catalog using every entity and field of spec 2.4 and docs/api/catalogs.md "Content"
round-trips: what is read back equals what was uploaded for every field of the read shape,
plus generated ids and read defaults."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.catalogs.conftest import create, full
from tests.api.conftest import Shop

NO_RESTRICTIONS = {
    "enabled": True, "variant_refs": [], "dow": None, "start_time": None, "end_time": None, "start_date": None,
    "end_date": None, "service_types": [], "service_type_refs": [], "min_order_amount": None, "max_per_order": None,
    "max_per_customer": None,
}  # fmt: skip
NO_CONTEXT = {
    "variant_refs": [], "dow": None, "start_time": None, "end_time": None, "start_date": None, "end_date": None,
    "service_types": [], "service_type_refs": [],
}  # fmt: skip
SKU_DEFAULTS = {
    "ref": None, "name": None, "restrictions": None, "price_overrides": [], "option_list_refs": [], "tags": [],
    "barcodes": [], "custom_fields": {}, "weight": None, "volume": None, "nb_servings": None,
}  # fmt: skip
CATEGORY_DEFAULTS = {"parent_ref": None, "description": None, "tags": [], "image_ids": []}
OPTION_DEFAULTS = {"ref": None, "restrictions": None, "price_overrides": [], "default": False, "tags": []}

EXPECTED: dict[str, Any] = {
    "variants": [{"ref": "web", "name": "Website"}, {"ref": "kiosk", "name": "Kiosk"}],
    "categories": [  # depth-first, in upload order (spec 2.4 rule 4)
        {**CATEGORY_DEFAULTS, "ref": "drinks", "name": "Drinks"},
        {**CATEGORY_DEFAULTS, "ref": "sodas", "parent_ref": "drinks", "name": "Sodas"},
        {**CATEGORY_DEFAULTS, "ref": "mains", "name": "Mains"},
        {
            **CATEGORY_DEFAULTS,
            "ref": "burgers",
            "parent_ref": "mains",
            "name": "Burgers",
            "description": "Grilled",
            "tags": ["hot"],
        },
    ],
    "products": [
        {
            "ref": "classic",
            "category_ref": "burgers",
            "name": "Classic burger",
            "description": "Beef, cheddar",
            "tags": ["bestseller"],
            "nutrition": {
                "legal_name": "Beef burger",
                "allergens": ["gluten", "milk"],
                "energy_kcal": "650.0",
                "fat_g": None,
                "saturated_fat_g": None,
                "carbohydrates_g": None,
                "sugars_g": None,
                "protein_g": None,
                "salt_g": "2.1",
            },
            "tax_rate": {"delivery": "5.5", "collection": "5.5", "eat_in": "10.0"},
            "image_ids": [],
            "skus": [
                {
                    "ref": "classic-single",
                    "name": "Single",
                    "restrictions": {
                        "enabled": True,
                        "variant_refs": ["web"],
                        "dow": "12345--",
                        "start_time": "11:00",
                        "end_time": "15:00",
                        "start_date": "2026-01-01",
                        "end_date": "2026-12-31",
                        "service_types": ["delivery", "eat_in"],
                        "service_type_refs": ["terrace"],
                        "min_order_amount": "15.00 EUR",
                        "max_per_order": 3,
                        "max_per_customer": 10,
                    },
                    "price": "9.50 EUR",
                    "price_overrides": [
                        {**NO_CONTEXT, "price": "10.50 EUR", "variant_refs": ["kiosk"]},
                        {**NO_CONTEXT, "price": "8.00 EUR", "dow": "-----67"},
                    ],
                    "option_list_refs": ["sauces", "sides"],
                    "tags": ["beef"],
                    "barcodes": ["12345678", "123456789012", "1234567890123"],
                    "custom_fields": {"pos_id": 42, "color": "red"},
                    "weight": "250 g",
                    "volume": "33 cl",
                    "nb_servings": 1,
                },
                {**SKU_DEFAULTS, "ref": "classic-double", "name": "Double", "price": "12.00 EUR"},
                {**SKU_DEFAULTS, "price": "7.00 EUR"},
            ],
        },
        {
            "ref": None,
            "category_ref": "sodas",
            "name": "Cola",
            "description": None,
            "tags": [],
            "nutrition": None,
            "tax_rate": None,
            "image_ids": [],
            "skus": [{**SKU_DEFAULTS, "ref": "cola", "price": "3.00 EUR"}],
        },
    ],
    "option_lists": [
        {
            "ref": "sauces",
            "name": "Sauces",
            "min_selections": 0,
            "max_selections": 2,
            "type": "multiple",
            "tags": ["free"],
            "options": [
                {
                    **OPTION_DEFAULTS,
                    "ref": "ketchup",
                    "name": "Ketchup",
                    "price": "0.00 EUR",
                    "default": True,
                    "tags": ["red"],
                },
                {
                    **OPTION_DEFAULTS,
                    "ref": "mayo",
                    "name": "Mayo",
                    "price": "0.50 EUR",
                    "restrictions": {**NO_RESTRICTIONS, "enabled": False},
                    "price_overrides": [{**NO_CONTEXT, "price": "0.30 EUR", "start_date": "2026-07-01"}],
                },
            ],
        },
        {
            "ref": "sides",
            "name": "Sides",
            "min_selections": 1,
            "max_selections": 1,
            "type": "single",
            "tags": [],
            "options": [
                {**OPTION_DEFAULTS, "name": "Fries", "price": "0.00 EUR"},
                {**OPTION_DEFAULTS, "name": "Salad", "price": "0.00 EUR"},
            ],
        },
    ],
    "deals": [
        {
            "ref": "lunch",
            "category_ref": "mains",
            "name": "Lunch menu",
            "description": "Burger and drink",
            "coupon_codes": ["LUNCH"],
            "restrictions": {**NO_RESTRICTIONS, "start_time": "11:00", "end_time": "14:30"},
            "tags": ["noon"],
            "image_ids": [],
            "lines": [
                {
                    "label": "Burger",
                    "skus": [
                        {"ref": "classic-single", "extra_charge": None},
                        {"ref": "classic-double", "extra_charge": "2.00 EUR"},
                    ],
                    "pricing_effect": "fixed_price",
                    "pricing_value": "11.00 EUR",
                },
                {
                    "label": "Drink",
                    "skus": [{"ref": "cola", "extra_charge": None}],
                    "pricing_effect": "percentage_off",
                    "pricing_value": "50.0",
                },
                {
                    "label": None,
                    "skus": [{"ref": "cola", "extra_charge": None}],
                    "pricing_effect": "unchanged",
                    "pricing_value": None,
                },
            ],
        }
    ],
    "discounts": [
        {
            "ref": "welcome",
            "name": "Welcome",
            "description": "10% off",
            "restrictions": {**NO_RESTRICTIONS, "min_order_amount": "20.00 EUR"},
            "coupon_codes": ["HELLO"],
            "pricing_effect": "percentage_off",
            "pricing_value": "10.0",
            "image_ids": [],
        },
        {
            "ref": None,
            "name": "Two euros",
            "description": None,
            "restrictions": None,
            "coupon_codes": [],
            "pricing_effect": "price_off",
            "pricing_value": "2.00 EUR",
            "image_ids": [],
        },
    ],
    "charges": [
        {
            "ref": "delivery",
            "name": "Delivery",
            "type": "delivery",
            "price": "2.50 EUR",
            "restrictions": {**NO_RESTRICTIONS, "dow": "1234567"},
        },
        {"ref": None, "name": "Tip", "type": "tip", "price": None, "restrictions": None},
    ],
}

ID_FIELDS = {"id", "parent_id", "category_id", "product_id", "option_list_id", "option_list_ids"}


def without_ids(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: without_ids(item) for key, item in value.items() if key not in ID_FIELDS}
    if isinstance(value, list):
        return [without_ids(item) for item in value]
    return value


@pytest.fixture
async def catalog(client: httpx.AsyncClient, shop: Shop) -> dict[str, Any]:
    answer = await create(client, shop, {"name": "Carte", "data": full()})
    assert answer.status_code == 200, answer.text
    return answer.json()


async def test_every_field_reads_back_as_uploaded_with_read_defaults(
    client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any]
) -> None:
    read = await client.get(f"/v1/catalogs/{catalog['id']}", headers=shop.headers(shop.account_token))
    assert read.status_code == 200
    assert read.json() == catalog  # the create's answer is the catalog as stored
    assert without_ids(catalog["data"]) == EXPECTED


async def test_ids_are_generated_and_refs_point_at_them(catalog: dict[str, Any]) -> None:
    data = catalog["data"]
    by_ref = {category["ref"]: category["id"] for category in data["categories"]}
    assert [c["parent_id"] for c in data["categories"]] == [None, by_ref["drinks"], None, by_ref["mains"]]
    classic, cola = data["products"]
    assert (classic["category_id"], cola["category_id"]) == (by_ref["burgers"], by_ref["sodas"])
    lists = {option_list["ref"]: option_list["id"] for option_list in data["option_lists"]}
    assert classic["skus"][0]["option_list_ids"] == [lists["sauces"], lists["sides"]]
    assert {sku["product_id"] for sku in classic["skus"]} == {classic["id"]}
    for option_list in data["option_lists"]:
        assert {option["option_list_id"] for option in option_list["options"]} == {option_list["id"]}
    deal = data["deals"][0]
    assert deal["category_id"] == by_ref["mains"]
    assert [item["id"] for item in deal["lines"][0]["skus"]] == [classic["skus"][0]["id"], classic["skus"][1]["id"]]
    every_id = [
        entity["id"]
        for section in ("categories", "products", "option_lists", "deals", "discounts", "charges")
        for entity in data[section]
    ]
    every_id += [sku["id"] for product in data["products"] for sku in product["skus"]]
    every_id += [option["id"] for option_list in data["option_lists"] for option in option_list["options"]]
    assert [found for found in every_id if not (isinstance(found, str) and len(found) == 6)] == []
    assert len(set(every_id)) == len(every_id)


async def test_an_empty_catalog_reads_every_section_as_an_empty_array(client: httpx.AsyncClient, shop: Shop) -> None:
    answer = await create(client, shop, {"name": "Empty"})
    assert answer.json()["data"] == {
        "variants": [], "categories": [], "products": [], "option_lists": [], "deals": [], "discounts": [], "charges": [],
    }  # fmt: skip
