"""One POST to a callback URL: what the delivery worker sends for each event and what a test
event sends (docs/api/callbacks-events.md "Delivery", "Testing, resending and replaying").

The HTTP client (`http_client`) resolves every name through `GuardedResolver` and connects
to the checked address; an address literal is checked before the POST (`literal_refusal`).
Redirects are not followed. An answer 200-499 received whole (its body read up to 1 MB)
within the client's timeout acknowledges; anything else is a failed attempt.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import aiohttp
from yarl import URL

from comptoir.callbacks.addresses import GuardedResolver, RefusedAddress, literal_address, refusal
from comptoir.config import IPNetwork
from comptoir.kit import clock, tracing
from comptoir.kit.safetext import printable, storable

EXCERPT_CHARS = 200  # of a reply kept, as text only (what the back office shows)
EXCERPT_BYTES = 4 * EXCERPT_CHARS
MAX_COUNTED = 1 << 20  # a reply's size is counted up to 1 MB when it has no Content-Length
MAX_ERROR = 80  # delivery_attempts.error
USER_AGENT = "Comptoir-Callbacks/1"


@dataclass(slots=True)
class Outcome:
    attempted_at: datetime
    finished_at: datetime
    duration_ms: int
    status_code: int | None
    error: str | None
    excerpt: str | None
    size: int | None = None

    @property
    def acknowledged(self) -> bool:
        # docs/api/callbacks-events.md "Retries": any status 200-499 acknowledges, even a 4xx
        # (and a 3xx), when the whole answer arrives within the timeout: a reply whose body
        # stalls or breaks off after its status line is a failed attempt
        return self.error is None and self.status_code is not None and 200 <= self.status_code <= 499


def http_client(timeout: float, allowed: Sequence[IPNetwork], limit: int) -> aiohttp.ClientSession:
    """The client of callback POSTs: the timeout covers the whole answer."""
    return aiohttp.ClientSession(
        timeout=aiohttp.ClientTimeout(total=timeout),
        # every name is resolved by the guard, and the connection goes to the checked address
        connector=aiohttp.TCPConnector(limit=limit, ttl_dns_cache=60, resolver=GuardedResolver(allowed)),
        headers={"User-Agent": USER_AGENT},
        # a client span per POST, sending `traceparent`, while tracing is on (docs/operations.md "Traces")
        trace_configs=tracing.client_trace_configs(),
    )


def literal_refusal(url: str, allowed: Sequence[IPNetwork]) -> str | None:
    """Why a URL whose host is an address literal may not be reached (None for a name)."""
    try:
        host = URL(url).raw_host or ""
    except ValueError:
        return None
    ip = literal_address(host)
    return None if ip is None else refusal(ip, allowed)


async def post(
    http: aiohttp.ClientSession, url: str, body: bytes, headers: dict[str, str], allowed: Sequence[IPNetwork]
) -> Outcome:
    """POST `body` once; never raises for what the receiver or the network does."""
    attempted_at = clock.now()
    started = time.perf_counter()
    status: int | None = None
    error: str | None = None
    excerpt: str | None = None
    size: int | None = None
    try:
        refused = literal_refusal(url, allowed)
        if refused is not None:  # an address literal: no resolver sees it
            raise RefusedAddress(refused)
        async with http.post(url, data=body, headers=headers, allow_redirects=False) as response:
            status = response.status
            start = await _read_start(response.content, EXCERPT_BYTES)
            excerpt = printable(start.decode("utf-8", "replace"), EXCERPT_CHARS)
            # the body (its first MB) must arrive within the timeout too, announced size or not
            counted = len(start) + await _count_rest(response.content, MAX_COUNTED)
            size = response.content_length
            if size is None or size < 0:
                size = counted
    except RefusedAddress as exc:
        error = f"refused: {exc.reason}"
    except TimeoutError:
        error = "timeout"
    except aiohttp.ClientConnectorError as exc:
        os_error = getattr(exc, "os_error", None)
        error = f"refused: {os_error.reason}" if isinstance(os_error, RefusedAddress) else "connect_error"
    except Exception as exc:  # any other failure is a failed attempt, never a crashed lane
        error = type(exc).__name__
    duration_ms = round((time.perf_counter() - started) * 1000)
    error = None if error is None else storable(error, MAX_ERROR)
    return Outcome(attempted_at, clock.now(), duration_ms, status, error, excerpt, size)


async def _read_start(content: aiohttp.StreamReader, limit: int) -> bytes:
    """The first `limit` bytes of a body, however it arrives in chunks."""
    data = b""
    while len(data) < limit:
        chunk = await content.read(limit - len(data))
        if not chunk:
            break
        data += chunk
    return data


async def _count_rest(content: aiohttp.StreamReader, limit: int) -> int:
    """How many more bytes the body has, counted up to `limit`."""
    counted = 0
    while counted < limit:
        chunk = await content.read(min(65536, limit - counted))
        if not chunk:
            break
        counted += len(chunk)
    return counted
