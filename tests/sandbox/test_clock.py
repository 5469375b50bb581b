"""POST /sandbox/clock (docs/sandbox.md "The clock"): the sandbox's time moves forward for
everything that reads it, and what became due happens at once."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import httpx

from comptoir.callbacks.worker import DeliveryWorker
from comptoir.kit import clock
from comptoir.sandbox.service import Sandbox
from tests.api.oauth2.conftest import form_of, query_of
from tests.receiver import Answer, Receiver
from tests.sandbox.conftest import order_for_the_courier, token
from tests.waiting import eventually


def _wire(at: datetime) -> str:
    return at.astimezone(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


async def test_advancing_answers_the_sandbox_time_moved_forward(client: httpx.AsyncClient) -> None:
    before = clock.now()
    moved = await client.post("/sandbox/clock", json={"advance_seconds": 7200})
    assert moved.status_code == 200
    assert moved.json()["real"] is False
    answered = datetime.fromisoformat(moved.json()["now"])
    assert timedelta(hours=2) - timedelta(seconds=1) <= answered - before <= timedelta(hours=2, seconds=5)
    assert clock.now() - before >= timedelta(hours=2)


async def test_setting_now_puts_the_clock_at_that_time(client: httpx.AsyncClient) -> None:
    target = (clock.now() + timedelta(days=3)).replace(microsecond=0)
    moved = await client.post("/sandbox/clock", json={"now": _wire(target)})
    assert moved.status_code == 200
    assert moved.json() == {"now": _wire(target), "real": False}
    assert timedelta(0) <= clock.now() - target < timedelta(seconds=5)


async def test_moving_the_clock_resumes_a_paused_location_at_once(sandbox: Sandbox, client: httpx.AsyncClient) -> None:
    pos = token(sandbox, "pos_paris")
    resume_at = _wire(clock.now() + timedelta(hours=2))
    paused = await client.patch(
        "/v1/location", json={"order_acceptance": {"mode": "paused", "resume_at": resume_at}}, headers=pos
    )
    assert paused.status_code == 200
    assert paused.json()["order_acceptance"]["mode"] == "paused"

    moved = await client.post("/sandbox/clock", json={"advance_seconds": 2 * 3600 + 1})
    assert moved.status_code == 200
    location = await client.get("/v1/location", headers=pos)
    assert location.json()["order_acceptance"] == {
        "mode": "normal",
        "resume_at": None,
        "extra_preparation_time": None,
        "reason": None,
    }


async def test_moving_the_clock_expires_an_authorisation_code(sandbox: Sandbox, client: httpx.AsyncClient) -> None:
    pos = sandbox.answer["applications"]["pos"]
    owner = sandbox.answer["users"]["owner"]
    url = "/oauth2/v1/authorize?" + str(
        httpx.QueryParams(client_id=pos["client_id"], redirect_uri="http://127.0.0.1:8081/callback", scope="profile")
    )
    page = await client.get(url)
    action, hidden = form_of(page.text)
    logged_in = await client.post(action, data={**hidden, "email": owner["email"], "password": owner["password"]})
    assert logged_in.status_code == 303
    page = await client.get(logged_in.headers["location"])
    action, hidden = form_of(page.text)
    allowed = await client.post(action, data={**hidden, "step": "allow"})
    assert allowed.status_code == 303
    code = query_of(allowed.headers["location"])["code"]

    moved = await client.post("/sandbox/clock", json={"advance_seconds": 601})
    assert moved.status_code == 200
    exchanged = await client.post(
        "/oauth2/v1/token",
        data={"grant_type": "authorization_code", "code": code},
        auth=(pos["client_id"], pos["client_secret"]),
    )
    assert exchanged.status_code == 400
    assert exchanged.json()["message"] == "The authorization code has expired"


async def test_moving_the_clock_to_the_next_minute_opens_a_new_rate_limit_window(
    sandbox: Sandbox, client: httpx.AsyncClient
) -> None:
    pos = token(sandbox, "pos_paris")
    menu = f"/v1/catalogs/{sandbox.answer['catalogs']['menu']}"  # with its data: 10 a minute
    start = (clock.now() + timedelta(minutes=1)).replace(second=0, microsecond=0)
    assert (await client.post("/sandbox/clock", json={"now": _wire(start)})).status_code == 200
    statuses = [(await client.get(menu, headers=pos)).status_code for _ in range(11)]
    assert statuses == [200] * 10 + [429]

    assert (await client.post("/sandbox/clock", json={"advance_seconds": 60})).status_code == 200
    assert (await client.get(menu, headers=pos)).status_code == 200


async def test_reset_puts_the_clock_back_to_the_real_time(client: httpx.AsyncClient) -> None:
    assert (await client.post("/sandbox/clock", json={"advance_seconds": 86400})).status_code == 200
    assert (await client.post("/sandbox/reset")).status_code == 200
    assert clock.moved() is False
    answered = await client.post("/sandbox/clock", json={"advance_seconds": 0})
    assert answered.json()["real"] is True
    assert abs(datetime.fromisoformat(answered.json()["now"]) - datetime.now(UTC)) < timedelta(seconds=5)


# --- with the delivery worker, as `comptoir sandbox` runs it ------------------------------------


async def test_moving_the_clock_sends_a_pending_resend_at_once(
    sandbox: Sandbox, client: httpx.AsyncClient, worker: DeliveryWorker, receiver: Receiver
) -> None:
    await order_for_the_courier(sandbox, client, receiver, lambda n: Answer(status=500 if n == 0 else 200))
    await asyncio.to_thread(receiver.wait_for, "/courier", 1)
    await asyncio.sleep(0.5)  # the resend waits 60 s (COMPTOIR_CALLBACK_RETRY_BASE_SECONDS)
    assert len(receiver.requests_to("/courier")) == 1

    moved = await client.post("/sandbox/clock", json={"advance_seconds": 61})
    assert moved.status_code == 200
    received = await asyncio.to_thread(receiver.wait_for, "/courier", 2, 10.0)
    assert received[1].headers["X-Event-Id"] == received[0].headers["X-Event-Id"]


async def test_moving_the_clock_past_the_retention_forgets_a_delivered_event(
    sandbox: Sandbox, client: httpx.AsyncClient, worker: DeliveryWorker, receiver: Receiver
) -> None:
    await order_for_the_courier(sandbox, client, receiver)
    courier = token(sandbox, "delivery_app")
    [delivered] = await asyncio.to_thread(receiver.wait_for, "/courier", 1)
    resend = f"/v1/callback/events/{delivered.headers['X-Event-Id']}/resend"
    await eventually(lambda: _acknowledged(sandbox), "the delivery recorded")

    assert (await client.post("/sandbox/clock", json={"advance_seconds": 29 * 86400})).status_code == 200
    assert (await client.post(resend, headers=courier)).status_code == 202  # kept 30 days
    await asyncio.to_thread(receiver.wait_for, "/courier", 2)
    await eventually(lambda: _acknowledged(sandbox, 2), "the resend recorded")

    assert (await client.post("/sandbox/clock", json={"advance_seconds": 31 * 86400})).status_code == 200
    assert (await client.post(resend, headers=courier)).status_code == 404


async def _acknowledged(sandbox: Sandbox, count: int = 1) -> bool:
    """Whether the worker wrote the outcome of `count` POSTs (the event is done)."""
    from sqlalchemy import func, select

    from comptoir.models import Event

    async with sandbox.db.transaction(write=False) as session:
        done = await session.scalar(select(func.count()).select_from(Event).where(Event.done_at.is_not(None)))
    return len(sandbox.deliveries.listing()) >= count and bool(done)
