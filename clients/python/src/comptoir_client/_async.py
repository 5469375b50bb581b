"""The asyncio client (`AsyncComptoir`) and its paginator: `_sync.py` for asyncio."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import replace
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
from comptoir_client._sync import Page
from comptoir_client.errors import error_of
from comptoir_client.models import Event
from comptoir_client.sse import Decoder, Reconnection, ServerSentEvent

T = TypeVar("T")


class AsyncPaginator(Generic[T]):
    """`Paginator` for asyncio: `async for` every item, or `.pages()` for each page."""

    def __init__(self, client: AsyncTransport, op: Op[list[T]]) -> None:
        self._client, self._op = client, op

    async def __aiter__(self) -> AsyncIterator[T]:
        async for page in self.pages():
            for item in page.items:
                yield item

    async def pages(self, cursor: str | None = None) -> AsyncIterator[Page[T]]:
        """Every page from `cursor` (the first page when None) to the last."""
        while True:
            op = replace(self._op, params={**self._op.params, "cursor": cursor}) if cursor else self._op
            response = await self._client.send(op)
            cursor = response.headers.get("X-Cursor-Next") or None
            yield Page(outcome(op, response), cursor)
            if cursor is None:
                return


class AsyncTransport:
    """`Transport` for asyncio: the same retry rules."""

    def __init__(
        self,
        token: str,
        base_url: str = DEFAULT_BASE_URL,
        *,
        timeout: float = 30.0,
        retries: Retries | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self.retries = retries or Retries()
        self.headers = base_headers(token)
        self.http = http_client or httpx.AsyncClient(base_url=root_of(base_url), timeout=timeout, transport=transport)
        self._owns_http = http_client is None

    async def send(self, op: Op[T], idempotency_key: str | None = None) -> httpx.Response:
        request = self.http.build_request(**op.request(self.headers, idempotency_key))
        attempt, waited, waits = 0, 0.0, 0
        while True:
            attempt += 1
            try:
                response = await self.http.send(request)
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
                    attempt -= 1
                else:
                    delay = retry_delay(request, attempt, self.retries, None, response)
                    if delay is None:
                        return response
                await response.aclose()
            await asyncio.sleep(delay)

    async def run(self, op: Op[T], idempotency_key: str | None = None) -> T:
        return outcome(op, await self.send(op, idempotency_key))

    async def close(self) -> None:
        if self._owns_http:
            await self.http.aclose()


class AsyncEventStream:
    """`EventStream` for asyncio: `async for event in client.callback.stream()`, the same
    reconnections and resumption (sse.Reconnection); `aclose()` ends it."""

    def __init__(
        self,
        transport: AsyncTransport,
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

    async def __aiter__(self) -> AsyncIterator[Event]:
        async for message in self._messages:
            yield Event.model_validate_json(message.data)

    def messages(self) -> AsyncIterator[ServerSentEvent]:
        return self._messages

    async def aclose(self) -> None:
        self._closed = True
        await self._messages.aclose()

    async def __aenter__(self) -> AsyncEventStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def _read(self) -> AsyncGenerator[ServerSentEvent, None]:
        reconnection = self._reconnection
        while not self._closed:
            decoder = Decoder()
            wait: float | None = None
            try:
                async with self._t.http.stream(**reconnection.request(self._t.headers)) as response:
                    if response.status_code != 200:
                        await response.aread()
                    wait = reconnection.opened(response)
                    if wait is None:
                        async for chunk in response.aiter_bytes():
                            for message in decoder.feed(chunk):
                                reconnection.received(decoder, message)
                                yield message
                            if reconnection.old(decoder):
                                wait = reconnection.ended(decoder, old=True)
                                break
            except httpx.TransportError as error:
                wait = reconnection.ended(decoder, error)
            if wait is None:
                wait = reconnection.ended(decoder)
            if not self._closed and wait > 0:
                await asyncio.sleep(wait)
