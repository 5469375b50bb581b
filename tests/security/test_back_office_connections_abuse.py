"""The connection pages under attack (docs/back-office.md "Connections, logs and charts"):
another owner's connection, forged form tokens, odd request-log filters, altered cursors and
markup in names. Each refusal changes nothing."""

# ruff: noqa: F811 - the API's fixtures, imported
from __future__ import annotations

import html
import re

import httpx
import pytest

from comptoir.models import Connection, RequestLog
from comptoir.web import data as data_views
from tests.api.conftest import Shop, app, client, shop, world  # noqa: F401 - fixtures
from tests.api.web.test_back_office_connections import connection_of
from tests.api.web.test_back_office_login import csrf_of, log_in
from tests.factories import World


async def log_some(world: World, connection: Connection, count: int) -> None:
    async with world.db.transaction() as session:
        for i in range(count):
            session.add(
                RequestLog(
                    connection_id=connection.id, at=connection.created_at, request_id=f"r{i}", method="GET",
                    path=f"/v1/orders/{i}", status=404, duration_ms=1, request_body="", request_bytes=0,
                    response_body="{}", response_bytes=2,
                )
            )  # fmt: skip


async def test_another_owners_connection_is_not_found_and_nothing_changes(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await world.user(email="stranger@example.com")
    connection = await connection_of(world, shop.location_token)
    await log_in(client, "stranger@example.com")
    csrf = csrf_of((await client.get("/")).text)
    page = await client.get(f"/connections/{connection.public_id}", params={"status": "4xx", "path": "x"})
    assert page.status_code == 404
    assert "Chez Ada" not in page.text
    assert (await client.get(f"/accounts/{shop.account.public_id}/connections")).status_code == 404
    before = await world.snapshot()
    for action in ("revoke", "block", "unblock", "callback/rotate", "callback/secret", "callback/enable"):
        refused = await client.post(f"/connections/{connection.public_id}/{action}", data={"csrf": csrf})
        assert refused.status_code == 404, action
        assert "whsec_" not in refused.text
    assert await world.snapshot() == before


@pytest.mark.parametrize("action", ["revoke", "block", "unblock"])
@pytest.mark.parametrize("token", [None, "forged", "x" * 5000])
async def test_a_forged_or_missing_form_token_is_refused(
    client: httpx.AsyncClient, shop: Shop, world: World, action: str, token: str | None
) -> None:
    connection = await connection_of(world, shop.location_token)
    await log_in(client, "owner@example.com")
    before = await world.snapshot()
    answer = await client.post(
        f"/connections/{connection.public_id}/{action}", data={} if token is None else {"csrf": token}
    )
    assert answer.status_code == 403
    assert "<h1>This form has expired</h1>" in answer.text  # docs/back-office.md: a bad CSRF token
    assert await world.snapshot() == before
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200


async def test_a_path_filter_with_markup_is_shown_as_text(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    connection = await connection_of(world, shop.location_token)
    await log_in(client, "owner@example.com")
    page = await client.get(f"/connections/{connection.public_id}", params={"path": '"><script>alert(1)</script>'})
    assert page.status_code == 200
    assert "<script>alert(1)" not in page.text
    assert 'value="&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"' in page.text


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"path": "x" * 201}, "Path contains: at most 200 characters"),
        ({"path": "x" * 20_000}, "Path contains: at most 200 characters"),
        ({"path": "a\x01b"}, "Path contains: only printable characters"),
        ({"path": "a\x00b"}, "Invalid query parameter 'path': must not contain a NUL character"),  # the app's
        ({"path": "a\nb"}, "Path contains: only printable characters"),
        ({"status": "6xx"}, "Status: choose 2xx, 3xx, 4xx or 5xx, or all"),
        ({"status": "<b>"}, "Status: choose 2xx, 3xx, 4xx or 5xx, or all"),
    ],
)
async def test_odd_filters_are_refused_beside_their_field(
    client: httpx.AsyncClient, shop: Shop, world: World, params: dict[str, str], message: str
) -> None:
    connection = await connection_of(world, shop.location_token)
    await log_some(world, connection, 1)
    await log_in(client, "owner@example.com")
    page = await client.get(f"/connections/{connection.public_id}", params=params)
    assert page.status_code == 400
    assert message in page.text
    assert "/v1/orders/0" not in page.text  # the log is not read
    assert "<b>" not in page.text


async def test_unicode_and_quotes_in_the_path_filter_are_plain_text(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    connection = await connection_of(world, shop.location_token)
    await log_in(client, "owner@example.com")
    for text in ("é'\"; DROP TABLE request_logs; --", "%", "_", "\\", "🍕"):
        page = await client.get(f"/connections/{connection.public_id}", params={"path": text})
        assert page.status_code == 200, text
        assert "No request matches these filters" in page.text


@pytest.mark.parametrize("cursor", ["nonsense", "A" * 2000, "", "%00", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"])
async def test_a_made_up_cursor_is_refused(client: httpx.AsyncClient, shop: Shop, world: World, cursor: str) -> None:
    connection = await connection_of(world, shop.location_token)
    await log_in(client, "owner@example.com")
    page = await client.get(f"/connections/{connection.public_id}", params={"cursor": cursor})
    if cursor == "":  # no cursor: the first page
        assert page.status_code == 200
        return
    assert page.status_code == 400
    assert "Older requests: this link is broken or out of date; start again from the newest" in page.text


async def test_a_cursor_moved_to_other_filters_another_connection_or_user_is_refused(
    client: httpx.AsyncClient, shop: Shop, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(data_views, "PAGE_SIZE", 1)
    connection = await connection_of(world, shop.location_token)
    other = await connection_of(world, shop.account_token)
    await log_some(world, connection, 3)
    await log_some(world, other, 3)
    await log_in(client, "owner@example.com")
    first = (await client.get(f"/connections/{connection.public_id}", params={"status": "4xx"})).text
    found = re.search(r"cursor=([^\"&#]+)", first)
    assert found is not None
    cursor = html.unescape(found.group(1))
    ok = await client.get(f"/connections/{connection.public_id}", params={"status": "4xx", "cursor": cursor})
    assert ok.status_code == 200
    for path, params in [
        (f"/connections/{connection.public_id}", {"status": "5xx", "cursor": cursor}),
        (f"/connections/{connection.public_id}", {"status": "4xx", "path": "o", "cursor": cursor}),
        (f"/connections/{other.public_id}", {"status": "4xx", "cursor": cursor}),
    ]:
        assert (await client.get(path, params=params)).status_code == 400, params
    csrf = csrf_of(first)
    await client.post("/logout", data={"csrf": csrf})
    await log_in(client, "owner@example.com")  # a new session
    again = await client.get(f"/connections/{connection.public_id}", params={"status": "4xx", "cursor": cursor})
    assert again.status_code == 400


async def test_markup_in_application_and_connection_names_is_shown_as_text(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    app = await world.client(name="<script>alert('app')</script>")
    token = await world.token(
        "location[orders.read]", location=shop.location, client=app, name="<img src=x onerror=alert(1)>"
    )
    connection = await connection_of(world, token)
    await log_in(client, "owner@example.com")
    for url in (f"/locations/{shop.location.public_id}/connections", f"/connections/{connection.public_id}"):
        page = (await client.get(url)).text
        assert "<script>alert" not in page
        assert "<img src=x" not in page
        assert "&lt;script&gt;alert(&#39;app&#39;)&lt;/script&gt;" in page
        assert "&lt;img src=x onerror=alert(1)&gt;" in page
