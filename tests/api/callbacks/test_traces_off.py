"""docs/operations.md "Traces": with tracing off (the default), nothing is traced: no change
keeps a trace context and no callback POST carries a `traceparent` header."""

from __future__ import annotations

import asyncio

import httpx

from comptoir.callbacks.worker import DeliveryWorker
from comptoir.kit import tracing
from tests.api.callbacks.conftest import Listener, subscribe
from tests.api.conftest import Shop
from tests.api.orders.conftest import order
from tests.factories import World
from tests.receiver import Receiver

CLIENT_TRACE = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


async def test_with_tracing_off_no_trace_context_is_kept_or_sent(
    client: httpx.AsyncClient, shop: Shop, listener: Listener, world: World, receiver: Receiver, worker: DeliveryWorker
) -> None:
    assert not tracing.enabled()
    await subscribe(client, listener.token, {"order": ["create"]}, receiver.url("/hook"))
    headers = {**shop.headers(), "traceparent": CLIENT_TRACE}  # a client's trace is not continued either
    created = await client.post("/v1/location/orders", json=order(), headers=headers)
    assert created.status_code == 200, created.text
    [request] = await asyncio.to_thread(receiver.wait_for, "/hook", 1)
    assert "traceparent" not in {name.lower() for name in request.headers}
    assert [change.traceparent for change in await world.changes()] == [None]  # the test's, not its shop's
