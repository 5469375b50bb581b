"""docs/back-office.md "Connections, logs and charts": a connection's delivery log, every
callback delivery attempt newest first, a page at a time, filtered by outcome; the
connection's page shows the latest and links to it."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import httpx
import pytest

from comptoir.web import connections as connections_pages
from comptoir.web import data as data_views
from tests.api.conftest import Shop
from tests.api.web.test_back_office_connection_page import NOW, attempt
from tests.api.web.test_back_office_connections import connection_of
from tests.api.web.test_back_office_login import log_in
from tests.factories import World


def outcomes(page: str) -> list[str]:
    """The outcome words of each attempt listed, in order."""
    return re.findall(r'</span> (Delivered|Failed, retried later|Failed, given up) <span class="muted">', page)


async def _five(world: World, shop: Shop) -> str:
    """Five attempts a minute apart, oldest first: delivered, given up, retried, delivered,
    given up; the connection's public id."""
    connection = await connection_of(world, shop.location_token)
    sent = [(200, "acknowledged"), (410, "dropped"), (503, "retry"), (204, "acknowledged"), (400, "dropped")]
    async with world.db.transaction() as session:
        for i, (status, outcome) in enumerate(sent):
            session.add(attempt(connection, NOW - timedelta(minutes=5 - i), status, outcome))
    return connection.public_id


async def test_the_log_lists_every_attempt_newest_first(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    connection = await _five(world, shop)
    await log_in(client, "owner@example.com")
    page = await client.get(f"/connections/{connection}/deliveries")
    assert page.status_code == 200
    assert "<title>Callback deliveries · Test app · Comptoir</title>" in page.text
    assert outcomes(page.text) == [
        "Failed, given up", "Delivered", "Failed, retried later", "Failed, given up", "Delivered",
    ]  # fmt: skip
    assert '<span class="tag tag-warn">400</span>' in page.text
    assert '<span class="tag tag-bad">503</span>' in page.text
    crumbs = re.search(r'<ol class="crumbs">(.*?)</ol>', page.text, re.S)
    assert crumbs is not None
    assert f'<a href="/connections/{connection}">' in crumbs.group(1)  # the connection is an ancestor


async def test_the_log_filters_by_outcome(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    connection = await _five(world, shop)
    await log_in(client, "owner@example.com")
    page = (await client.get(f"/connections/{connection}/deliveries", params={"outcome": "dropped"})).text
    assert outcomes(page) == ["Failed, given up", "Failed, given up"]
    assert '<option value="dropped" selected>Failed, given up</option>' in page
    none = (await client.get(f"/connections/{connection}/deliveries", params={"outcome": "retry"})).text
    assert outcomes(none) == ["Failed, retried later"]


async def test_pages_of_the_log_keep_their_filter(
    client: httpx.AsyncClient, shop: Shop, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(data_views, "PAGE_SIZE", 1)
    connection = await _five(world, shop)
    await log_in(client, "owner@example.com")
    base = f"/connections/{connection}/deliveries"
    first = (await client.get(base, params={"outcome": "acknowledged"})).text
    assert outcomes(first) == ["Delivered"]
    link = re.search(r'<a href="(\?outcome=acknowledged&amp;cursor=[^"]+)">Older deliveries</a>', first)
    assert link is not None, first
    second = (await client.get(base + html.unescape(link.group(1)))).text
    assert outcomes(second) == ["Delivered"]
    assert "Older deliveries" not in second


async def test_the_connection_page_shows_the_latest_and_links_the_log(
    client: httpx.AsyncClient, shop: Shop, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connections_pages, "RECENT_ATTEMPTS", 2)
    connection = await _five(world, shop)
    await log_in(client, "owner@example.com")
    page = (await client.get(f"/connections/{connection}")).text
    assert outcomes(page) == ["Failed, given up", "Delivered"]
    assert f'<a href="/connections/{connection}/deliveries">Every delivery, with filters</a>' in page


async def test_an_unknown_outcome_is_refused_beside_its_field(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    connection = await _five(world, shop)
    await log_in(client, "owner@example.com")
    page = await client.get(f"/connections/{connection}/deliveries", params={"outcome": "<b>lost</b>"})
    assert page.status_code == 400
    assert (
        '<p class="field-error" id="outcome-error">Outcome: choose Delivered, Failed, retried later or Failed, given up, or all</p>'
        in page.text
    )
    assert (
        '<a href="#outcome">Outcome: choose Delivered, Failed, retried later or Failed, given up, or all</a>'
        in page.text
    )
    assert "<b>lost</b>" not in page.text
    assert outcomes(page.text) == []


async def test_an_empty_log_says_what_to_do_next(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    connection = await connection_of(world, shop.location_token)
    await log_in(client, "owner@example.com")
    page = (await client.get(f"/connections/{connection.public_id}/deliveries")).text
    assert "No callback delivery: the application has no callback URL." in page
