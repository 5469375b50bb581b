"""The synchronous client (`Comptoir`) and its paginator; `_async.py` is the same for asyncio."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

import httpx

from comptoir_client._core import (
    DEFAULT_BASE_URL,
    Op,
    Retries,
    base_headers,
    outcome,
    rate_limit_delay,
    retry_delay,
    root_of,
    transport_error,
)
from comptoir_client.errors import error_of
from comptoir_client.models import Event
from comptoir_client.sse import Decoder, Reconnection, ServerSentEvent

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list, and the cursor of the next (None on the last page)."""

    items: list[T]
    next_cursor: str | None


class Paginator(Generic[T]):
    """A list over all its pages: iterate it for every item, or `.pages()` for each page, the
    next asked for with the `X-Cursor-Next` of the one before (docs/api/conventions.md
    "Pagination").

    Read-ahead: from the second page on, the next page is asked for (in a thread) as soon as a
    page arrives, so the server prepares it while this process builds the current page's
    models. A walk stopped after its first page costs no extra request; one stopped later costs
    at most one (rate limits count it). `pages(read_ahead=False)` asks strictly one at a time."""

    def __init__(self, client: Transport, op: Op[list[T]]) -> None:
        self._client, self._op = client, op

    def __iter__(self) -> Iterator[T]:
        for page in self.pages():
            yield from page.items

    def _at(self, cursor: str | None) -> Op[list[T]]:
        return replace(self._op, params={**self._op.params, "cursor": cursor}) if cursor else self._op

    def pages(self, cursor: str | None = None, *, read_ahead: bool = True) -> Iterator[Page[T]]:
        """Every page from `cursor` (the first page when None) to the last."""
        op, pool, served = self._at(cursor), None, 0
        try:
            response = self._client.send(op)
            while True:
                cursor = response.headers.get("X-Cursor-Next") or None
                following, ahead = (self._at(cursor) if cursor else None), None
                if following is not None and read_ahead and served:
                    pool = pool or ThreadPoolExecutor(max_workers=1, thread_name_prefix="comptoir-read-ahead")
                    sending = threading.Event()
                    ahead = pool.submit(self._client.send, following, None, sending.set)
                    sending.wait(1.0)  # the request leaves before the models are built
                yield Page(outcome(op, response), cursor)
                served += 1
                if following is None:
                    return
                response = ahead.result() if ahead is not None else self._client.send(following)
                op = following
        finally:
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)


class Transport:
    """Sends operations with the retry rules of `Retries`; every resource goes through it."""

    def __init__(
        self,
        token: str,
        base_url: str = DEFAULT_BASE_URL,
        *,
        timeout: float = 30.0,
        retries: Retries | None = None,
        transport: httpx.BaseTransport | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        self.retries = retries or Retries()
        self.headers = base_headers(token)
        self.http = http_client or httpx.Client(base_url=root_of(base_url), timeout=timeout, transport=transport)
        self._owns_http = http_client is None

    def send(
        self, op: Op[T], idempotency_key: str | None = None, sending: Callable[[], None] | None = None
    ) -> httpx.Response:
        """The final answer to `op` (an error answer included), after the retries allowed;
        `sending` is called as the first try goes out."""
        request = self.http.build_request(**op.request(self.headers, idempotency_key))
        if sending is not None:
            sending()
        attempt, waited, waits = 0, 0.0, 0
        while True:
            attempt += 1
            try:
                response = self.http.send(request)
            except httpx.TransportError as error:
                delay = retry_delay(request, attempt, self.retries, error, None)
                if delay is None:
                    raise transport_error(error, request) from error
            else:
                if response.status_code == 429:
                    waits += 1
                    delay = rate_limit_delay(response, self.retries, waited, waits)
                    if delay is None:
                        raise error_of(response)
                    waited += delay
                    attempt -= 1  # a refused request counts toward nothing, our tries included
                else:
                    delay = retry_delay(request, attempt, self.retries, None, response)
                    if delay is None:
                        return response
                response.close()
            time.sleep(delay)

    def run(self, op: Op[T], idempotency_key: str | None = None) -> T:
        return outcome(op, self.send(op, idempotency_key))

    def close(self) -> None:
        if self._owns_http:
            self.http.close()


class EventStream:
    """`GET /v1/callback/stream` (docs/api/callbacks-events.md "Stream"): iterate it for each
    event as its typed `Event`, backlog first, then live, for as long as the stream is held;
    `messages()` gives the same as raw Server-Sent Events (the `data` exactly as sent).

    A dropped connection, a 5xx or the server ending the answer is followed by a new one,
    after the `retry:` delay the server asked for (longer after failures in a row), resuming
    after the last event handed out (sse.Reconnection). An answer that another try would not
    change (401, 403, 409 while the callback has a URL) raises its typed error. Nothing is
    acknowledged here: `client.callback.acknowledge(event.id)` once the event is handled.
    `reopen_every` (seconds) replaces the connection once it is that old, between messages.
    """

    def __init__(
        self,
        transport: Transport,
        last_event_id: str | None = None,
        *,
        resume: bool = True,
        reopen_every: float | None = None,
    ) -> None:
        self._t = transport
        self._reconnection = Reconnection(last_event_id, resume=resume, reopen_every=reopen_every)
        self._closed = False
        self._messages = self._read()

    @property
    def last_event_id(self) -> str | None:
        """The id of the last event handed out (or the one given to start after)."""
        return self._reconnection.last_event_id

    def __iter__(self) -> Iterator[Event]:
        for message in self._messages:
            yield Event.model_validate_json(message.data)

    def messages(self) -> Iterator[ServerSentEvent]:
        return self._messages

    def close(self) -> None:
        self._closed = True
        self._messages.close()

    def __enter__(self) -> EventStream:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _read(self) -> Generator[ServerSentEvent, None, None]:
        while not self._closed:
            wait = yield from self._connection()
            if not self._closed and wait > 0:
                time.sleep(wait)

    def _connection(self) -> Generator[ServerSentEvent, None, float]:
        """The messages of one connection; returns the wait before the next."""
        reconnection, decoder = self._reconnection, Decoder()
        try:
            with self._t.http.stream(**reconnection.request(self._t.headers)) as response:
                if response.status_code != 200:
                    response.read()
                wait = reconnection.opened(response)
                if wait is not None:
                    return wait
                for chunk in response.iter_bytes():
                    for message in decoder.feed(chunk):
                        reconnection.received(decoder, message)
                        yield message
                    if reconnection.old(decoder):
                        return reconnection.ended(decoder, old=True)
        except httpx.TransportError as error:
            return reconnection.ended(decoder, error)
        return reconnection.ended(decoder)
