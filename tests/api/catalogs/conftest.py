"""A catalog upload using every entity and field of spec 2.4 and
docs/api/catalogs.md "Content"."""

from __future__ import annotations

import copy
from typing import Any

import httpx

from tests.api.conftest import Shop

FULL: dict[str, Any] = {
    "variants": [{"ref": "web", "name": "Website"}, {"ref": "kiosk", "name": "Kiosk"}],
    "categories": [
        {"ref": "drinks", "name": "Drinks"},
        {
            "ref": "burgers",
            "parent_ref": "mains",
            "name": "Burgers",
            "description": "Grilled",
            "tags": ["hot"],
        },
        {"ref": "mains", "name": "Mains", "description": None, "tags": []},
        {"ref": "sodas", "parent_ref": "drinks", "name": "Sodas"},
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
                "energy_kcal": "650",
                "salt_g": 2.1,
            },
            "tax_rate": {"delivery": "5.5", "collection": 5.5, "eat_in": "10"},
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
                        "min_order_amount": "15 EUR",
                        "max_per_order": 3,
                        "max_per_customer": 10,
                    },
                    "price": "9.5 EUR",
                    "price_overrides": [
                        {"price": "10.50 EUR", "variant_refs": ["kiosk"]},
                        {"price": "8 EUR", "dow": "-----67"},
                    ],
                    "option_list_refs": ["sauces", "sides"],
                    "tags": ["beef"],
                    "barcodes": ["12345678", "123456789012", "1234567890123"],
                    "custom_fields": {"pos_id": 42, "color": "red"},
                    "weight": "250 g",
                    "volume": "33 cl",
                    "nb_servings": 1,
                },
                {"ref": "classic-double", "name": "Double", "price": "12.00 EUR"},
                {"price": "7 EUR"},
            ],
        },
        {"category_ref": "sodas", "name": "Cola", "skus": [{"ref": "cola", "price": "3 EUR"}]},
    ],
    "option_lists": [
        {
            "ref": "sauces",
            "name": "Sauces",
            "min_selections": 0,
            "max_selections": 2,
            "tags": ["free"],
            "options": [
                {"ref": "ketchup", "name": "Ketchup", "default": True, "tags": ["red"]},
                {
                    "ref": "mayo",
                    "name": "Mayo",
                    "price": "0.5 EUR",
                    "restrictions": {"enabled": False},
                    "price_overrides": [{"price": "0.30 EUR", "start_date": "2026-07-01"}],
                },
            ],
        },
        {"ref": "sides", "name": "Sides", "type": "single", "options": [{"name": "Fries"}, {"name": "Salad"}]},
    ],
    "deals": [
        {
            "ref": "lunch",
            "category_ref": "mains",
            "name": "Lunch menu",
            "description": "Burger and drink",
            "coupon_codes": ["LUNCH"],
            "restrictions": {"start_time": "11:00", "end_time": "14:30"},
            "tags": ["noon"],
            "lines": [
                {
                    "label": "Burger",
                    "skus": [{"ref": "classic-single"}, {"ref": "classic-double", "extra_charge": "2 EUR"}],
                    "pricing_effect": "fixed_price",
                    "pricing_value": "11 EUR",
                },
                {"label": "Drink", "skus": [{"ref": "cola"}], "pricing_effect": "percentage_off", "pricing_value": 50},
                {"skus": [{"ref": "cola"}], "pricing_effect": "unchanged"},
            ],
        }
    ],
    "discounts": [
        {
            "ref": "welcome",
            "name": "Welcome",
            "description": "10% off",
            "restrictions": {"min_order_amount": "20 EUR"},
            "coupon_codes": ["HELLO"],
            "pricing_effect": "percentage_off",
            "pricing_value": "10",
        },
        {"name": "Two euros", "pricing_effect": "price_off", "pricing_value": "2 EUR"},
    ],
    "charges": [
        {
            "ref": "delivery",
            "name": "Delivery",
            "type": "delivery",
            "price": "2.5 EUR",
            "restrictions": {"dow": "1234567"},
        },
        {"name": "Tip", "type": "tip"},
    ],
}


def full() -> dict[str, Any]:
    return copy.deepcopy(FULL)


async def create(
    client: httpx.AsyncClient,
    shop: Shop,
    body: dict[str, Any],
    path: str = "/v1/location/catalogs",
    token: str | None = None,
) -> httpx.Response:
    """POST a catalog; by default at the shop's location with the account token's
    all_catalogs.write through the long form."""
    if token is None and path == "/v1/location/catalogs":
        path = f"/v1/locations/{shop.location.public_id}/catalogs"
    return await client.post(path, json=body, headers={"X-Access-Token": token or shop.account_token})
