"""Every string, date and number field of the main write endpoints, and the main query
filters, given hostile values (NUL characters, numbers beyond any column, times at the
calendar's limits, non-ASCII digits, very long text, deep nesting, wrong types): the answer
is never a server error, and every refusal is in the error format (spec 7).

Each field of a valid body is replaced in turn by each hostile value (the rest of the body
kept valid), so a refusal names that field, or the value is stored and read back."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.api.conftest import Shop
from tests.api.orders.conftest import ORDER

Path = tuple[str | int, ...]


def _deep(levels: int) -> Any:
    value: Any = []
    for _ in range(levels - 1):
        value = {"k": value}
    return value


HOSTILE: list[Any] = [
    "a\u0000b",  # PostgreSQL stores no NUL
    999999999999999999999999999999,  # beyond 64 bits, and beyond NUMERIC's usual 28 digits
    -(10**40),
    "999999999999999999999999999999",
    "9999-12-31T23:59:59-14:00",  # UTC is past the calendar's end
    "0001-01-01T00:00:00",
    "9999-12-31",
    "１０",  # fullwidth digits
    "１０ EUR",
    "x" * 70_000,
    _deep(300),  # deeper than orjson writes
    [],
    {},
    True,
    None,
]


def leaves(value: Any, path: Path = ()) -> Iterator[Path]:
    """Every scalar of a body, and every object or array below the top."""
    if isinstance(value, dict):
        if path:
            yield path
        for key, item in value.items():
            yield from leaves(item, (*path, key))
    elif isinstance(value, list):
        yield path
        for index, item in enumerate(value):
            yield from leaves(item, (*path, index))
    else:
        yield path


def replaced(body: Any, path: Path, new: Any) -> Any:
    copied = copy.deepcopy(body)
    target = copied
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = new
    return copied


def problem(response: httpx.Response) -> str | None:
    """What is wrong with an answer to a hostile request (None when it is fine)."""
    if response.status_code >= 500:
        return f"{response.status_code} {response.text[:200]}"
    if response.status_code < 400:
        return None
    body = response.json()
    expected = {"error_type", "message"} | ({"errors"} if response.status_code == 422 else set())
    if set(body) != expected or not isinstance(body["error_type"], str) or not isinstance(body["message"], str):
        return f"not the error format: {body}"
    if response.status_code == 422 and not (
        body["errors"] and all(set(e) == {"field", "message"} for e in body["errors"])
    ):
        return f"not the error format: {body}"
    return None


async def fuzz(client: httpx.AsyncClient, method: str, url: str, token: str, body: dict[str, Any]) -> list[str]:
    """Send `body` with each field replaced by each hostile value; what went wrong."""
    found = []
    headers = {"X-Access-Token": token, "Content-Type": "application/json"}
    for path in leaves(body):
        for value in HOSTILE:
            content = json.dumps(replaced(body, path, value)).encode()
            response = await client.request(method, url, content=content, headers=headers)
            if (wrong := problem(response)) is not None:
                found.append(f"{method} {url} {path}={str(value)[:30]!r}: {wrong}")
    return found


def _order() -> dict[str, Any]:
    body = copy.deepcopy(ORDER)
    body["private_ref"] = None  # each accepted variant is a new order
    body["items"][0]["options"] = body["items"][0]["options"][:1]
    return body


CUSTOMER = {
    "private_ref": "c-1",
    "email": "ann@example.com",
    "first_name": "Ann",
    "last_name": "Smith",
    "gender": "female",
    "birth_date": "1990-02-03",
    "company_name": "Acme",
    "phone": "+33612345678",
    "address_1": "1 rue de la Paix",
    "postal_code": "75002",
    "city": "Paris",
    "country": "FR",
    "latitude": "48.86",
    "longitude": 2.33,
    "delivery_notes": "Door code 1234",
    "sms_marketing": True,
    "custom_fields": {"tier": "gold", "n": 1},
}
DELIVERY = {
    "status": "pending",
    "carrier": "Zoom",
    "carrier_ref": "Z",
    "ref": "d-1",
    "fee": "4.50 EUR",
    "estimated_pickup_at": "2026-06-24T17:30:00",
    "estimated_dropoff_at": "2026-06-24T18:00:00+02:00",
    "driver_name": "Bob",
    "driver_phone": "+33612345678",
    "driver_latitude": "48.8",
    "driver_longitude": "2.3",
    "assigned_at": "2026-06-24T17:00:00",
}
CATALOG = {
    "name": "Menu",
    "data": {
        "categories": [{"ref": "mains", "name": "Mains", "tags": ["hot"]}],
        "products": [
            {
                "ref": "classic",
                "category_ref": "mains",
                "name": "Classic",
                "nutrition": {"energy_kcal": "650", "salt_g": 2.1},
                "tax_rate": {"delivery": "5.5"},
                "skus": [
                    {
                        "ref": "classic-single",
                        "price": "9.5 EUR",
                        "restrictions": {"dow": "12345--", "start_time": "11:00", "start_date": "2026-01-01"},
                        "price_overrides": [{"price": "8 EUR", "dow": "-----67"}],
                        "option_list_refs": ["sauces"],
                        "barcodes": ["12345678"],
                        "custom_fields": {"pos_id": 42},
                        "weight": "250 g",
                        "nb_servings": 1,
                    }
                ],
            }
        ],
        "option_lists": [
            {
                "ref": "sauces",
                "name": "Sauces",
                "max_selections": 2,
                "options": [{"ref": "mayo", "name": "Mayo", "price": "0.5 EUR"}],
            }
        ],
        "discounts": [{"ref": "welcome", "name": "Welcome", "pricing_effect": "percentage_off", "pricing_value": "10"}],
    },
}
LOCATION = {
    "cutoff_time": "04:00",
    "preparation_time": 20,
    "opening_hours": {"monday": [{"from": "11:00", "to": "14:00"}]},
    "order_acceptance": {"mode": "busy", "resume_at": "2026-06-24T20:00:00", "extra_preparation_time": 10},
    "custom_fields": {"k": "v"},
}


async def _json(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    return response.json()


async def test_no_hostile_field_value_is_a_server_error(client: httpx.AsyncClient, shop: Shop) -> None:
    location = shop.location_token
    account = shop.account_token
    headers = {"X-Access-Token": location}
    account_headers = {"X-Access-Token": account}
    placed = await _json(await client.post("/v1/location/orders", json=_order(), headers=headers))
    order_url = f"/v1/location/orders/{placed['id']}"
    list_id = (await _json(await client.get("/v1/location/customer_lists", headers=headers)))[0]["id"]
    customer = await _json(
        await client.post(f"/v1/customer_lists/{list_id}/customers", json={"first_name": "A"}, headers=headers)
    )
    card = await _json(
        await client.post(
            f"/v1/customer_lists/{list_id}/loyalty_cards", json={"customer_id": customer["id"]}, headers=headers
        )
    )
    catalog = await _json(await client.post("/v1/account/catalogs", json={"name": "Fuzz"}, headers=account_headers))
    await _json(await client.post(f"{order_url}/delivery", json=DELIVERY, headers=headers))
    cards = f"/v1/customer_lists/{list_id}/loyalty_cards"

    targets: list[tuple[str, str, str, dict[str, Any]]] = [
        ("POST", "/v1/location/orders", location, _order()),
        ("PATCH", order_url, location, {"status": "accepted", "confirmed_time": "2026-06-24T19:00:00", "seller_notes": "ok",
                                        "custom_fields": {"a": 1}, "private_ref": "o-1"}),
        ("PATCH", order_url, location, {"items": [{"product_name": "Tea", "price": "2 EUR", "quantity": "1.5"}],
                                        "payments": [{"amount": "1 EUR", "info": {"k": [1, "x"]}}]}),
        ("POST", f"/v1/customer_lists/{list_id}/customers", location, CUSTOMER),
        ("PATCH", f"/v1/customer_lists/{list_id}/customers/{customer['id']}", location, CUSTOMER),
        ("POST", "/v1/account/customer_lists", account, {"name": "VIP"}),
        ("POST", cards, location, {"customer_id": customer["id"], "name": "Gold", "ref": "g-1"}),
        ("PATCH", f"{cards}/{card['id']}", location, {"name": "Silver", "ref": "s-1"}),
        ("POST", f"{cards}/{card['id']}/operations", location, {"delta": "5.5", "reason": "Visit", "order_id": placed["id"]}),
        ("PATCH", "/v1/location", location, LOCATION),
        ("POST", f"{order_url}/delivery_quotes", location, {k: DELIVERY[k] for k in ("carrier", "carrier_ref", "ref", "fee", "estimated_pickup_at", "estimated_dropoff_at")}),
        ("PATCH", f"{order_url}/delivery", location, {**DELIVERY, "delivered_at": "2026-06-24T18:05:00"}),
        ("PUT", f"/v1/catalogs/{catalog['id']}", account, CATALOG),
        ("PUT", f"/v1/catalogs/{catalog['id']}/location/inventory", location,
         {"sku": [{"ref": "classic-single", "stock": "0", "expires_at": "2026-06-25T00:00:00"}]}),
        ("POST", "/v1/callback", location, {"url": None, "events": {"order": ["create", "update"]}}),
    ]  # fmt: skip
    found = []
    for method, url, token, body in targets:
        found += await fuzz(client, method, url, token, body)
    assert found == []


FILTERS = {
    "/v1/location/orders": ["private_ref", "status", "created_by", "after", "before", "customer_id", "count", "cursor"],
    "/v1/location/customer_lists": ["count", "cursor"],
}


@pytest.mark.parametrize("path", sorted(FILTERS))
async def test_no_hostile_query_filter_is_a_server_error(client: httpx.AsyncClient, shop: Shop, path: str) -> None:
    values = [v for v in HOSTILE if isinstance(v, (str, int)) and not isinstance(v, bool) and len(str(v)) < 10_000]
    for name in FILTERS[path]:
        for value in values:
            response = await client.get(path, params={name: str(value)}, headers=shop.headers())
            assert problem(response) is None, (name, value)


async def test_no_hostile_customer_filter_is_a_server_error(client: httpx.AsyncClient, shop: Shop) -> None:
    headers = shop.headers()
    list_id = (await _json(await client.get("/v1/location/customer_lists", headers=headers)))[0]["id"]
    values = [v for v in HOSTILE if isinstance(v, (str, int)) and not isinstance(v, bool) and len(str(v)) < 10_000]
    for name in ("private_ref", "email", "phone", "search", "count", "cursor"):
        for value in values:
            response = await client.get(
                f"/v1/customer_lists/{list_id}/customers", params={name: str(value)}, headers=headers
            )
            assert problem(response) is None, (name, value)


# Any JSON value, then the fields it goes into: hypothesis looks for a value that breaks one.
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
ORDER_FIELDS: list[Path] = [
    ("ref",), ("private_ref",), ("channel",), ("expected_time",), ("custom_fields",),
    ("items", 0, "product_name"), ("items", 0, "price"), ("items", 0, "quantity"), ("items", 0, "options", 0, "quantity"),
    ("payments", 0, "amount"), ("payments", 0, "info"), ("customer", "email"), ("customer", "birth_date"),
    ("customer", "latitude"), ("discounts", 0, "price_off"), ("charges", 0, "tax_rate"),
]  # fmt: skip


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(ORDER_FIELDS), value=JSON_VALUES)
async def test_no_json_value_in_an_order_field_is_a_server_error(
    client: httpx.AsyncClient, shop: Shop, path: Path, value: Any
) -> None:
    content = json.dumps(replaced(_order(), path, value)).encode()
    headers = shop.headers() | {"Content-Type": "application/json"}
    response = await client.post("/v1/location/orders", content=content, headers=headers)
    assert problem(response) is None, (path, value)
