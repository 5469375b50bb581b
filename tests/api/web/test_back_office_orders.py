"""docs/back-office.md "Orders": a location's orders list and an order's page, as the API reads
them (statuses in words, quantities as people write them, times in the location's zone)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import update

from comptoir.kit import clock
from comptoir.models import Order
from comptoir.web import data
from comptoir.web.render import templates
from tests.api.conftest import Shop
from tests.api.orders.conftest import ORDER
from tests.api.web.test_back_office_data import T0, order_ids, orders_url, placed_at, shown
from tests.api.web.test_back_office_login import log_in
from tests.factories import World

PARIS = "Europe/Paris"


def when(at: datetime | str, timezone: str = PARIS) -> str:
    """A time as every page writes it (the `when` filter)."""
    return str(templates.filters["when"](at, timezone))


@pytest.fixture
async def two_orders(client: httpx.AsyncClient, shop: Shop) -> list[dict[str, Any]]:
    """ORDER (new, a guest Ann Smith, 32.70 EUR) at 12:00 in Paris, an accepted one at 13:00."""
    first = await placed_at(client, shop, T0, ORDER)
    second = await placed_at(client, shop, T0 + timedelta(hours=1), {"status": "accepted"})
    await log_in(client, "owner@example.com")
    return [first, second]


async def test_the_orders_are_listed_newest_first(
    client: httpx.AsyncClient, shop: Shop, two_orders: list[dict[str, Any]]
) -> None:
    page = await shown(client, orders_url(shop))
    assert "<title>Orders · Chez Ada Paris · Comptoir</title>" in page
    assert order_ids(page) == [two_orders[1]["id"], two_orders[0]["id"]]
    first = two_orders[0]["id"]
    assert (
        f'<tr> <td data-label="Time">{when(T0)}</td> <td data-label="Order"><a href="{orders_url(shop)}/{first}">'
        f'{first}</a> <span class="muted">W-1001</span></td> <td data-label="Status"><span class="tag tag-warn">New'
        '</span></td> <td data-label="Customer">Ann Smith <a href="tel:+33612345678">+33612345678</a></td>'
        ' <td data-label="Channel" class="secondary-col">Website <span class="muted">by Test app</span></td>'
        ' <td data-label="Total" class="num">32.70 EUR</td> </tr>'
    ) in page
    assert '<span class="tag tag-info">Accepted</span>' in page
    assert '<td data-label="Total" class="num">0.00 EUR</td>' in page  # the accepted order, without items
    assert '<table class="cards">' in page  # one card per order on a phone


async def test_an_order_stored_without_its_view_is_listed_the_same(
    client: httpx.AsyncClient, shop: Shop, two_orders: list[dict[str, Any]], world: World
) -> None:
    before = await shown(client, orders_url(shop))
    async with world.db.transaction() as session:  # as orders written before views were kept
        await session.execute(update(Order).values(view=None))
    assert await shown(client, orders_url(shop)) == before


async def test_the_orders_are_filtered_by_status(
    client: httpx.AsyncClient, shop: Shop, two_orders: list[dict[str, Any]]
) -> None:
    page = await shown(client, orders_url(shop) + "?status=accepted&from=&to=")
    assert order_ids(page) == [two_orders[1]["id"]]
    assert '<option value="accepted" selected>Accepted</option>' in page
    assert '<option value="in_preparation">In preparation</option>' in page


async def test_the_orders_are_filtered_by_dates_in_the_locations_timezone(
    client: httpx.AsyncClient, shop: Shop
) -> None:
    late = await placed_at(client, shop, datetime(2026, 6, 23, 21, 30, tzinfo=UTC), {"status": "new"})  # 23:30
    early = await placed_at(client, shop, datetime(2026, 6, 23, 22, 30, tzinfo=UTC), {"status": "new"})  # 00:30
    await log_in(client, "owner@example.com")
    assert order_ids(await shown(client, orders_url(shop) + "?from=2026-06-24&to=2026-06-24")) == [early["id"]]
    assert order_ids(await shown(client, orders_url(shop) + "?to=2026-06-23")) == [late["id"]]
    assert order_ids(await shown(client, orders_url(shop) + "?from=2026-06-23")) == [early["id"], late["id"]]


async def test_the_next_link_keeps_the_filters(
    client: httpx.AsyncClient, shop: Shop, two_orders: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(data, "PAGE_SIZE", 1)
    await placed_at(client, shop, T0 + timedelta(hours=2), {"status": "new"})
    page = await shown(client, orders_url(shop) + "?status=new")
    found = re.search(r'<a href="\?status=new&amp;cursor=([\w-]+)">Next</a>', page)
    assert found is not None, page
    after = await shown(client, orders_url(shop) + f"?status=new&cursor={found.group(1)}")
    assert order_ids(after) == [two_orders[0]["id"]]
    assert ">Next</a>" not in after


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("from=2026-13-01", "From: &#39;2026-13-01&#39; is not a valid date (expected YYYY-MM-DD)"),
        ("to=yesterday", "To: &#39;yesterday&#39; is not a valid date (expected YYYY-MM-DD)"),
        ("from=2026-06-25&to=2026-06-24", "From: must not be after To"),
        ("status=lost", "Status: &#39;lost&#39; is not an order status"),
        ("cursor=nonsense", "Next: this link is broken or out of date; start again from the first page"),
    ],
)
async def test_a_bad_filter_is_a_400_page(client: httpx.AsyncClient, shop: Shop, query: str, message: str) -> None:
    await log_in(client, "owner@example.com")
    page = await shown(client, f"{orders_url(shop)}?{query}", 400)
    assert message in page
    assert "No orders yet" not in page


async def test_no_orders_yet_says_how_to_send_a_test_order(client: httpx.AsyncClient, shop: Shop) -> None:
    await log_in(client, "owner@example.com")
    page = await shown(client, orders_url(shop))
    assert "<strong>No orders yet.</strong>" in page
    assert f"curl -X POST http://testserver/v1/locations/{shop.location.public_id}/orders" in page
    assert '<a href="/docs">/docs</a>' in page


async def test_no_order_matching_the_filters_offers_every_order(client: httpx.AsyncClient, shop: Shop) -> None:
    await log_in(client, "owner@example.com")
    page = await shown(client, orders_url(shop) + "?status=completed")
    assert f'No order matches these filters. <a href="{orders_url(shop)}">Show every order</a>.' in page
    assert "curl" not in page


async def test_the_order_page_shows_items_customer_delivery_and_history(client: httpx.AsyncClient, shop: Shop) -> None:
    order = await placed_at(client, shop, T0, ORDER)
    own = f"/v1/location/orders/{order['id']}"
    clock.freeze(T0 + timedelta(minutes=5))
    assert (await client.patch(own, json={"status": "accepted"}, headers=shop.headers())).status_code == 200
    quote = {"carrier": "Zoom", "fee": "4.50 EUR", "estimated_pickup_at": "2026-06-24T12:30:00"}
    assert (await client.post(own + "/delivery_quotes", json=quote, headers=shop.headers())).status_code == 200
    clock.freeze(T0 + timedelta(minutes=10))
    delivery = {"carrier": "Zoom", "status": "pickup_enroute", "driver_name": "Max", "driver_phone": "+33600000000"}
    assert (await client.post(own + "/delivery", json=delivery, headers=shop.headers())).status_code == 200
    clock.reset()
    await log_in(client, "owner@example.com")
    page = await shown(client, f"{orders_url(shop)}/{order['id']}")
    assert f"<title>Order {order['id']} · Comptoir</title>" in page
    for expected in (
        '<tr><th>Status</th><td><span class="tag tag-info">Accepted</span></td></tr>',
        'Margherita · Large <span class="muted">MAR-L</span> <br><span class="muted">10.50 EUR each</span> '
        '<span class="tag">Pizza menu: Pizza</span>',
        '<br><span class="muted">2 × Mozzarella (Extras) 1.25 EUR</span>',
        '<br><span class="muted">1 × Basil (Extras)</span>',
        '<br><span class="muted">without Oregano (Remove) 0.10 EUR</span>',
        '<td class="num">2</td> <td class="num">26.20 EUR</td>',
        'Delivery fee <span class="muted">delivery</span></td><td></td><td class="num">3.00 EUR</td>',
        'Summer <span class="muted">discount</span></td><td></td><td class="num">−4.00 EUR</td>',
        '<tr><th>Total</th><td></td><th class="num">32.70 EUR</th></tr>',
        '<td class="num">32.30 EUR</td>',  # the payment
        '<p>Ann Smith <span class="muted">guest</span></p>',
        "<tr><th>Email</th><td>ann@example.com</td></tr>",
        '<tr><th>Status</th><td><span class="tag">Pickup enroute</span></td></tr>',
        "<tr><th>Driver</th><td>Max, +33600000000</td></tr>",
        f"<tr><th>Assigned</th><td>{when(T0 + timedelta(minutes=10))}</td></tr>",
        f'<td>Zoom</td><td class="num">4.50 EUR</td><td>{when("2026-06-24T12:30:00+02:00")}</td>',
        f"<tr><th>Expected time</th><td>{when('2026-06-24T19:30:00+02:00')}</td></tr>",
    ):
        assert expected in page, expected
    history = re.findall(
        r'<tr><td data-label="Time">([^<]+)</td><td data-label="What happened">([^<]+)</td>'
        r'<td data-label="Changed">([^<]*)</td><td data-label="Event sent" class="secondary-col"><code class="event">([\w.]+)</code>',
        page,
    )
    assert history == [
        (when(T0), "Created by Test app", "Status New", "order.create"),
        (when(T0 + timedelta(minutes=5)), "Accepted by Test app", "New → Accepted", "order.update"),
        (when(T0 + timedelta(minutes=5)), "Delivery quotes changed by Test app", "", "order.update"),
        (when(T0 + timedelta(minutes=10)), "Delivery booked by Test app", "Status Pickup enroute", "delivery.create"),
        (when(T0 + timedelta(minutes=10)), "Delivery changed by Test app", "", "order.update"),
    ]
    buttons = re.findall(r'<button type="submit" name="status" value="(\w+)"[^>]*>([^<]+)</button>', page)
    assert buttons == [("in_preparation", "Start preparing"), ("cancelled", "Cancel order…")]
