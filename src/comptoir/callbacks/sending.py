"""One POST to a callback URL: what the delivery worker sends for each event and what a test
event sends (docs/api/callbacks-events.md "Delivery", "Testing, resending and replaying").

The HTTP client (`http_client`, `callbacks/client.py`) resolves every name through
`GuardedResolver` and connects to the checked address; an address literal is checked before
the POST (`literal_refusal`). Redirects are not followed. An answer 200-499 received whole (its
body read up to 1 MB) within the client's timeout acknowledges; anything else is a failed
attempt. The client keeps its connections alive per origin, so a lane's POSTs share one.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from yarl import URL

from comptoir.callbacks.addresses import RefusedAddress, literal_address, refusal
from comptoir.callbacks.client import CallbackClient, ConnectError, Reply
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


def http_client(timeout: float, allowed: Sequence[IPNetwork], limit: int) -> CallbackClient:
    """The client of callback POSTs: the timeout covers the whole answer; at most `limit`
    idle connections kept."""
    return CallbackClient(
        timeout, allowed, limit, user_agent=USER_AGENT, excerpt=EXCERPT_BYTES, max_counted=MAX_COUNTED
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
    http: CallbackClient, url: str, body: bytes, headers: dict[str, str], allowed: Sequence[IPNetwork]
) -> Outcome:
    """POST `body` once; never raises for what the receiver or the network does."""
    attempted_at = clock.now()
    started = time.perf_counter()
    status: int | None = None
    error: str | None = None
    excerpt: str | None = None
    size: int | None = None
    reply = Reply()
    try:
        refused = literal_refusal(url, allowed)
        if refused is not None:  # an address literal: no resolver sees it
            raise RefusedAddress(refused)
        # a client span per POST, sending `traceparent`, while tracing is on (docs/operations.md "Traces")
        with tracing.client_span("POST", url, headers) as answer:
            try:
                await http.post(url, body, headers, reply)
            finally:
                answer["status"] = status = reply.status
        excerpt = printable(reply.start.decode("utf-8", "replace"), EXCERPT_CHARS)
        size = reply.counted if reply.length is None else reply.length
    except RefusedAddress as exc:
        error = f"refused: {exc.reason}"
    except TimeoutError:
        error = "timeout"
    except ConnectError:
        error = "connect_error"
    except Exception as exc:  # any other failure is a failed attempt, never a crashed lane
        error = type(exc).__name__
    duration_ms = round((time.perf_counter() - started) * 1000)
    error = None if error is None else storable(error, MAX_ERROR)
    return Outcome(attempted_at, clock.now(), duration_ms, status, error, excerpt, size)
