"""Abuse of the callback tools (docs/api/callbacks-events.md "Verifying a callback",
"Testing, resending and replaying"): another connection's event, huge or inverted replay
ranges, rotations in a row, test events aimed inside the network or at a stalling receiver,
and the signing secret in logs or in GET /callback."""

# ruff: noqa: F811 - the API's fixtures are imported, then named as parameters
from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from comptoir.auth.tokens import REVOKED
from comptoir.callbacks.worker import DeliveryWorker
from comptoir.config import Settings
from comptoir.models import RequestLog
from tests.api.callbacks.conftest import (  # noqa: F401 - the callbacks' fixtures
    Listener,
    fast_retries,
    listener,
    new_listener,
    subscribe,
    touch_location,
    worker,
)
from tests.api.callbacks.test_delivery import received, wait_until_listed
from tests.api.callbacks.test_webhook_tools import signatures, v1
from tests.api.conftest import Shop, app, client, shop, world  # noqa: F401 - the API's fixtures
from tests.factories import World
from tests.receiver import Answer, Receiver, running_receiver


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver() as running:
        yield running


async def test_resending_another_connections_event_is_404_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World, listener: Listener
) -> None:
    other = await new_listener(world, shop, "Other app")
    await subscribe(client, listener.token, {"location": ["update"]})
    await subscribe(client, other.token, {"location": ["update"]}, "http://127.0.0.1:9/hook")
    await touch_location(client, shop, 71)
    [event] = (await client.get("/v1/callback/events", headers=listener.headers())).json()
    before = await world.snapshot()
    answer = await client.post(f"/v1/callback/events/{event['id']}/resend", headers=other.headers())
    assert answer.status_code == 404
    assert answer.json() == {"error_type": "not_found", "message": f"No event with id '{event['id']}'"}
    assert await world.snapshot() == before


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"from": "2026-01-01T00:00:00Z", "to": "2026-03-01T00:00:00Z"}, "the range must cover at most 31 days"),
        (
            {"from": "2026-01-02T00:00:00Z", "to": "2026-01-01T00:00:00Z"},
            "'2026-01-01T00:00:00Z' must be after from ('2026-01-02T00:00:00Z')",
        ),
        (
            {"from": "2026-01-01T00:00:00Z", "to": "2026-01-01T00:00:00Z"},
            "'2026-01-01T00:00:00Z' must be after from ('2026-01-01T00:00:00Z')",
        ),
        (
            {"from": "2026-01-01T00:00:00Z", "to": "9" * 5000},
            None,
        ),
        ({"from": "2026-01-01T00:00:00Z", "to": ["2026"]}, None),
        ({"from": "0001-01-01T00:00:00Z", "to": "9999-12-31T23:59:59Z"}, None),
    ],
)
async def test_a_huge_inverted_or_garbage_replay_range_is_422_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World, listener: Listener, body: dict[str, Any], message: str | None
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]}, "http://127.0.0.1:9/hook")
    await touch_location(client, shop, 72)
    before = await world.snapshot()
    answer = await client.post("/v1/callback/replay", json=body, headers=listener.headers())
    assert answer.status_code == 422, answer.text
    errors = answer.json()["errors"]
    assert len(errors) >= 1
    if message is not None:
        assert errors == [{"field": "to", "message": message}]
    assert await world.snapshot() == before


async def test_rotating_twice_in_a_row_ends_the_first_secret_at_once(
    client: httpx.AsyncClient,
    shop: Shop,
    listener: Listener,
    receiver: Receiver,
    worker: DeliveryWorker,
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    first = (await client.get("/v1/callback/signing_secret", headers=listener.headers())).json()["secret"]
    second = (await client.post("/v1/callback/signing_secret/rotate", headers=listener.headers())).json()["secret"]
    third = (await client.post("/v1/callback/signing_secret/rotate", headers=listener.headers())).json()["secret"]
    assert len({first, second, third}) == 3
    await touch_location(client, shop, 73)
    [request] = await received(receiver, "/hook", 1)
    assert signatures(request) == [v1(third, request), v1(second, request)]
    assert v1(first, request) not in signatures(request)


async def test_the_new_routes_need_a_token(client: httpx.AsyncClient, world: World) -> None:
    before = await world.snapshot()
    for method, path in (
        ("GET", "/v1/callback/signing_secret"),
        ("POST", "/v1/callback/signing_secret/rotate"),
        ("POST", "/v1/callback/test"),
        ("POST", "/v1/callback/events/abcdef/resend"),
        ("POST", "/v1/callback/replay"),
        ("POST", "/v1/callback/enable"),
    ):
        answer = await client.request(method, path, headers={"X-Access-Token": "nope"})
        assert (answer.status_code, answer.json()) == (401, {"error_type": "unauthorized", "message": REVOKED}), path
    assert await world.snapshot() == before


async def test_a_test_event_to_an_address_no_longer_allowed_is_refused_before_any_post(
    app: FastAPI, client: httpx.AsyncClient, listener: Listener, receiver: Receiver, settings: Settings
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    app.state.comptoir.settings = settings.model_copy(update={"callback_allowed_networks": ""})
    body = (await client.post("/v1/callback/test", headers=listener.headers())).json()
    assert (body["delivered"], body["status"]) == (False, None)
    assert body["error"] == "refused: 127.0.0.1 is a loopback address"
    assert receiver.requests_to("/hook") == []


async def test_a_test_event_to_a_stalling_receiver_ends_at_the_timeout(
    app: FastAPI, client: httpx.AsyncClient, listener: Listener, receiver: Receiver, settings: Settings
) -> None:
    receiver.answer("/hook", Answer(status=200, delay=3.0))
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    app.state.comptoir.settings = settings.model_copy(update={"callback_timeout_seconds": 0.5})
    started = asyncio.get_running_loop().time()
    body = (await client.post("/v1/callback/test", headers=listener.headers())).json()
    assert asyncio.get_running_loop().time() - started < 2.5
    assert (body["delivered"], body["status"], body["error"]) == (False, None, "timeout")


async def test_the_signing_secret_is_never_logged_nor_in_get_callback(
    client: httpx.AsyncClient,
    shop: Shop,
    listener: Listener,
    world: World,
    receiver: Receiver,
    worker: DeliveryWorker,
    app: FastAPI,
    capsys: pytest.CaptureFixture[str],
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    secrets = [(await client.get("/v1/callback/signing_secret", headers=listener.headers())).json()["secret"]]
    rotated = await client.post("/v1/callback/signing_secret/rotate", headers=listener.headers())
    secrets.append(rotated.json()["secret"])
    await client.post("/v1/callback/test", headers=listener.headers())
    await touch_location(client, shop, 74)
    await received(receiver, "/hook", 2)
    await wait_until_listed(client, listener, 0)
    callback = (await client.get("/v1/callback", headers=listener.headers())).text
    await app.state.comptoir.request_log.flush()
    async with world.db.transaction(write=False) as session:
        logged = [(r.request_body or "") + (r.response_body or "") for r in await session.scalars(select(RequestLog))]
    captured = capsys.readouterr()
    for secret in secrets:
        key = secret.removeprefix("whsec_")
        assert key not in callback
        assert all(key not in body for body in logged)
        assert key not in captured.out + captured.err
    assert any('"secret":"***"' in body.replace(" ", "") for body in logged)
