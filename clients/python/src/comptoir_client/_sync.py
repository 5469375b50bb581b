"""The synchronous client (`Comptoir`) and its paginator; `_async.py` is the same for asyncio."""

from __future__ import annotations

import time
from collections.abc import Iterator
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

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list, and the cursor of the next (None on the last page)."""

    items: list[T]
    next_cursor: str | None


class Paginator(Generic[T]):
    """A list over all its pages: iterate it for every item, or `.pages()` for each page, the
    next asked for with the `X-Cursor-Next` of the one before (docs/api/conventions.md
    "Pagination")."""

    def __init__(self, client: Transport, op: Op[list[T]]) -> None:
        self._client, self._op = client, op

    def __iter__(self) -> Iterator[T]:
        for page in self.pages():
            yield from page.items

    def pages(self, cursor: str | None = None) -> Iterator[Page[T]]:
        """Every page from `cursor` (the first page when None) to the last."""
        while True:
            op = replace(self._op, params={**self._op.params, "cursor": cursor}) if cursor else self._op
            response = self._client.send(op)
            cursor = response.headers.get("X-Cursor-Next") or None
            yield Page(outcome(op, response), cursor)
            if cursor is None:
                return


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

    def send(self, op: Op[T], idempotency_key: str | None = None) -> httpx.Response:
        """The final answer to `op` (an error answer included), after the retries allowed."""
        request = self.http.build_request(**op.request(self.headers, idempotency_key))
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
