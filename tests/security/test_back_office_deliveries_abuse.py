"""A connection's delivery log under attack (docs/back-office.md "Connections, logs and
charts"): another owner's connection, odd outcome filters, made-up cursors and cursors moved
to another filter, connection, page or session. Nothing is shown that was not asked for, and
nothing changes."""

# ruff: noqa: F811 - the API's fixtures, imported
from __future__ import annotations

import html
import re
from datetime import timedelta

import httpx
import pytest

from comptoir.web import data as data_views
from tests.api.conftest import Shop, app, client, shop, world  # noqa: F401 - fixtures
from tests.api.web.test_back_office_connection_page import NOW, attempt
from tests.api.web.test_back_office_connections import connection_of
from tests.api.web.test_back_office_login import csrf_of, log_in
from tests.factories import World

REFUSED = "Older deliveries: this link is broken or out of date; start again from the newest"


async def _attempts(world: World, shop: Shop, token: str, count: int) -> str:
    connection = await connection_of(world, token)
    async with world.db.transaction() as session:
        for i in range(count):
            session.add(attempt(connection, NOW - timedelta(minutes=i), 200, "acknowledged"))
    return connection.public_id


async def test_another_owners_delivery_log_is_not_found(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    connection = await _attempts(world, shop, shop.location_token, 2)
    await world.user(email="stranger@example.com")
    await log_in(client, "stranger@example.com")
    before = await world.snapshot()
    page = await client.get(f"/connections/{connection}/deliveries", params={"outcome": "acknowledged"})
    assert page.status_code == 404
    assert "Chez Ada" not in page.text
    assert "app.example/hook" not in page.text
    assert await world.snapshot() == before


async def test_signed_out_the_log_asks_to_log_in(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    connection = await _attempts(world, shop, shop.location_token, 1)
    page = await client.get(f"/connections/{connection}/deliveries")
    assert (page.status_code, page.headers["location"]) == (303, "/login")


@pytest.mark.parametrize(
    "outcome", ["<script>alert(1)</script>", "acknowledged' OR 1=1 --", "x" * 10_000, "dropped\x00", "DROPPED"]
)
async def test_an_odd_outcome_is_refused_and_shown_as_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World, outcome: str
) -> None:
    connection = await _attempts(world, shop, shop.location_token, 2)
    await log_in(client, "owner@example.com")
    page = await client.get(f"/connections/{connection}/deliveries", params={"outcome": outcome})
    assert page.status_code == 400
    assert "<script>alert(1)</script>" not in page.text
    assert "app.example/hook" not in page.text  # no attempt listed under a refused filter


@pytest.mark.parametrize("cursor", ["x", "A" * 4000, "eyJpZCI6IDF9", "%00"])
async def test_a_made_up_cursor_is_refused(client: httpx.AsyncClient, shop: Shop, world: World, cursor: str) -> None:
    connection = await _attempts(world, shop, shop.location_token, 2)
    await log_in(client, "owner@example.com")
    page = await client.get(f"/connections/{connection}/deliveries", params={"cursor": cursor})
    assert page.status_code == 400
    assert REFUSED in page.text


async def test_a_cursor_moved_elsewhere_is_refused(
    client: httpx.AsyncClient, shop: Shop, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(data_views, "PAGE_SIZE", 1)
    connection = await _attempts(world, shop, shop.location_token, 3)
    other = await _attempts(world, shop, shop.account_token, 3)
    await log_in(client, "owner@example.com")
    first = (await client.get(f"/connections/{connection}/deliveries", params={"outcome": "acknowledged"})).text
    found = re.search(r"cursor=([^\"&#]+)", first)
    assert found is not None
    cursor = html.unescape(found.group(1))
    ok = await client.get(f"/connections/{connection}/deliveries", params={"outcome": "acknowledged", "cursor": cursor})
    assert ok.status_code == 200
    for path, params in [
        (f"/connections/{connection}/deliveries", {"outcome": "dropped", "cursor": cursor}),
        (f"/connections/{connection}/deliveries", {"cursor": cursor}),
        (f"/connections/{other}/deliveries", {"outcome": "acknowledged", "cursor": cursor}),
        (f"/connections/{connection}", {"outcome": "acknowledged", "cursor": cursor}),  # the request log's
    ]:
        assert (await client.get(path, params=params)).status_code == 400, (path, params)
    await client.post("/logout", data={"csrf": csrf_of(first)})
    await log_in(client, "owner@example.com")  # a new session
    again = await client.get(
        f"/connections/{connection}/deliveries", params={"outcome": "acknowledged", "cursor": cursor}
    )
    assert again.status_code == 400
