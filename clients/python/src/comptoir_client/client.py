"""`Comptoir` and `AsyncComptoir`: one attribute per resource of the `/v1` API.

with Comptoir(token="...", base_url="https://comptoir.example") as client:
    for order in client.orders.list():   # the token's location, every page, following X-Cursor-Next
        print(order.id, order.status)
"""

from __future__ import annotations

import httpx

from comptoir_client import async_resources as ar
from comptoir_client import resources as r
from comptoir_client._async import AsyncTransport
from comptoir_client._core import DEFAULT_BASE_URL, Retries
from comptoir_client._sync import Transport


class Comptoir:
    """The synchronous client. `retries` bounds its retries and 429 waits; `transport` or
    `http_client` replace httpx's defaults (proxies, tests): an `http_client` is used as given,
    its own `base_url` and timeout included, and is not closed by `close()`."""

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
        self._transport = Transport(
            token, base_url, timeout=timeout, retries=retries, transport=transport, http_client=http_client
        )
        self.locations = r.Locations(self._transport)
        self.accounts = r.Accounts(self._transport)
        self.user = r.Users(self._transport)
        self.orders = r.Orders(self._transport)
        self.deliveries = r.Deliveries(self._transport)
        self.customer_lists = r.CustomerLists(self._transport)
        self.customers = r.Customers(self._transport)
        self.loyalty = r.Loyalty(self._transport)
        self.catalogs = r.Catalogs(self._transport)
        self.callback = r.Callback(self._transport)
        # the callback's events by another name: `client.events.stream()`, `.acknowledge(id)`
        self.events = self.callback

    def close(self) -> None:
        self._transport.close()

    def __enter__(self) -> Comptoir:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class AsyncComptoir:
    """The asyncio client: the same resources, each call awaited, each list `async for`."""

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
        self._transport = AsyncTransport(
            token, base_url, timeout=timeout, retries=retries, transport=transport, http_client=http_client
        )
        self.locations = ar.Locations(self._transport)
        self.accounts = ar.Accounts(self._transport)
        self.user = ar.Users(self._transport)
        self.orders = ar.Orders(self._transport)
        self.deliveries = ar.Deliveries(self._transport)
        self.customer_lists = ar.CustomerLists(self._transport)
        self.customers = ar.Customers(self._transport)
        self.loyalty = ar.Loyalty(self._transport)
        self.catalogs = ar.Catalogs(self._transport)
        self.callback = ar.Callback(self._transport)
        self.events = self.callback  # as in `Comptoir`

    async def aclose(self) -> None:
        await self._transport.close()

    async def __aenter__(self) -> AsyncComptoir:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
