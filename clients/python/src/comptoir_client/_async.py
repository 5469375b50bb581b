"""The asyncio client (`AsyncComptoir`) and its paginator: `_sync.py` for asyncio."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
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
