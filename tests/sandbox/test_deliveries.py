"""GET /sandbox/deliveries (docs/sandbox.md "Deliveries"): every callback POST with its
request as sent and the answer received, newest first, filtered by connection and event type."""

from __future__ import annotations

import asyncio
import json

import httpx

from comptoir.callbacks.worker import DeliveryWorker
from comptoir.sandbox.service import Sandbox
from tests.receiver import Answer, Receiver
from tests.sandbox.conftest import order_for_the_courier, token
from tests.waiting import eventually

SIGNED = ("Content-Type", "X-Service-Hmac-SHA256", "X-Event-Id", "webhook-id", "webhook-timestamp", "webhook-signature")


async def _subscribe(client: httpx.AsyncClient, sandbox: Sandbox, connection: str, url: str, events: list[str]) -> None:
    answer = await client.post(
        "/v1/callback", json={"url": url, "events": {"order": events}}, headers=token(sandbox, connection)
    )
    assert answer.status_code == 200


async def _listed(client: httpx.AsyncClient, count: int, **query: str) -> list[dict]:  # type: ignore[type-arg]
    async def enough() -> bool:
        return len((await client.get("/sandbox/deliveries", params=query)).json()) >= count

    await eventually(enough, f"{count} deliveries listed")
    answer = await client.get("/sandbox/deliveries", params=query)
    assert answer.status_code == 200
    return answer.json()  # type: ignore[no-any-return]


async def test_deliveries_list_the_request_the_receiver_got_and_its_answer(
    sandbox: Sandbox, client: httpx.AsyncClient, worker: DeliveryWorker, receiver: Receiver
) -> None:
    await order_for_the_courier(sandbox, client, receiver, Answer(status=201, body=b'{"thanks": true}'))
    [got] = await asyncio.to_thread(receiver.wait_for, "/courier", 1)

    [listed] = await _listed(client, 1)
    assert {name: listed["request"]["headers"][name] for name in SIGNED} == {name: got.headers[name] for name in SIGNED}
    assert listed["request"]["headers"]["webhook-signature"].startswith("v1,")
    assert listed["request"]["method"] == "POST"
    assert listed["request"]["url"] == receiver.url("/courier")
    assert listed["request"]["body"] == json.loads(got.body)
    assert listed["response"] == {"status": 201, "body_excerpt": '{"thanks": true}', "error": None}
    assert (listed["connection"], listed["event_type"], listed["attempt"], listed["acknowledged"]) == (
        "delivery_app",
        "order.create",
        1,
        True,
    )
    assert listed["event_id"] == got.headers["X-Event-Id"]


async def test_deliveries_are_listed_newest_first_and_filtered_by_connection_and_event_type(
    sandbox: Sandbox, client: httpx.AsyncClient, worker: DeliveryWorker, receiver: Receiver
) -> None:
    await _subscribe(client, sandbox, "delivery_app", receiver.url("/courier"), ["create", "update"])
    await _subscribe(client, sandbox, "pos_paris", receiver.url("/pos"), ["create"])
    site, pos = token(sandbox, "ordering_site_paris"), token(sandbox, "pos_paris")
    made = await client.post("/v1/location/orders", json={"status": "new", "items": []}, headers=site)
    assert made.status_code == 200
    await _listed(client, 2)
    accepted = await client.patch(f"/v1/location/orders/{made.json()['id']}", json={"status": "accepted"}, headers=pos)
    assert accepted.status_code == 200
    everything = await _listed(client, 3)

    def seen(listed: list[dict]) -> list[tuple[str, str]]:  # type: ignore[type-arg]
        return [(entry["connection"], entry["event_type"]) for entry in listed]

    assert seen(everything)[0] == ("delivery_app", "order.update")  # newest first
    assert sorted(seen(everything)[1:]) == [("delivery_app", "order.create"), ("pos_paris", "order.create")]
    assert seen(await _listed(client, 1, connection="pos_paris")) == [("pos_paris", "order.create")]
    by_id = await _listed(client, 1, connection=everything[0]["connection_id"])
    assert seen(by_id) == [("delivery_app", "order.update"), ("delivery_app", "order.create")]
    assert seen(await _listed(client, 1, connection="delivery_app", event_type="order.update")) == [
        ("delivery_app", "order.update")
    ]
    assert sorted(seen(await _listed(client, 2, event_type="order.create"))) == [
        ("delivery_app", "order.create"),
        ("pos_paris", "order.create"),
    ]
    assert (await client.get("/sandbox/deliveries", params={"connection": "nobody"})).json() == []


async def test_a_failed_attempt_is_listed_with_its_status(
    sandbox: Sandbox, client: httpx.AsyncClient, worker: DeliveryWorker, receiver: Receiver
) -> None:
    await order_for_the_courier(sandbox, client, receiver, Answer(status=503, body=b"down"))
    [listed] = await _listed(client, 1)
    assert (listed["response"], listed["acknowledged"]) == (
        {"status": 503, "body_excerpt": "down", "error": None},
        False,
    )


async def test_reset_empties_the_deliveries(
    sandbox: Sandbox, client: httpx.AsyncClient, worker: DeliveryWorker, receiver: Receiver
) -> None:
    await order_for_the_courier(sandbox, client, receiver)
    await _listed(client, 1)
    assert (await client.post("/sandbox/reset")).status_code == 200
    assert (await client.get("/sandbox/deliveries")).json() == []
