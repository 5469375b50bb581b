"""The synchronous client (`Comptoir`) and its paginator; `_async.py` is the same for asyncio."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
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
