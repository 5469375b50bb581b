"""spec 2.5, 3.1, 4.1 and docs/api/orders.md "Creating an order": creating and reading an order."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from comptoir.kit import clock
from tests.api.conftest import Shop
from tests.api.orders.conftest import ORDER_TOTAL, create, created, order
from tests.factories import World


async def test_a_full_order_reads_back_every_field(client: httpx.AsyncClient, shop: Shop) -> None:
    clock.freeze(datetime(2026, 6, 24, 15, 7, 53, tzinfo=UTC))
    read = await created(client, shop, order())
    ids = [read["items"][0]["id"], read["items"][1]["id"], read["discounts"][0]["id"], read["charges"][0]["id"]]
    ids.append(read["payments"][0]["id"])
    assert len(set(ids)) == 5
    assert all(len(i) == 6 for i in ids)
    assert read == {
        "id": read["id"],
        "location_id": shop.location.public_id,
        "created_at": "2026-06-24T17:07:53+02:00",
        "created_by": "Test app",
        "connection_name": None,
        "channel": "Website",
        "ref": "W-1001",
        "private_ref": "pos-1001",
        "status": "new",
        "service_type": "delivery",
        "service_type_ref": "home",
        "expected_time": "2026-06-24T19:30:00+02:00",
        "expected_time_pickup": False,
        "asap": False,
        "confirmed_time": None,
        "driver_pickup_url": None,
        "customer_notes": "Ring twice",
        "seller_notes": None,
        "collection_code": "XK2",
        "coupon_codes": ["SUMMER"],
        "total": ORDER_TOTAL,
        "total_discrepancy": "0.00 EUR",
        "payment_discrepancy": "0.00 EUR",
        "items": [
            {
                "id": ids[0], "private_ref": "line-1", "deleted": False, "product_name": "Margherita",
                "sku_name": "Large", "sku_ref": "MAR-L", "price": "10.50 EUR", "quantity": "2.0",
                "subtotal": "26.20 EUR", "tax_rate": None, "subset": None, "customer_notes": None,
                "points_earned": None, "points_used": None,
                "options": [
                    {"option_list_name": "Extras", "name": "Mozzarella", "ref": "MOZ", "price": "1.25 EUR",
                     "quantity": 2, "removed": False},
                    {"option_list_name": "Extras", "name": "Basil", "ref": None, "price": None, "quantity": 1,
                     "removed": False},
                    {"option_list_name": "Remove", "name": "Oregano", "ref": None, "price": "0.10 EUR", "quantity": 1,
                     "removed": True},
                ],
                "deal_line": {"deal_key": "0", "label": "Pizza", "position": 0, "pricing_effect": None,
                              "pricing_value": None},
            },
            {
                "id": ids[1], "private_ref": None, "deleted": False, "product_name": "Cola", "sku_name": None,
                "sku_ref": None, "price": "2.50 EUR", "quantity": "3.0", "subtotal": "7.50 EUR", "tax_rate": "5.5",
                "subset": None, "customer_notes": None, "points_earned": None, "points_used": None, "options": [],
                "deal_line": None,
            },
        ],
        "discounts": [
            {"id": ids[2], "private_ref": None, "deleted": False, "name": "Summer", "ref": "SUMMER",
             "price_off": "4.00 EUR", "pricing_effect": None, "pricing_value": None},
        ],
        "charges": [
            {"id": ids[3], "private_ref": None, "deleted": False, "type": "delivery", "name": "Delivery fee",
             "ref": None, "price": "3.00 EUR", "tax_rate": "20.0", "charge_type": "delivery", "charge_ref": None,
             "charge_price": "3.00 EUR"},
        ],
        "payments": [
            {"id": ids[4], "private_ref": None, "deleted": False, "type": "online", "name": "Card", "ref": "pay-1",
             "amount": "32.30 EUR", "info": {"psp": "x"}},
        ],
        "deals": {"0": {"name": "Pizza menu", "ref": "DEAL-1"}},
        "customer_id": None,
        "customer_list_id": None,
        "customer": {
            "id": None, "customer_list_id": None, "private_ref": None, "email": "ann@example.com",
            "first_name": "Ann", "last_name": "Smith", "gender": None, "birth_date": None, "company_name": None,
            "phone": "+33612345678", "phone_access_code": None, "address_1": None, "address_2": None,
            "postal_code": None, "city": None, "state": None, "country": None, "latitude": None, "longitude": None,
            "delivery_notes": None, "sms_marketing": False, "email_marketing": False,
            # a guest has no read-only fields: null or empty
            "custom_fields": {}, "anonymised": None, "created_at": None, "nb_orders": None,
            "order_total": None, "first_order_date": None, "last_order_date": None, "loyalty_cards": [],
        },
        "loyalty_operations": [],
        "custom_fields": {"table": 12},
        "delivery": None,
    }  # fmt: skip
    response = await client.get(f"/v1/location/orders/{read['id']}", headers=shop.headers())
    assert response.status_code == 200
    assert response.json() == read
    by_id = await client.get(f"/v1/locations/{shop.location.public_id}/orders/{read['id']}", headers=shop.headers())
    assert by_id.json() == read


async def test_only_status_is_required(client: httpx.AsyncClient, shop: Shop) -> None:
    read = await created(client, shop, {"status": "accepted"})
    assert read["channel"] == "Test app"  # defaults to the client's name
    assert read["asap"] is True  # no expected_time
    assert (read["items"], read["deals"], read["customer"], read["total"]) == ([], {}, None, "0.00 EUR")
    assert (read["private_ref"], read["service_type"], read["coupon_codes"]) == (None, None, [])


async def test_asap_defaults_and_can_be_given(client: httpx.AsyncClient, shop: Shop) -> None:
    timed = {"status": "new", "expected_time": "2026-06-24T19:30:00+02:00"}
    assert (await created(client, shop, timed))["asap"] is False
    assert (await created(client, shop, {**timed, "asap": True}))["asap"] is True
    assert (await created(client, shop, {"status": "new", "asap": False}))["asap"] is False


async def test_a_time_without_offset_is_read_in_the_locations_timezone(client: httpx.AsyncClient, shop: Shop) -> None:
    read = await created(client, shop, {"status": "new", "expected_time": "2026-01-10T12:00:00"})
    assert read["expected_time"] == "2026-01-10T12:00:00+01:00"


async def test_connection_name_is_the_connections_name(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    token = await world.token("location[orders.write]", location=shop.location, name="till-2")
    assert (await created(client, shop, {"status": "new"}, token))["connection_name"] == "till-2"


async def test_charge_and_payment_types_have_defaults(client: httpx.AsyncClient, shop: Shop) -> None:
    body = {"status": "new", "charges": [{"name": "Bag", "price": "0.10 EUR"}], "payments": [{"amount": "0.10 EUR"}]}
    read = await created(client, shop, body)
    assert (read["charges"][0]["type"], read["payments"][0]["type"]) == ("other", "online")


async def test_an_account_token_creates_in_any_location_of_its_account(client: httpx.AsyncClient, shop: Shop) -> None:
    path = f"/v1/locations/{shop.other_location.public_id}/orders"
    response = await create(client, shop, {"status": "new"}, shop.account_token, path)
    assert response.status_code == 200
    assert response.json()["location_id"] == shop.other_location.public_id


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"status": None}, "status", "is required"),  # docs/api/conventions.md "Null fields"
        ({"status": "open"}, "status", "must be 'new', 'received', 'accepted', 'in_preparation', 'awaiting_shipment', "
         "'awaiting_collection', 'in_delivery', 'completed', 'rejected', 'cancelled' or 'delivery_failed'"),
        ({"items": [{"product_name": "X", "price": "1 USD", "quantity": 1}]}, "items[0].price",
         "must be in EUR, the account's currency (not USD)"),
        ({"items": [{"product_name": "X", "price": "1 EUR", "quantity": 1,
                     "options": [{"name": "O", "price": "1 GBP"}]}]}, "items[0].options[0].price",
         "must be in EUR, the account's currency (not GBP)"),
        ({"charges": [{"name": "C", "price": "1 USD"}]}, "charges[0].price", "must be in EUR, the account's currency (not USD)"),
        ({"discounts": [{"name": "D", "price_off": "1 USD"}]}, "discounts[0].price_off",
         "must be in EUR, the account's currency (not USD)"),
        ({"payments": [{"amount": "1 USD"}]}, "payments[0].amount", "must be in EUR, the account's currency (not USD)"),
        ({"items": [{"product_name": "X", "price": "1 EUR", "quantity": 1, "deal_line": {"deal_key": "nope"}}]},
         "items[0].deal_line.deal_key", "'nope' is not a key of deals"),
        ({"items": [{"price": "1 EUR", "quantity": 1}]}, "items[0].product_name", "is required"),
        ({"items": [{"product_name": "X", "price": "-1 EUR", "quantity": 1}]}, "items[0].price",
         "'-1 EUR' is not a valid monetary amount (expected e.g. \"12.50 EUR\")"),
        # a value is shown as it was sent: a JSON number by its text, an object as an object
        ({"items": [{"product_name": "X", "price": 7.5, "quantity": 1}]}, "items[0].price",
         "7.5 is not a valid monetary amount (expected e.g. \"12.50 EUR\")"),
        ({"items": [{"product_name": "X", "price": {"amount": "7.5"}, "quantity": 1}]}, "items[0].price",
         "an object is not a valid monetary amount (expected e.g. \"12.50 EUR\")"),
        ({"items": [{"product_name": "X", "price": ["7.5 EUR"], "quantity": 1}]}, "items[0].price",
         "an array is not a valid monetary amount (expected e.g. \"12.50 EUR\")"),
        ({"items": [{"product_name": "X", "price": "7.555 EUR", "quantity": 1}]}, "items[0].price",
         "'7.555 EUR' is not a valid monetary amount (expected e.g. \"12.50 EUR\")"),
        ({"items": [{"product_name": "X", "price": "7.5 XYZ", "quantity": 1}]}, "items[0].price",
         "'7.5 XYZ' does not name an ISO 4217 currency"),
        ({"charges": [{"type": "fee", "name": "C", "price": "1 EUR"}]}, "charges[0].type",
         "must be 'delivery', 'payment_fee', 'tip', 'tax' or 'other'"),
        ({"service_type": "takeaway"}, "service_type", "must be 'delivery', 'collection' or 'eat_in'"),
        ({"service_type": "collection", "expected_time_pickup": True}, "expected_time_pickup",
         "is only for delivery orders (service_type delivery)"),
        ({"service_type": "eat_in", "driver_pickup_url": "https://x.example"}, "driver_pickup_url",
         "is only for delivery orders (service_type delivery)"),
        ({"expected_time": "tomorrow"}, "expected_time",
         "'tomorrow' is not a valid ISO 8601 time (expected e.g. \"2026-06-24T17:07:53+02:00\")"),
        ({"custom_fields": {"x": "y" * 9000}}, "custom_fields", "must not exceed 8192 bytes as JSON (it is 9008 bytes)"),
        ({"private_ref": "r" * 256}, "private_ref", "must be at most 255 characters (it has 256)"),
        ({"items": [{"product_name": "X", "price": "1 EUR", "quantity": "0"}]}, "items[0].quantity",
         "must be greater than 0"),
        ({"items": [{"product_name": "X", "price": "1 EUR", "quantity": -2}]}, "items[0].quantity",
         "must be greater than 0"),
    ],
)  # fmt: skip
async def test_invalid_orders_are_refused_and_nothing_changes(
    client: httpx.AsyncClient, shop: Shop, world: World, changes: dict[str, Any], field: str, message: str
) -> None:
    before = await world.snapshot()
    response = await create(client, shop, order(**changes))
    assert response.status_code == 422, response.text
    assert [e for e in response.json()["errors"] if e["field"] == field] == [{"field": field, "message": message}]
    assert await world.snapshot() == before


async def test_a_missing_status_is_422(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    before = await world.snapshot()
    response = await create(client, shop, {"items": []})
    assert response.json()["errors"] == [{"field": "status", "message": "is required"}]
    assert await world.snapshot() == before


async def test_access_needs_orders_write_and_reach(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    reader = await world.token("location[orders.read]", location=shop.location)
    elsewhere = await world.location(name="Elsewhere")
    before = await world.snapshot()
    assert (await create(client, shop, {"status": "new"}, reader)).status_code == 403
    path = f"/v1/locations/{elsewhere.public_id}/orders"
    assert (await create(client, shop, {"status": "new"}, shop.account_token, path)).status_code == 404
    assert (await create(client, shop, {"status": "new"}, shop.account_token)).status_code == 403  # /location form
    assert await world.snapshot() == before


async def test_an_order_of_another_location_is_404(client: httpx.AsyncClient, shop: Shop) -> None:
    path = f"/v1/locations/{shop.other_location.public_id}/orders"
    other = (await create(client, shop, {"status": "new"}, shop.account_token, path)).json()
    response = await client.get(f"/v1/location/orders/{other['id']}", headers=shop.headers())
    assert response.status_code == 404
    assert response.json() == {"error_type": "not_found", "message": f"No order with id {other['id']!r}"}


async def test_another_client_reads_null_private_refs(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    read = await created(client, shop, order())
    other = await world.token("location[orders.read]", location=shop.location, client=await world.client("Other"))
    seen = (await client.get(f"/v1/location/orders/{read['id']}", headers={"X-Access-Token": other})).json()
    assert seen["private_ref"] is None
    assert seen["items"][0]["private_ref"] is None


async def test_an_order_stored_without_its_view_reads_the_same(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    # orders written before migration 0007 have no stored view: they are rendered on read
    from sqlalchemy import update

    from comptoir.models import Order

    read = await created(client, shop, order())
    listed = (await client.get("/v1/location/orders", headers=shop.headers())).json()
    async with world.db.transaction() as session:
        await session.execute(update(Order).values(view=None))
    assert (await client.get(f"/v1/location/orders/{read['id']}", headers=shop.headers())).json() == read
    assert (await client.get("/v1/location/orders", headers=shop.headers())).json() == listed
