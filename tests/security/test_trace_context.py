"""A client's `traceparent` header (docs/operations.md "Traces"): a valid one is continued
(its trace id, our span ids), anything else is ignored; no request breaks on it, and what
an outbox row keeps is always what our tracer produced, never the header as sent. A stored
context that is not one of ours is not continued by the delivery worker either."""

# ruff: noqa: F811 - the fixtures are imported, then named as parameters
from __future__ import annotations

import asyncio
import logging

import httpx
import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from sqlalchemy import update

from comptoir.callbacks.worker import DeliveryWorker
from comptoir.kit.tracing import TRACEPARENT
from comptoir.models import Change
from tests.api.callbacks.conftest import Listener, fast_retries, listener, receiver, subscribe, worker  # noqa: F401
from tests.api.callbacks.traced import app, database, spans  # noqa: F401
from tests.api.conftest import Shop, client, shop, world  # noqa: F401
from tests.api.orders.conftest import order
from tests.factories import World
from tests.receiver import Receiver

CLIENT_TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
CLIENT_TRACE = f"00-{CLIENT_TRACE_ID}-b7ad6b7169203331-01"

MALFORMED = [
    "garbage",
    "00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01",  # uppercase hex
    "00-00000000000000000000000000000000-b7ad6b7169203331-01",  # all-zero trace id
    "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",  # all-zero span id
    "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",  # the forbidden version
    "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",  # version 00 is 55 characters
    "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",  # no flags
    "00-" + "a" * 8000 + "-b7ad6b7169203331-01",  # oversized
]


async def _post_order(client: httpx.AsyncClient, shop: Shop, traceparent: str) -> httpx.Response:
    headers = {**shop.headers(), "traceparent": traceparent, "tracestate": "x=" + "y" * 4000}
    return await client.post("/v1/location/orders", json=order(), headers=headers)


async def _stored(world: World) -> list[str | None]:
    return [change.traceparent for change in await world.changes()]  # the test's, not its shop's


def _server_span_ids(spans: InMemorySpanExporter) -> tuple[str, str]:
    [server] = [span for span in spans.get_finished_spans() if span.name == "POST /v1/location/orders"]
    assert server.context is not None
    return f"{server.context.trace_id:032x}", f"{server.context.span_id:016x}"


async def test_a_valid_client_traceparent_is_continued_with_our_span_ids(
    client: httpx.AsyncClient, shop: Shop, world: World, spans: InMemorySpanExporter
) -> None:
    created = await _post_order(client, shop, CLIENT_TRACE)
    assert created.status_code == 200, created.text
    trace_id, span_id = _server_span_ids(spans)
    assert trace_id == CLIENT_TRACE_ID
    [stored] = await _stored(world)
    assert stored is not None
    assert stored != CLIENT_TRACE
    assert stored.startswith(f"00-{CLIENT_TRACE_ID}-{span_id}-")


async def test_a_malformed_or_oversized_traceparent_starts_a_trace_of_our_own(
    client: httpx.AsyncClient, shop: Shop, world: World, spans: InMemorySpanExporter
) -> None:
    for traceparent in MALFORMED:
        spans.clear()
        created = await _post_order(client, shop, traceparent)
        assert created.status_code == 200, (traceparent[:80], created.text)
        trace_id, span_id = _server_span_ids(spans)
        assert trace_id != CLIENT_TRACE_ID
        [stored] = [value for value in await _stored(world) if value is not None and span_id in value]
        assert TRACEPARENT.fullmatch(stored)
        assert stored.split("-")[1:3] == [trace_id, span_id]
    assert len(await _stored(world)) == len(MALFORMED)


async def test_malformed_trace_headers_put_nothing_of_theirs_in_the_logs(
    client: httpx.AsyncClient, shop: Shop, spans: InMemorySpanExporter, caplog: pytest.LogCaptureFixture
) -> None:
    headers = {
        **shop.headers(),
        "traceparent": CLIENT_TRACE,
        "tracestate": "INJECTED=" + "y" * 4000 + ",dup=1,dup=2",
        "baggage": "INJECTED-" + "z" * 9000,
    }
    with caplog.at_level(logging.DEBUG):
        created = await client.post("/v1/location/orders", json=order(), headers=headers)
    assert created.status_code == 200, created.text
    assert "INJECTED" not in caplog.text


async def test_a_stored_context_not_of_ours_is_not_continued_by_the_delivery(
    client: httpx.AsyncClient,
    shop: Shop,
    listener: Listener,
    world: World,
    receiver: Receiver,
    worker: DeliveryWorker,
    spans: InMemorySpanExporter,
) -> None:
    await subscribe(client, listener.token, {"order": ["create"]})  # passive: nothing sent yet
    created = await _post_order(client, shop, CLIENT_TRACE)
    assert created.status_code == 200, created.text
    async with world.db.transaction() as session:
        await session.execute(update(Change).values(traceparent="00-" + "f" * 32 + "-zz"))
    await subscribe(client, listener.token, {"order": ["create"]}, receiver.url("/hook"))
    [request] = await asyncio.to_thread(receiver.wait_for, "/hook", 1)
    sent = request.headers["traceparent"]
    assert TRACEPARENT.fullmatch(sent)
    assert sent.split("-")[1] not in (CLIENT_TRACE_ID, "f" * 32)  # a trace of its own


async def test_a_lists_filter_values_never_reach_a_span(
    client: httpx.AsyncClient, shop: Shop, spans: InMemorySpanExporter
) -> None:
    listed = await client.get(
        "/v1/location/orders",
        params={"customer_id": "x", "status": "new", "q": "ada@example.com"},
        headers=shop.headers(),
    )
    assert (listed.status_code, listed.json()) == (200, []), listed.text  # no order of that customer
    [server] = [span for span in spans.get_finished_spans() if span.name.startswith("GET /v1/location/orders")]
    assert server.attributes is not None
    assert server.attributes["url.query"] == "customer_id=_&status=_&q=_"
    assert all(
        "ada@example.com" not in str(value)
        for span in spans.get_finished_spans()
        for value in (span.attributes or {}).values()
    )
