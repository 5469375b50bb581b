"""docs/api/callbacks-events.md "Verifying a callback", "Testing, resending and replaying",
"Automatic disable": real deliveries to a real receiver (tests/receiver.py), checked with the
`standardwebhooks` package, a verifier written outside this project."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import select
from standardwebhooks.webhooks import Webhook

from comptoir.callbacks.worker import DeliveryWorker
from comptoir.config import Settings
from comptoir.db.engine import Database
from comptoir.kit import clock
from comptoir.models import Notice
from tests.api.callbacks.conftest import Listener, looked_again, past_every_resend, subscribe, touch_location
from tests.api.callbacks.test_delivery import connection_id, received, secret_of, wait_until_listed
from tests.api.conftest import Shop
from tests.factories import World
from tests.receiver import Answer, Received, Receiver
from tests.waiting import PATIENCE, eventually


async def signing_secret(client: httpx.AsyncClient, listener: Listener) -> dict[str, object]:
    response = await client.get("/v1/callback/signing_secret", headers=listener.headers())
    assert response.status_code == 200, response.text
    return response.json()


def verified(secret: str, request: Received) -> dict[str, object]:
    """What the standardwebhooks package reads from a delivery (it raises on a bad signature)."""
    headers = {k.lower(): v for k, v in request.headers.items()}
    return Webhook(secret).verify(request.body, headers)


def signatures(request: Received) -> list[str]:
    return request.headers["webhook-signature"].split(" ")


def v1(secret: str, request: Received) -> str:
    key = base64.b64decode(secret.removeprefix("whsec_"))
    h = request.headers
    signed = f"{h['webhook-id']}.{h['webhook-timestamp']}.".encode() + request.body
    return "v1," + base64.b64encode(hmac.digest(key, signed, "sha256")).decode()


async def test_a_delivery_verifies_with_the_standardwebhooks_package_and_keeps_the_hmac_header(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, world: World, receiver: Receiver, worker: DeliveryWorker
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    await touch_location(client, shop, 61)
    [request] = await received(receiver, "/hook", 1)
    secret = str((await signing_secret(client, listener))["secret"])
    payload = verified(secret, request)
    assert payload["resource_type"] == "location"
    assert request.headers["webhook-id"] == request.headers["X-Event-Id"] == payload["id"]
    assert abs(int(request.headers["webhook-timestamp"]) - clock.now().timestamp()) < 30
    assert (
        request.headers["X-Service-Hmac-SHA256"]
        == hmac.new(await secret_of(world, listener), request.body, hashlib.sha256).hexdigest()
    )
    assert "comptoir-redelivery" not in {k.lower() for k in request.headers}


async def test_the_signing_secret_is_whsec_and_24_random_bytes_and_stays_until_rotated(
    client: httpx.AsyncClient, listener: Listener
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]})
    first = await signing_secret(client, listener)
    assert str(first["secret"]).startswith("whsec_")
    assert len(base64.b64decode(str(first["secret"])[6:], validate=True)) == 24
    assert first["previous_secret_expires_at"] is None
    assert await signing_secret(client, listener) == first
    await subscribe(client, listener.token, {"order": ["create"]})  # replacing keeps it
    assert await signing_secret(client, listener) == first


async def test_no_callback_has_no_signing_secret_404(client: httpx.AsyncClient, listener: Listener) -> None:
    for method, path in (("GET", "/v1/callback/signing_secret"), ("POST", "/v1/callback/signing_secret/rotate")):
        response = await client.request(method, path, headers=listener.headers())
        assert response.status_code == 404, (path, response.text)
        assert response.json()["error_type"] == "not_found"


async def test_after_a_rotation_both_secrets_sign_for_24_hours_then_only_the_new(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, receiver: Receiver, worker: DeliveryWorker
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    old = str((await signing_secret(client, listener))["secret"])
    rotated = await client.post("/v1/callback/signing_secret/rotate", headers=listener.headers())
    assert rotated.status_code == 200, rotated.text
    new = str(rotated.json()["secret"])
    assert new != old
    assert rotated.json() == await signing_secret(client, listener)
    assert rotated.json()["previous_secret_expires_at"] is not None
    await touch_location(client, shop, 62)
    [request] = await received(receiver, "/hook", 1)
    assert signatures(request) == [v1(new, request), v1(old, request)]  # the newest first
    verified(new, request)
    verified(old, request)
    clock.travel(timedelta(hours=24, seconds=1))
    assert (await signing_secret(client, listener))["previous_secret_expires_at"] is None
    await touch_location(client, shop, 63)
    [_, later] = await received(receiver, "/hook", 2)
    assert signatures(later) == [v1(new, later)]


async def test_a_test_event_is_posted_now_signed_both_ways_and_its_outcome_answered(
    client: httpx.AsyncClient, listener: Listener, world: World, receiver: Receiver
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    response = await client.post("/v1/callback/test", headers=listener.headers())
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["delivered"], body["status"], body["error"]) == (True, 200, None)
    assert body["event"]["resource_type"] == "callback"
    assert body["event"]["event_type"] == "test"
    assert sorted(body["event"]) == ["created_at", "event_type", "id", "resource_type"]
    [request] = receiver.requests_to("/hook")
    assert verified(str((await signing_secret(client, listener))["secret"]), request) == body["event"]
    assert (
        request.headers["X-Service-Hmac-SHA256"]
        == hmac.new(await secret_of(world, listener), request.body, hashlib.sha256).hexdigest()
    )


async def test_a_test_event_answered_500_is_not_delivered(
    client: httpx.AsyncClient, listener: Listener, receiver: Receiver
) -> None:
    receiver.answer("/hook", Answer(status=500, body=b"down"))
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    body = (await client.post("/v1/callback/test", headers=listener.headers())).json()
    assert (body["delivered"], body["status"], body["error"]) == (False, 500, None)


async def test_a_test_event_needs_a_callback_url_422(client: httpx.AsyncClient, listener: Listener) -> None:
    await subscribe(client, listener.token, {"location": ["update"]})
    response = await client.post("/v1/callback/test", headers=listener.headers())
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"field": "url", "message": "is null (a passive callback): a test event needs a callback URL"}
    ]


async def test_resending_a_delivered_event_sends_it_again_marked_as_a_redelivery(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, receiver: Receiver, worker: DeliveryWorker
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    await touch_location(client, shop, 64)
    [first] = await received(receiver, "/hook", 1)
    await wait_until_listed(client, listener, 0)  # delivered: no longer listed, still kept
    event_id = first.headers["X-Event-Id"]
    read = await client.get(f"/v1/callback/events/{event_id}", headers=listener.headers())
    assert (read.status_code, read.json()) == (
        404,
        {"error_type": "not_found", "message": f"No event with id {event_id!r}"},
    )
    response = await client.post(f"/v1/callback/events/{event_id}/resend", headers=listener.headers())
    assert response.status_code == 202, response.text
    assert response.json() == {"count": 1}
    [_, again] = await received(receiver, "/hook", 2)
    assert again.body == first.body
    assert again.headers["webhook-id"] == event_id
    assert again.headers["comptoir-redelivery"] == "true"
    await wait_until_listed(client, listener, 0)


async def test_a_replay_sends_the_range_again_oldest_first_as_redeliveries(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, receiver: Receiver, worker: DeliveryWorker
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    start = clock.now() - timedelta(seconds=1)
    for minutes in (65, 66, 67):
        await touch_location(client, shop, minutes)
    firsts = await received(receiver, "/hook", 3)
    await wait_until_listed(client, listener, 0)
    end = clock.now() + timedelta(seconds=1)
    response = await client.post(
        "/v1/callback/replay", json={"from": start.isoformat(), "to": end.isoformat()}, headers=listener.headers()
    )
    assert response.status_code == 202, response.text
    assert response.json() == {"count": 3}
    replayed = (await received(receiver, "/hook", 6))[3:]
    assert [r.headers["X-Event-Id"] for r in replayed] == [r.headers["X-Event-Id"] for r in firsts]
    assert all(r.headers["comptoir-redelivery"] == "true" for r in replayed)


async def test_a_callback_failing_for_the_disable_time_is_disabled_then_enabling_resumes_from_the_oldest(
    client: httpx.AsyncClient,
    shop: Shop,
    listener: Listener,
    world: World,
    receiver: Receiver,
    fast_retries: Settings,
    database: Database,
) -> None:
    settings = fast_retries.model_copy(update={"callback_disable_after_seconds": 1.0})
    delivery = DeliveryWorker(settings, database, settings.server_key(), poll_interval=0.05)
    task = asyncio.create_task(delivery.run())
    try:
        receiver.answer("/hook", Answer(status=503, body=b"down"))
        await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
        await touch_location(client, shop, 69)
        await touch_location(client, shop, 70)
        callback: dict[str, object] = {}

        async def disabled() -> bool:
            nonlocal callback
            callback = (await client.get("/v1/callback", headers=listener.headers())).json()
            return callback["disabled_at"] is not None

        await eventually(disabled, "the callback disabled")
        assert str(callback["disabled_reason"]).startswith("every delivery attempt failed since ")
        assert str(callback["disabled_reason"]).endswith("(last: status 503)")
        attempts = len(receiver.requests_to("/hook"))
        past_every_resend(settings.callback_retry_base_seconds)
        await looked_again(delivery)  # every resend time has passed: nothing more is sent
        assert len(receiver.requests_to("/hook")) == attempts
        listed = (await client.get("/v1/callback/events", headers=listener.headers())).json()
        assert len(listed) == 2  # kept pending
        async with world.db.transaction(write=False) as session:
            [notice] = (await session.scalars(select(Notice))).all()
        assert notice.connection_id == await connection_id(world, listener)
        assert notice.text.startswith("A callback was disabled: every delivery attempt failed since ")
        receiver.answer("/hook", Answer(status=200))
        enabled = await client.post("/v1/callback/enable", headers=listener.headers())
        assert enabled.status_code == 200, enabled.text
        assert (enabled.json()["disabled_at"], enabled.json()["disabled_reason"]) == (None, None)
        resumed = (await received(receiver, "/hook", attempts + 2))[attempts:]
        assert [r.headers["X-Event-Id"] for r in resumed] == [e["id"] for e in listed]
        await wait_until_listed(client, listener, 0)
    finally:
        delivery.stop()
        await asyncio.wait_for(task, PATIENCE)


async def test_registering_again_enables_a_disabled_callback(
    client: httpx.AsyncClient, listener: Listener, world: World, receiver: Receiver
) -> None:
    from comptoir.callbacks import repository

    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    async with world.db.transaction() as session:
        assert await repository.disable(session, await connection_id(world, listener), clock.now(), "test")
    assert (await client.get("/v1/callback", headers=listener.headers())).json()["disabled_reason"] == "test"
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    callback = (await client.get("/v1/callback", headers=listener.headers())).json()
    assert (callback["disabled_at"], callback["disabled_reason"]) == (None, None)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"to": "2026-01-02T00:00:00Z"}, "from"),
        ({"from": "yesterday", "to": "2026-01-02T00:00:00Z"}, "from"),
        ({"from": "2026-01-02T00:00:00Z", "to": "2026-01-01T00:00:00Z"}, "to"),
    ],
)
async def test_a_bad_replay_range_is_422_naming_the_field(
    client: httpx.AsyncClient, listener: Listener, receiver: Receiver, body: dict[str, str], field: str
) -> None:
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    response = await client.post("/v1/callback/replay", json=body, headers=listener.headers())
    assert response.status_code == 422, response.text
    assert [e["field"] for e in response.json()["errors"]] == [field]


async def test_an_automatic_retry_of_a_resent_event_is_not_marked_as_a_redelivery(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, receiver: Receiver, worker: DeliveryWorker
) -> None:
    receiver.answer("/hook", lambda n: Answer(status=503 if n == 1 else 200))
    await subscribe(client, listener.token, {"location": ["update"]}, receiver.url("/hook"))
    await touch_location(client, shop, 75)
    [first] = await received(receiver, "/hook", 1)
    await wait_until_listed(client, listener, 0)
    resend = f"/v1/callback/events/{first.headers['X-Event-Id']}/resend"
    resent_now = await client.post(resend, headers=listener.headers())
    assert (resent_now.status_code, resent_now.json()) == (202, {"count": 1})
    [_, resent, retried] = await received(receiver, "/hook", 3)
    assert resent.headers["comptoir-redelivery"] == "true"
    assert "comptoir-redelivery" not in retried.headers
    assert retried.body == first.body
