"""docs/back-office.md "Connections, logs and charts": a connection's page (its scope in words,
what it is bound to, its callback, deliveries and request log with filters and pages) and
the connection lists' empty states (both databases)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from starlette.responses import Response

from comptoir.kit import clock, ids
from comptoir.models import Connection, DeliveryAttempt, OAuthClient, RequestLog
from comptoir.web import connections as connections_pages
from comptoir.web import data as data_views
from comptoir.web.render import templates
from tests.api.callbacks.conftest import subscribe
from tests.api.conftest import Shop
from tests.api.web.test_back_office_connections import connection_of
from tests.api.web.test_back_office_login import log_in
from tests.factories import World
from tests.receiver import Receiver, running_receiver

NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver() as running:
        yield running


async def logged(world: World, connection: Connection, *entries: tuple[str, int]) -> None:
    """Request log rows, oldest first, a minute apart until NOW."""
    async with world.db.transaction() as session:
        for i, (path, status) in enumerate(entries):
            session.add(
                RequestLog(
                    connection_id=connection.id,
                    at=NOW - timedelta(minutes=len(entries) - i),
                    request_id=f"r{i}",
                    method="GET",
                    path=path,
                    status=status,
                    duration_ms=3,
                    request_body="",
                    request_bytes=0,
                    response_body="{}",
                    response_bytes=2,
                )
            )


def attempt(
    connection: Connection, at: datetime, status: int | None, outcome: str, error: str | None = None
) -> DeliveryAttempt:
    return DeliveryAttempt(
        connection_id=connection.id,
        event_id=7,
        attempt=1,
        attempted_at=at,
        duration_ms=12,
        url="https://app.example/hook",
        status_code=status,
        error=error,
        response_excerpt=None,
        outcome=outcome,
    )


def paths(page: str) -> list[str]:
    return re.findall(r"<summary><code>GET ([^<]+)</code>", html.unescape(page))


async def test_the_page_says_what_the_connection_may_do_and_links_what_it_is_bound_to(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    connection = await connection_of(world, shop.location_token)
    await log_in(client, "owner@example.com")
    page = (await client.get(f"/connections/{connection.public_id}")).text
    assert f'<a href="/locations/{shop.location.public_id}">Chez Ada Paris</a> (a location)' in page
    assert "<li>Read and write orders of Chez Ada Paris</li>" in page
    assert "<li>Read and write the catalog Menu, and the stock of Chez Ada Paris</li>" in page
    catalog_id, list_id = (
        ids.encode("catalog", connection.catalog_id),
        ids.encode("customer_list", connection.customer_list_id),
    )  # type: ignore[arg-type]
    assert f'<dt>Catalog</dt><dd><a href="/catalogs/{catalog_id}">Menu</a></dd>' in page
    assert f'<dt>Customer list</dt><dd><a href="/customer-lists/{list_id}">Customers</a></dd>' in page
    connected = templates.filters["when"](connection.created_at, "Europe/Paris")  # a location's connection: its zone
    assert f"<dt>Connected</dt><dd>{connected}</dd>" in page
    assert "<dt>Last used</dt><dd>never</dd>" in page


async def test_the_developer_sees_names_not_links_to_the_owners_pages(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    developer = await world.user(email="dev@example.com")
    connection = await connection_of(world, shop.location_token)
    async with world.db.transaction() as session:
        app = await session.get(OAuthClient, connection.client_id)
        assert app is not None
        app.owner_id = developer.id
    await log_in(client, "dev@example.com")
    page = (await client.get(f"/connections/{connection.public_id}")).text
    assert "<dt>Catalog</dt><dd>Menu</dd>" in page
    assert "Chez Ada Paris (a location)" in page
    assert "/catalogs/" not in page


async def test_the_callback_url_and_events_are_shown(
    client: httpx.AsyncClient, shop: Shop, world: World, receiver: Receiver
) -> None:
    await subscribe(
        client, shop.location_token, {"order": ["create", "update"], "location": ["update"]}, receiver.url("/hook")
    )
    connection = await connection_of(world, shop.location_token)
    await log_in(client, "owner@example.com")
    page = (await client.get(f"/connections/{connection.public_id}")).text
    assert f"<dt>URL</dt><dd><code>{html.escape(receiver.url('/hook'))}</code></dd>" in page
    assert (
        '<dt>Events</dt><dd><ul class="scope-words"><li><code>order.create</code></li><li><code>order.update</code></li>'
        "<li><code>location.update</code></li></ul></dd>"
    ) in page
    assert '<span class="tag tag-ok">Enabled</span>' in page
    assert "No callback delivery yet" in page


async def test_deliveries_show_their_outcome_in_colour_and_per_day(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    clock.freeze(NOW)
    connection = await connection_of(world, shop.location_token)
    async with world.db.transaction() as session:
        session.add(attempt(connection, NOW - timedelta(days=1), 200, "acknowledged"))
        session.add(attempt(connection, NOW - timedelta(days=1, hours=1), 410, "dropped"))
        session.add(attempt(connection, NOW - timedelta(hours=1), None, "retry", "timeout"))
        session.add(attempt(connection, NOW - timedelta(days=40), 200, "acknowledged"))  # outside the chart
    await log_in(client, "owner@example.com")
    page = (await client.get(f"/connections/{connection.public_id}")).text
    assert '<span class="tag tag-ok">200</span> Delivered' in page
    assert '<span class="tag tag-warn">410</span> Failed, given up' in page
    assert '<span class="tag tag-bad">timeout</span> Failed, retried later' in page
    assert (
        '<desc id="deliveries-per-day-desc">1 delivered and 2 failed attempts from 29 Oct to 27 Nov.</desc>'
    ) in page
    assert '<tr><th scope="row">26 Nov</th><td>1</td><td>1</td></tr>' in page
    assert '<tr><th scope="row">27 Nov</th><td>0</td><td>1</td></tr>' in page


async def test_the_request_log_filters_by_status_class_and_path(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    connection = await connection_of(world, shop.location_token)
    await logged(
        world,
        connection,
        ("/v1/location", 200),
        ("/v1/location/orders", 422),
        ("/v1/location/ORDERS?status=new", 404),
        ("/v1/catalogs/x", 500),
        ("/v1/a%b_c", 200),
    )
    await log_in(client, "owner@example.com")
    base = f"/connections/{connection.public_id}"
    assert paths((await client.get(base)).text) == [
        "/v1/a%b_c", "/v1/catalogs/x", "/v1/location/ORDERS?status=new", "/v1/location/orders", "/v1/location",
    ]  # fmt: skip
    four = (await client.get(base, params={"status": "4xx"})).text
    assert paths(four) == ["/v1/location/ORDERS?status=new", "/v1/location/orders"]
    assert '<option value="4xx" selected>4xx</option>' in four
    assert '<span class="tag tag-warn">422</span>' in four
    assert paths((await client.get(base, params={"status": "5xx"})).text) == ["/v1/catalogs/x"]
    assert paths((await client.get(base, params={"path": "orders"})).text) == [
        "/v1/location/ORDERS?status=new", "/v1/location/orders",
    ]  # fmt: skip  # case aside
    assert paths((await client.get(base, params={"path": "%b_"})).text) == ["/v1/a%b_c"]  # % and _ as written
    assert paths((await client.get(base, params={"path": "orders", "status": "2xx"})).text) == []
    none = (await client.get(base, params={"path": "nothing"})).text
    assert "No request matches these filters in the last 7 days." in none
    assert f'<a href="{base}#requests">Show every request</a>' in none


async def test_pages_of_the_log_keep_their_filters(
    client: httpx.AsyncClient, shop: Shop, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(data_views, "PAGE_SIZE", 2)
    connection = await connection_of(world, shop.location_token)
    await logged(world, connection, *((f"/v1/orders/{i}", 404) for i in range(3)), ("/v1/location", 200))
    await log_in(client, "owner@example.com")
    base = f"/connections/{connection.public_id}"
    first = (await client.get(base, params={"status": "4xx"})).text
    assert paths(first) == ["/v1/orders/2", "/v1/orders/1"]
    link = re.search(r'href="(\?status=4xx&amp;cursor=[^"]+)#requests">Older requests', first)
    assert link is not None
    second = (await client.get(base + html.unescape(link.group(1)))).text
    assert paths(second) == ["/v1/orders/0"]
    assert "Older requests" not in second


async def test_empty_states_say_what_to_do_next(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    connection = await connection_of(world, shop.location_token)
    await log_in(client, "owner@example.com")
    page = (await client.get(f"/connections/{connection.public_id}")).text
    assert "No request in the last 7 days." in page
    assert "No callback registered: the application is told of nothing." in page
    assert "No callback delivery: the application has no callback URL." in page
    empty = (await client.get(f"/locations/{shop.other_location.public_id}/connections")).text
    assert "No application is connected to this location yet." in empty
    assert (
        "<code>/oauth2/v1/authorize?client_id=…&amp;redirect_uri=…&amp;scope=location[orders.read]&amp;state=…</code>"
        in empty
    )
    assert '<a href="/developers">Developers</a>' in empty


async def test_the_lists_keep_connected_last_used_and_status_as_labelled_cells(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    connection = await connection_of(world, shop.account_token)
    await log_in(client, "owner@example.com")
    page = (await client.get(f"/accounts/{shop.account.public_id}/connections")).text
    assert '<table class="cards connections">' in page
    connected = templates.filters["when"](connection.created_at, "UTC")  # the user's
    assert f'<td data-label="Connected">{connected}</td>' in page
    assert '<td data-label="Last used">never</td>' in page
    assert '<td data-label="Status"><span class="tag tag-ok">Active</span></td>' in page


async def test_a_location_connection_shows_the_locations_zone_an_account_connection_the_users(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")  # a user in UTC, a location in Paris
    for token, zone in ((shop.location_token, "Europe/Paris"), (shop.account_token, "UTC")):
        connection = await connection_of(world, token)
        page = (await client.get(f"/connections/{connection.public_id}")).text
        connected = templates.filters["when"](connection.created_at, zone)
        assert f"<dt>Connected</dt><dd>{connected}</dd>" in page


async def test_the_pages_ancestors_are_links(
    client: httpx.AsyncClient, shop: Shop, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[tuple[str, list[tuple[str, str]]]] = []
    real = connections_pages.page

    def page(template: str, status: int = 200, **context: Any) -> Response:
        asked.append((context["title"], context["crumbs"]))
        return real(template, status, **context)

    monkeypatch.setattr(connections_pages, "page", page)
    connection = await connection_of(world, shop.location_token)
    account_connection = await connection_of(world, shop.account_token)
    await log_in(client, "owner@example.com")
    for url in (
        f"/locations/{shop.location.public_id}/connections",
        f"/accounts/{shop.account.public_id}/connections",
        f"/connections/{connection.public_id}",
        f"/connections/{account_connection.public_id}",
    ):
        assert (await client.get(url)).status_code == 200
    account, location = f"/accounts/{shop.account.public_id}", f"/locations/{shop.location.public_id}"
    home = [("Your Comptoir", "/"), ("Chez Ada", account)]
    assert asked == [
        ("Connections of Chez Ada Paris", [*home, ("Chez Ada Paris", location)]),
        ("Connections of Chez Ada", home),
        (
            "Test app · Chez Ada Paris",
            [*home, ("Chez Ada Paris", location), ("Connections", f"{location}/connections")],
        ),
        ("Test app · Chez Ada", [*home, ("Connections", f"{account}/connections")]),
    ]
