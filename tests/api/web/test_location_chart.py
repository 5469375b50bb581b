"""docs/back-office.md "Connections, logs and charts": a location's orders and revenue per
local day over the last 30 days, on its page (both databases)."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import httpx

from comptoir.db.days import day_starts
from comptoir.kit import clock
from comptoir.orders.figures import Day, daily_figures
from tests.api.conftest import Shop
from tests.api.orders.conftest import create
from tests.api.web.test_back_office_login import log_in
from tests.factories import World

NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)  # 13:00 in Paris (UTC+1)


def item(price: str) -> dict[str, object]:
    return {"product_name": "Tea", "price": f"{price} EUR", "quantity": 1}


async def place(client: httpx.AsyncClient, shop: Shop, at: datetime, status: str, price: str) -> None:
    clock.freeze(at)
    answer = await create(client, shop, {"status": status, "items": [item(price)]})
    assert answer.status_code == 200, answer.text


async def place_around_midnight(client: httpx.AsyncClient, shop: Shop) -> None:
    """Paris, UTC+1: two orders on the same UTC day fall on two local days."""
    await place(client, shop, datetime(2026, 11, 25, 22, 30, tzinfo=UTC), "completed", "10.10")  # 25 Nov, 23:30
    await place(client, shop, datetime(2026, 11, 25, 23, 30, tzinfo=UTC), "completed", "2.25")  # 26 Nov, 00:30
    await place(client, shop, datetime(2026, 11, 26, 8, 0, tzinfo=UTC), "rejected", "99.00")  # 26 Nov
    await place(client, shop, datetime(2026, 11, 27, 11, 0, tzinfo=UTC), "cancelled", "5.00")  # today
    await place(client, shop, datetime(2026, 11, 27, 11, 30, tzinfo=UTC), "delivery_failed", "0.3")  # today
    await place(client, shop, datetime(2026, 10, 28, 22, 59, tzinfo=UTC), "completed", "7.00")  # 28 Oct: 31 days ago
    clock.freeze(NOW)


def test_local_days_start_at_local_midnight_through_a_change_of_time() -> None:
    # Paris leaves summer time on 25 Oct 2026: that day lasts 25 hours
    assert day_starts("Europe/Paris", date(2026, 10, 26), 2) == [
        datetime(2026, 10, 24, 22, 0, tzinfo=UTC),
        datetime(2026, 10, 25, 23, 0, tzinfo=UTC),
        datetime(2026, 10, 26, 23, 0, tzinfo=UTC),
    ]


async def test_orders_are_counted_on_their_local_day_and_revenue_leaves_out_rejected_and_cancelled(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await place_around_midnight(client, shop)
    async with world.db.transaction(write=False) as session:
        days = await daily_figures(session, await world.location_row(shop.location))
    assert len(days) == 30
    assert (days[0].day, days[-1].day) == (date(2026, 10, 29), date(2026, 11, 27))
    assert days[-3:] == [
        Day(date(2026, 11, 25), 1, Decimal("10.10")),
        Day(date(2026, 11, 26), 2, Decimal("2.25")),
        Day(date(2026, 11, 27), 2, Decimal("0.3")),
    ]
    assert sum(d.orders for d in days) == 5
    assert all(d == Day(d.day, 0, Decimal(0)) for d in days[:-3])


async def test_another_locations_orders_are_not_counted(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    clock.freeze(NOW - timedelta(hours=1))
    path = f"/v1/locations/{shop.other_location.public_id}/orders"
    answer = await create(client, shop, {"status": "new", "items": [item("4.00")]}, shop.account_token, path)
    assert answer.status_code == 200
    clock.freeze(NOW)
    async with world.db.transaction(write=False) as session:
        days = await daily_figures(session, await world.location_row(shop.location))
    assert sum(d.orders for d in days) == 0


async def test_the_location_page_shows_both_charts_with_every_figure(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await place_around_midnight(client, shop)
    await log_in(client, "owner@example.com")
    page = (await client.get(f"/locations/{shop.location.public_id}")).text
    assert '<h2 id="figures-heading">Last 30 days</h2>' in page
    assert "Days in Europe/Paris. Revenue leaves out rejected and cancelled orders." in page
    assert '<title id="orders-per-day-title">Orders per day, last 30 days</title>' in page
    assert '<desc id="orders-per-day-desc">5 orders from 29 Oct to 27 Nov; the most on 26 Nov: 2.</desc>' in page
    assert '<title id="revenue-per-day-title">Revenue per day (EUR), last 30 days</title>' in page
    assert (
        '<desc id="revenue-per-day-desc">12.65 EUR from 29 Oct to 27 Nov; the most on 25 Nov: 10.10 EUR.</desc>'
    ) in page
    assert '<tr><th scope="row">26 Nov</th><td>2</td></tr>' in page  # orders
    assert '<tr><th scope="row">26 Nov</th><td>2.25</td></tr>' in page  # revenue
    assert '<tr><th scope="row">27 Nov</th><td>0.30</td></tr>' in page
    assert '<p class="headline" id="today-figures"><strong>Today: 2 orders, 0.30 EUR</strong></p>' in page
    assert "<p>5 orders, 12.65 EUR.</p>" in page
    assert "<summary>Every day's figures</summary>" in page  # the table, shown on demand
    # written on the charts: the highest day and today
    assert re.findall(r'<text x="[\d.]+" y="[\d.]+" text-anchor="(?:middle|end)">([^<]+)</text>\n', notes(page)) == [
        "2", "2", "10.10", "0.30",
    ]  # fmt: skip
    # the orders' axis tops at 2: bars of 1 are half as tall
    assert "<title>26 Nov, Orders: 2</title>" in page
    assert "<script" not in page


def notes(page: str) -> str:
    return "".join(re.findall(r'<g class="chart-notes" aria-hidden="true">\n(.*?)</g>', page, re.S))


async def test_without_orders_the_page_says_where_they_come_from(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    clock.freeze(NOW)
    await log_in(client, "owner@example.com")
    page = (await client.get(f"/locations/{shop.location.public_id}")).text
    assert "No order in the last 30 days." in page
    assert f'<a href="/locations/{shop.location.public_id}/connections">connections</a>' in page
    assert "<svg" not in page
