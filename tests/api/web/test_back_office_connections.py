"""docs/operations.md "Back office": connections per location and account (revoke, block, unblock),
and each connection's request log and callback delivery attempts."""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import orjson
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from comptoir.app import create_app
from comptoir.config import Settings
from comptoir.connections.service import find_connection_by_token
from comptoir.db.engine import Database
from comptoir.jobs.timed import purge_logs
from comptoir.kit import clock
from comptoir.models import Connection, DeliveryAttempt, OAuthClient, RequestLog
from comptoir.request_logs import repository as request_log_statements
from comptoir.request_logs.buffer import SECRET_WORDS, Record, body_text, mask, mask_query
from comptoir.web import data as data_views
from comptoir.web.render import pretty
from tests.api.conftest import Shop
from tests.api.web.test_back_office_login import csrf_of, log_in
from tests.factories import World
from tests.response_schemas import CheckedASGITransport
from tests.waiting import eventually


async def connection_of(world: World, token: str) -> Connection:
    async with world.db.transaction(write=False) as session:
        connection = await find_connection_by_token(session, world.key, token)
        assert connection is not None
        return connection


async def act(client: httpx.AsyncClient, connection: Connection, action: str, **extra: str) -> httpx.Response:
    page = await client.get(f"/connections/{connection.public_id}")
    form = {"csrf": csrf_of(page.text), **extra}
    return await client.post(f"/connections/{connection.public_id}/{action}", data=form)


async def test_a_locations_connections_are_listed_with_scope_bindings_and_status(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    connection = await connection_of(world, shop.location_token)
    page = await client.get(f"/locations/{shop.location.public_id}/connections")
    assert page.status_code == 200
    assert f'<a href="/connections/{connection.public_id}">Test app</a>' in page.text
    words = [
        "Read and write orders of Chez Ada Paris",
        "Read and write the catalog Menu, and the stock of Chez Ada Paris",
        "Read and write the customers and loyalty cards of the customer list Customers",
        "Read and write stock of Chez Ada Paris",
    ]
    assert "".join(f"<li>{line}</li>" for line in words) in page.text
    assert '<td data-label="Status"><span class="tag tag-ok">Active</span></td>' in page.text
    account_token = await connection_of(world, shop.account_token)
    assert account_token.public_id not in page.text  # an account connection is the account's
    account_page = await client.get(f"/accounts/{shop.account.public_id}/connections")
    assert f'<a href="/connections/{account_token.public_id}">Test app</a>' in account_page.text
    assert connection.public_id not in account_page.text


async def test_revoking_a_connection_makes_its_token_401_at_once(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    connection = await connection_of(world, shop.location_token)
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200
    revoked = await act(client, connection, "revoke", confirmed="yes")
    assert (revoked.status_code, revoked.headers["location"]) == (303, f"/connections/{connection.public_id}")
    answer = await client.get("/v1/location", headers=shop.headers())
    assert answer.status_code == 401
    page = await client.get(f"/connections/{connection.public_id}")
    assert '<span class="tag tag-bad">Revoked</span> on' in page.text
    assert "/revoke" not in page.text  # nothing left to do


async def test_revoke_asks_first_and_changes_nothing(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    await log_in(client, "owner@example.com")
    connection = await connection_of(world, shop.location_token)
    page = await client.get(f"/connections/{connection.public_id}")
    assert '<button type="submit" class="secondary">Revoke…</button>' in page.text  # not the page's filled button
    before = await world.snapshot()
    asked = await act(client, connection, "revoke")
    assert asked.status_code == 200
    assert "<title>Revoke Test app&#39;s connection to Chez Ada Paris? · Comptoir</title>" in asked.text
    assert '<input type="hidden" name="confirmed" value="yes">' in asked.text
    assert '<button type="submit" class="danger">Yes, revoke it</button>' in asked.text
    assert f'<a href="/connections/{connection.public_id}">No, keep it</a>' in asked.text
    assert await world.snapshot() == before
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200


async def test_blocking_and_unblocking(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    await log_in(client, "owner@example.com")
    connection = await connection_of(world, shop.location_token)
    assert (await act(client, connection, "block")).status_code == 303
    blocked = await client.get("/v1/location", headers=shop.headers())
    assert (blocked.status_code, blocked.json()["message"]) == (401, "The connection has been blocked")
    assert (
        '<span class="tag tag-warn">Blocked</span>: its token gets 401'
        in (await client.get(f"/connections/{connection.public_id}")).text
    )
    assert (await act(client, connection, "unblock")).status_code == 303
    assert (await client.get("/v1/location", headers=shop.headers())).status_code == 200


async def test_others_cannot_see_or_act_on_a_connection(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    stranger = await world.user(email="stranger@example.com")
    assert stranger.id
    connection = await connection_of(world, shop.location_token)
    await log_in(client, "owner@example.com")
    csrf = csrf_of((await client.get("/")).text)
    await client.post("/logout", data={"csrf": csrf})
    await log_in(client, "stranger@example.com")
    assert (await client.get(f"/connections/{connection.public_id}")).status_code == 404
    assert (await client.get(f"/locations/{shop.location.public_id}/connections")).status_code == 404
    before = await world.snapshot()
    csrf = csrf_of((await client.get("/")).text)
    for action in ("revoke", "block"):
        refused = await client.post(f"/connections/{connection.public_id}/{action}", data={"csrf": csrf})
        assert refused.status_code == 404
    assert await world.snapshot() == before


async def test_the_applications_developer_sees_the_log_but_cannot_revoke(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    developer = await world.user(email="dev@example.com")
    async with world.db.transaction() as session:
        connection = await find_connection_by_token(session, world.key, shop.location_token)
        assert connection is not None
        app = await session.get(OAuthClient, connection.client_id)
        assert app is not None
        app.owner_id = developer.id
    await client.get("/v1/location", headers=shop.headers())
    await log_in(client, "dev@example.com")
    page = await client.get(f"/connections/{connection.public_id}")
    assert page.status_code == 200
    assert "<code>GET /v1/location</code>" in page.text
    assert "/revoke" not in page.text
    before = await world.snapshot()
    refused = await client.post(f"/connections/{connection.public_id}/revoke", data={"csrf": csrf_of(page.text)})
    assert refused.status_code == 404
    assert await world.snapshot() == before


async def test_requests_are_logged_with_bodies_status_and_last_use(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    connection = await connection_of(world, shop.location_token)
    created = await client.patch("/v1/location", headers=shop.headers(), json={"preparation_time": 25})
    assert created.status_code == 200
    refused = await client.patch("/v1/location", headers=shop.headers(), json={"preparation_time": -1})
    assert refused.status_code == 422
    await log_in(client, "owner@example.com")
    page = await client.get(f"/connections/{connection.public_id}")
    text = html.unescape(page.text)
    assert text.count("<code>PATCH /v1/location</code>") == 2
    assert '<pre>{\n  "preparation_time": 25\n}</pre>' in text  # a whole JSON body is indented
    assert f"<pre>{pretty(created.text)}</pre>" in text  # the response body
    assert '<span class="tag tag-warn">422</span>' in text
    assert '<span class="tag tag-ok">200</span>' in text
    assert created.headers["x-request-id"] in text
    assert "Last used</dt><dd>never" not in text
    async with world.db.transaction(write=False) as session:
        rows = list(await session.scalars(select(RequestLog).order_by(RequestLog.id)))
        assert [(r.method, r.path, r.status) for r in rows] == [
            ("PATCH", "/v1/location", 200),
            ("PATCH", "/v1/location", 422),
        ]
        assert (await session.get(Connection, connection.id)).last_used_at is not None  # type: ignore[union-attr]


async def test_bodies_are_cut_at_10_kb_and_secrets_masked(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    body = orjson.dumps({"client_secret": "s3cr3t", "note": "x" * 20_000})
    headers = {**shop.headers(), "Content-Type": "application/json"}
    answer = await client.patch("/v1/location?access_token=abc&x=1", headers=headers, content=body)
    assert answer.status_code == 200
    await log_in(client, "owner@example.com")
    connection = await connection_of(world, shop.location_token)
    await client.get(f"/connections/{connection.public_id}")  # writes this process's pending log
    async with world.db.transaction(write=False) as session:
        [row] = list(await session.scalars(select(RequestLog)))
    assert row.path == "/v1/location?access_token=***&x=1"
    assert row.request_bytes == len(body)
    assert len(row.request_body) == 10 * 1024 - len("s3cr3t") + len("***")
    assert row.request_body.startswith('{"client_secret":"***","note":"xxx')
    assert "s3cr3t" not in row.request_body


def test_a_binary_body_is_described_not_kept() -> None:
    assert body_text(b"\x89PNG\r\n\x1a\n", 48_213, "image/png") == "<48213 bytes of image/png>"
    assert body_text(b"", 0, "image/png") == ""
    assert body_text(b'{"a":1}', 7, "application/json; charset=utf-8") == '{"a":1}'


def test_masking_covers_secret_names_and_a_value_cut_at_the_end() -> None:
    assert mask('{"password":"p","token": "t\\"x","name":"n"}') == '{"password":"***","token": "***","name":"n"}'
    assert mask('{"a":{"refresh_token":"abcdef') == '{"a":{"refresh_token":"***"'
    assert mask('{"code_verifier":"v","api_key":"k"}') == '{"code_verifier":"***","api_key":"***"}'


@pytest.mark.parametrize("word", SECRET_WORDS)
def test_every_secret_word_is_masked_in_any_case_within_a_name(word: str) -> None:
    # mask() searches the words by their stems first: each word must be found through one
    for name in (word, word.upper(), f"my_{word.title()}_2"):
        assert mask(f'{{"{name}":"s3cr3t","name":"n"}}') == f'{{"{name}":"***","name":"n"}}'


def test_a_path_is_masked_at_each_secret_parameter_and_kept_as_it_is_without_one() -> None:
    assert mask_query("/v1/location?access_token=abc&x=1&API_KEY=k") == "/v1/location?access_token=***&x=1&API_KEY=***"
    assert mask_query("/v1/orders&token=abc") == "/v1/orders&token=***"  # an ampersand with no question mark
    assert mask_query("/v1/location/orders/ord_1?status=new") == "/v1/location/orders/ord_1?status=new"
    assert mask_query("/v1/token/password") == "/v1/token/password"  # words in the path itself are no parameter


def test_a_body_holding_stems_but_no_secret_word_is_kept_as_it_is() -> None:
    text = '{"passwx":"a","capital":"b","api":"c","api key":"d","tokens_left":1}'
    assert mask(text) == text


async def test_delivery_attempts_are_shown(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    connection = await connection_of(world, shop.location_token)
    async with world.db.transaction() as session:
        session.add(
            DeliveryAttempt(
                connection_id=connection.id,
                event_id=7,
                attempt=2,
                attempted_at=clock.now(),
                duration_ms=31,
                url="https://app.example/hook",
                status_code=503,
                error=None,
                response_excerpt="try later",
                outcome="retry",
            )
        )
    await log_in(client, "owner@example.com")
    text = (await client.get(f"/connections/{connection.public_id}")).text
    assert '<p class="muted">POST https://app.example/hook</p>' in text
    assert "<p>Reply: status 503</p>" in text
    assert "<pre>try later</pre>" in text
    assert '<span class="tag tag-bad">503</span> Failed, retried later <span class="muted">' in text
    assert "attempt 2 · 31 ms</span>" in text


async def test_request_logs_older_than_7_days_are_purged(app: FastAPI, shop: Shop, world: World) -> None:
    connection = await connection_of(world, shop.location_token)
    async with world.db.transaction() as session:
        for days in (8, 6):
            session.add(
                RequestLog(
                    connection_id=connection.id,
                    at=clock.now() - timedelta(days=days),
                    request_id=f"r{days}",
                    method="GET",
                    path="/v1/location",
                    status=200,
                    duration_ms=1,
                    request_body="",
                    request_bytes=0,
                    response_body="{}",
                    response_bytes=2,
                )
            )
    assert await purge_logs(world.db) == 1
    async with world.db.transaction(write=False) as session:
        assert list(await session.scalars(select(RequestLog.request_id))) == ["r6"]


async def test_a_record_of_a_connection_gone_meanwhile_does_not_lose_the_others(
    app: FastAPI, shop: Shop, world: World
) -> None:
    connection = await connection_of(world, shop.location_token)
    buffer = app.state.comptoir.request_log
    for connection_id in (connection.id, 999_999):
        buffer.add(
            Record(
                connection_id, clock.now(), f"r{connection_id}", "GET", "/v1/location", 200, 1,
                b"", 0, "", b"{}", 2, "application/json",
            )
        )  # fmt: skip
    assert await buffer.flush() == 1
    async with world.db.transaction(write=False) as session:
        assert list(await session.scalars(select(RequestLog.connection_id))) == [connection.id]


async def test_a_flush_of_many_lines_lets_other_requests_run_between_its_steps(
    app: FastAPI, shop: Shop, world: World, monkeypatch: pytest.MonkeyPatch, db_kind: str
) -> None:
    """docs/performance.md: a second's worth of lines is made storable in steps, with a turn
    of the event loop between two, rather than in one stretch that holds every request
    meanwhile: the loop turns while the lines are made, and on PostgreSQL while the COPY
    encodes them."""
    connection = await connection_of(world, shop.location_token)
    buffer = app.state.comptoir.request_log
    body = b'{"items": [{"product_name": "Croque", "price": "6.50 EUR"}]}' * 40
    for i in range(1_000):
        buffer.add(
            Record(
                connection.id, clock.now(), f"r{i}", "GET", "/v1/location/orders/x", 200, 1,
                b"", 0, "", body, len(body), "application/json",
            )
        )  # fmt: skip
    turns = 0
    seen: list[int] = []  # the loop's turns when each line was made
    made = Record.row
    monkeypatch.setattr(Record, "row", lambda record: (seen.append(turns), made(record))[1])
    encoded: list[int] = []  # the loop's turns when each line went to the COPY
    copies: list[int] = []  # the lines of each COPY
    lines = request_log_statements._lines

    async def counted(rows: list[dict[str, object]]) -> AsyncIterator[tuple[object, ...]]:
        copies.append(len(rows))
        async for line in lines(rows):
            encoded.append(turns)
            yield line

    monkeypatch.setattr(request_log_statements, "_lines", counted)
    flushing = asyncio.ensure_future(buffer.flush())
    while not flushing.done():
        turns += 1
        await asyncio.sleep(0)
    assert await flushing == 1_000
    assert len(set(seen)) == 63  # 16 lines a turn: 62 steps of 16, then the last 8
    # 50 lines a turn, 500 a COPY (SQLite writes them in one INSERT, on its driver's thread)
    assert (len(encoded), len(set(encoded))) == ((1_000, 20) if db_kind == "postgresql" else (0, 0))
    assert copies == ([500, 500] if db_kind == "postgresql" else [])
    async with world.db.transaction(write=False) as session:
        assert await session.scalar(select(func.count()).select_from(RequestLog)) == 1_000


async def test_with_request_logs_off_nothing_is_logged_but_last_use_is_kept(
    settings: Settings, database: Database, shop: Shop, world: World
) -> None:
    app = create_app(settings.model_copy(update={"request_logs": "off"}), database=database, background=False)
    async with httpx.AsyncClient(transport=CheckedASGITransport(app=app), base_url="http://testserver") as http:
        assert (await http.get("/v1/location", headers=shop.headers())).status_code == 200
    await app.state.comptoir.request_log.flush()
    await app.state.comptoir.fast.close()
    connection = await connection_of(world, shop.location_token)
    async with world.db.transaction(write=False) as session:
        assert list(await session.scalars(select(RequestLog))) == []
        row = await session.get(Connection, connection.id)
        assert row is not None
        assert row.last_used_at is not None


async def test_older_requests_are_a_page_away(
    client: httpx.AsyncClient, shop: Shop, world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(data_views, "PAGE_SIZE", 2)
    for minutes in (5, 10, 15):
        await client.patch("/v1/location", headers=shop.headers(), json={"preparation_time": minutes})
    await log_in(client, "owner@example.com")
    connection = await connection_of(world, shop.location_token)
    first = html.unescape((await client.get(f"/connections/{connection.public_id}")).text)
    assert '"preparation_time": 15' in first
    assert '"preparation_time": 10' in first
    assert '"preparation_time": 5' not in first
    older = re.search(r'href="\?(cursor=[^"]+)#requests">Older requests', first)
    assert older is not None
    second = html.unescape((await client.get(f"/connections/{connection.public_id}?{older.group(1)}")).text)
    assert '"preparation_time": 5' in second
    assert '"preparation_time": 10' not in second
    assert "Older requests" not in second


@pytest.mark.parametrize("request_logs", ["on", "off"])
async def test_last_used_is_written_within_seconds_while_the_process_runs(
    request_logs: str, app: FastAPI, settings: Settings, database: Database, shop: Shop, world: World
) -> None:
    """docs/operations.md "Request log": "Last used" is current within a second or two,
    written by the running process (not only at its stop), the request log on or off."""
    own = create_app(settings.model_copy(update={"request_logs": request_logs}), database=database, background=False)
    app.state.comptoir = own.state.comptoir  # the shared app, its routes ready, with this state
    connection = await connection_of(world, shop.location_token)
    clock.freeze()
    used_at = clock.now()
    async with own.router.lifespan_context(own):  # what starts and stops with the process
        async with httpx.AsyncClient(transport=CheckedASGITransport(app=app), base_url="http://testserver") as http:
            assert (await http.get("/v1/location", headers=shop.headers())).status_code == 200
        last_used = None

        async def written() -> bool:  # by the running process: its stop comes after
            nonlocal last_used
            async with world.db.transaction(write=False) as session:
                last_used = await session.scalar(select(Connection.last_used_at).where(Connection.id == connection.id))
            return last_used is not None

        await eventually(written, "last used written")
        assert last_used == used_at
