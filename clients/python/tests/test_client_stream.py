"""`client.callback.stream()` against a real `comptoir serve`, on both databases
(docs/api/callbacks-events.md "Stream"): the backlog then live events, typed; a dropped
connection resumed with nothing lost and nothing repeated; the asyncio form."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from client_live_server import Live
from tests.waiting import PATIENCE, as_in_a_terminal, wait_until

from comptoir_client import AsyncComptoir, Comptoir, Retries
from comptoir_client.models import Event

pytestmark = pytest.mark.e2e
NOTE = "one\u2028two\u0085three"  # line separators for str.splitlines(), not for Server-Sent Events


def listener(live: Live) -> str:
    """The token of a new application's connection to the first location, with a passive
    callback of order creations (a client never receives its own changes: the demo token
    writes the orders)."""
    _client_id, _secret, token = live.connection(f"Tablet {uuid.uuid4().hex[:6]}")
    with live.client(token) as client:
        client.callback.set(None, {"order": ["create"]})
    return token


def new_order(live: Live, note: str = "") -> str:
    with live.client() as writer:
        return writer.orders.create(live.location_id, {"status": "new", "seller_notes": note or None}).id


def test_the_stream_gives_the_backlog_then_live_events_typed(live: Live) -> None:
    with live.client(listener(live)) as client:
        backlog = [new_order(live, NOTE), new_order(live)]
        with client.callback.stream() as stream:
            events = iter(stream)
            first, second = next(events), next(events)
            live_order = new_order(live)
            third = next(events)
        assert all(isinstance(event, Event) for event in (first, second, third))
        assert [event.order_id for event in (first, second, third)] == [*backlog, live_order]
        assert [(event.resource_type, event.event_type) for event in (first, third)] == [("order", "create")] * 2
        assert first.new_state is not None
        assert first.new_state["seller_notes"] == NOTE
        assert stream.last_event_id == third.id
        assert [summary.id for summary in client.callback.list_events()] == [first.id, second.id, third.id]
        for event in (first, second, third):
            client.callback.acknowledge(event.id)
        assert list(client.callback.list_events()) == []


def test_client_events_is_the_callbacks_events_by_another_name(live: Live) -> None:
    with live.client(listener(live)) as client:
        order = new_order(live)
        with client.events.stream() as stream:
            event = next(iter(stream))
        assert event.order_id == order
        client.events.acknowledge(event.id)
        assert list(client.callback.list_events()) == []


class DropStreamOnce(httpx.HTTPTransport):
    """The first stream's answer breaks off after `after` whole messages and half of the next,
    as a lost connection; every stream request's Last-Event-ID is kept."""

    def __init__(self, after: int) -> None:
        super().__init__()
        self.after, self.dropped = after, False
        self.last_event_ids: list[str | None] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if request.url.path != "/v1/callback/stream":
            return response
        self.last_event_ids.append(request.headers.get("Last-Event-ID"))
        if self.dropped:
            return response
        self.dropped = True
        return httpx.Response(response.status_code, headers=response.headers, stream=self._cut(response))

    def _cut(self, response: httpx.Response) -> httpx.SyncByteStream:
        after = self.after

        class Cut(httpx.SyncByteStream):
            def __iter__(self) -> Iterator[bytes]:
                seen = b""
                for chunk in response.iter_raw():
                    seen += chunk
                    ends = [m.end() for m in re.finditer(rb"data: [^\n]*\n\n", seen)]
                    if len(ends) > after:
                        yield seen[: ends[after - 1]] + seen[ends[after - 1] :][:20]
                        response.close()
                        raise httpx.ReadError("connection reset by peer")

        return Cut()


def test_a_dropped_stream_resumes_after_the_last_event_with_nothing_lost_or_repeated(live: Live) -> None:
    token = listener(live)
    backlog = [new_order(live) for _ in range(3)]
    transport = DropStreamOnce(after=2)
    retries = Retries(backoff=0.01, max_backoff=0.05)
    with Comptoir(token, live.base_url, transport=transport, retries=retries) as client:
        stream = client.callback.stream()
        events = iter(stream)
        got = [next(events), next(events)]
        while_away = new_order(live)  # recorded while the (cut) connection shows nothing more
        got += [next(events), next(events)]
        after = new_order(live)
        got.append(next(events))
        stream.close()
        assert [event.order_id for event in got] == [*backlog, while_away, after]
        assert len({event.id for event in got}) == 5
        assert transport.last_event_ids == [None, got[1].id]


async def test_the_async_stream_gives_the_backlog_then_live_events(live: Live) -> None:
    token = listener(live)
    backlog = new_order(live)
    async with (
        AsyncComptoir(token, live.base_url) as client,
        client.callback.stream() as stream,
    ):
        events = aiter(stream)
        first = await anext(events)
        live_order = new_order(live)  # a blocking call: the server answers meanwhile, alone
        second = await anext(events)
        assert [type(first), type(second)] == [Event, Event]
        assert [first.order_id, second.order_id] == [backlog, live_order]
        assert (await client.callback.acknowledge(first.id)).id == first.id


def test_the_kitchen_display_example_prints_each_new_order_and_acknowledges_it(live: Live) -> None:
    token = listener(live)
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")}
    env |= {"COMPTOIR_URL": live.base_url, "COMPTOIR_TOKEN": token}
    item = {"product_name": "Croque-monsieur", "price": "7.50 EUR", "quantity": 2}
    with live.client() as writer:
        waiting = writer.orders.create(live.location_id, {"status": "new", "items": [item]}).id
    example = Path(__file__).resolve().parents[3] / "examples" / "kitchen_display.py"
    process = subprocess.Popen(
        as_in_a_terminal([sys.executable, str(example)]),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline() == f"== order {waiting}  15.00 EUR\n"
        assert process.stdout.readline() == "2.0 x Croque-monsieur\n"  # quantities are decimals on the wire
        with live.client() as writer:
            arrived = writer.orders.create(live.location_id, {"status": "new", "seller_notes": "no onions"}).id
        assert process.stdout.readline() == f"== order {arrived}  0.00 EUR\n"
        assert process.stdout.readline() == "   note: no onions\n"
        with live.client(token) as client:
            wait_until(lambda: list(client.callback.list_events()) == [], "both events acknowledged")
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=PATIENCE)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert (process.returncode, out, err) == (0, "closed\n", "")
