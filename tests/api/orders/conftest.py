from __future__ import annotations

import copy
from typing import Any

import httpx

from tests.api.conftest import Shop

# A realistic delivery order: an item with options in a deal, a plain item, a charge, a
# discount, a payment and a guest customer.
ORDER: dict[str, Any] = {
    "status": "new",
    "channel": "Website",
    "ref": "W-1001",
    "private_ref": "pos-1001",
    "service_type": "delivery",
    "service_type_ref": "home",
    "expected_time": "2026-06-24T19:30:00+02:00",
    "customer_notes": "Ring twice",
    "collection_code": "XK2",
    "coupon_codes": ["SUMMER"],
    "items": [
        {
            "product_name": "Margherita",
            "sku_name": "Large",
            "sku_ref": "MAR-L",
            "price": "10.50 EUR",
            "quantity": "2",
            "private_ref": "line-1",
            "options": [
                {"option_list_name": "Extras", "name": "Mozzarella", "ref": "MOZ", "price": "1.25 EUR", "quantity": 2},
                {"option_list_name": "Extras", "name": "Basil", "quantity": 1},
                {"option_list_name": "Remove", "name": "Oregano", "removed": True, "price": "0.10 EUR"},
            ],
            "deal_line": {"deal_key": "menu", "label": "Pizza", "position": 0},
        },
        {"product_name": "Cola", "price": "2.5 EUR", "quantity": 3, "tax_rate": "5.5"},
    ],
    "deals": {"menu": {"name": "Pizza menu", "ref": "DEAL-1"}},
    "charges": [{"type": "delivery", "name": "Delivery fee", "price": "3.00 EUR", "tax_rate": "20"}],
    "discounts": [{"name": "Summer", "ref": "SUMMER", "price_off": "4.00 EUR"}],
    "payments": [{"type": "online", "name": "Card", "ref": "pay-1", "amount": "32.30 EUR", "info": {"psp": "x"}}],
    "customer": {"first_name": "Ann", "last_name": "Smith", "email": "ann@example.com", "phone": "+33612345678"},
    "custom_fields": {"table": 12},
}
# (10.50 + 1.25 x 2 + 0.10) x 2 + 2.50 x 3 + 3.00 - 4.00 = 26.20 + 7.50 - 1.00
ORDER_TOTAL = "32.70 EUR"


def order(**changes: Any) -> dict[str, Any]:
    body = copy.deepcopy(ORDER)
    body.update(changes)
    return body


async def create(
    client: httpx.AsyncClient,
    shop: Shop,
    body: dict[str, Any],
    token: str | None = None,
    path: str = "/v1/location/orders",
) -> httpx.Response:
    return await client.post(path, json=body, headers=shop.headers(token))


async def created(
    client: httpx.AsyncClient, shop: Shop, body: dict[str, Any], token: str | None = None
) -> dict[str, Any]:
    response = await create(client, shop, body, token)
    assert response.status_code == 200, response.text
    return response.json()
