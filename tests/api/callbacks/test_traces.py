"""docs/operations.md "Traces": with tracing on, an order's POST, its SQL, the outbox row,
the worker's delivery and the callback POST are one trace, which the receiver continues."""

from __future__ import annotations

import asyncio

import httpx
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from comptoir.callbacks.worker import DeliveryWorker
from tests.api.callbacks.conftest import Listener, subscribe
from tests.api.callbacks.traced import app, database, spans, trace_of  # noqa: F401 (fixtures)
from tests.api.conftest import Shop
from tests.api.orders.conftest import order
from tests.factories import World
from tests.receiver import Receiver
from tests.waiting import eventually


async def test_an_order_and_its_delivery_are_one_trace_the_receiver_continues(
    client: httpx.AsyncClient,
    shop: Shop,
    listener: Listener,
    world: World,
    receiver: Receiver,
    worker: DeliveryWorker,
    spans: InMemorySpanExporter,  # noqa: F811
) -> None:
    await subscribe(client, listener.token, {"order": ["create"]}, receiver.url("/hook"))
    created = await client.post("/v1/location/orders", json=order(), headers=shop.headers())
    assert created.status_code == 200, created.text
    [request] = await asyncio.to_thread(receiver.wait_for, "/hook", 1)
    spans_of_trace: list[ReadableSpan] = []

    async def delivery_ended() -> bool:  # the delivery's spans end once the reply is read
        nonlocal spans_of_trace
        spans_of_trace = trace_of(spans, "POST /v1/location/orders")
        return {"deliver event", "POST"} <= {span.name for span in spans_of_trace}

    await eventually(delivery_ended, "the delivery's spans")
    by_name = {span.name: span for span in spans_of_trace}
    server, delivery, post = by_name["POST /v1/location/orders"], by_name["deliver event"], by_name["POST"]
    assert server.kind == SpanKind.SERVER
    assert server.parent is None
    assert delivery.kind == SpanKind.CONSUMER
    assert post.kind == SpanKind.CLIENT
    assert server.context is not None
    assert delivery.context is not None
    assert post.context is not None
    assert delivery.parent is not None
    assert delivery.parent.span_id == server.context.span_id
    assert post.parent is not None
    assert post.parent.span_id == delivery.context.span_id
    statements = [span for span in spans_of_trace if span.attributes and "db.system.name" in span.attributes]
    assert any(span.parent is not None and span.parent.span_id == server.context.span_id for span in statements)
    trace_id = f"{server.context.trace_id:032x}"
    flags = f"{int(server.context.trace_flags):02x}"  # sampled (and, from this SDK, a random trace id)
    assert request.headers["traceparent"] == f"00-{trace_id}-{post.context.span_id:016x}-{flags}"
    stored = [change.traceparent for change in await world.changes()]  # the test's, not its shop's
    assert stored == [f"00-{trace_id}-{server.context.span_id:016x}-{flags}"]
    # the worker polled every 50 ms meanwhile, outside any span: no trace of its own
    roots = {span.name for span in spans.get_finished_spans() if span.parent is None}
    assert roots == {"POST /v1/callback", "POST /v1/location/orders"}
