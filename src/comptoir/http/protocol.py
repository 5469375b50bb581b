"""The HTTP/1.1 protocol `comptoir serve` runs: uvicorn's httptools protocol, with what uvicorn
lacks against slow clients (docs/operations.md "Slow clients and connections").

- **Headers**: a request's headers must be complete within COMPTOIR_HEADER_TIMEOUT_SECONDS
  of its first byte (of the connection, for its first request: a connection that sends
  nothing is closed too). Past it the connection is closed, after a 408 when part of a
  request has arrived.
- **Body**: a body may pause at most COMPTOIR_BODY_TIMEOUT_SECONDS, and after that grace it
  must average COMPTOIR_BODY_MIN_BYTES_PER_SECOND: by `t` seconds after the headers,
  `(t - timeout) x rate` bytes must have arrived. Past either rule the connection is closed,
  after a 408 when the response has not started. While Comptoir itself has not taken what
  arrived (reading paused, or a `100 Continue` not sent yet), the clock runs for no one.
- **Cap**: a connection opened while COMPTOIR_MAX_CONNECTIONS are open in this process is
  answered 503 (`Retry-After: 1`, `Connection: close`) once its request headers are read.

Only timers are added: one per request while its headers arrive, one per request with a
body while the body arrives; a timer that fires early re-arms itself at the new deadline.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog
from starlette.types import Receive, Scope, Send
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn.server import ServerState

from comptoir.config import Settings
from comptoir.errors import ComptoirError, RequestTimeout, ServiceUnavailable, framed
from comptoir.http.middleware import answer, error_answer

log = structlog.get_logger("comptoir.http")

HEADERS_LATE = RequestTimeout("The request headers did not arrive in time")
BODY_LATE = RequestTimeout("The request body did not arrive in time")
OVER_CAP = ServiceUnavailable()


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    header_timeout: float
    body_timeout: float
    body_min_rate: float  # bytes per second
    max_connections: int

    @classmethod
    def from_settings(cls, settings: Settings) -> ConnectionLimits:
        return cls(
            settings.header_timeout_seconds,
            settings.body_timeout_seconds,
            float(settings.body_min_bytes_per_second),
            settings.connection_cap,
        )


@functools.cache
def limits() -> ConnectionLimits:
    """Read once per process: `--workers N` starts each process from the environment."""
    return ConnectionLimits.from_settings(Settings())


CLOSE = (b"connection", b"close")


def error_response(error: ComptoirError, default_headers: list[tuple[bytes, bytes]]) -> bytes:
    """A complete HTTP/1.1 answer: the error's frame (`errors.framed`) after the server's
    `default_headers`, closing the connection."""
    status, headers, body = framed(error)
    head = [STATUS_LINE[status]]
    for name, value in [*default_headers, *headers, CLOSE]:
        head += [name, b": ", value, b"\r\n"]
    return b"".join([*head, b"\r\n", body])


async def over_capacity(scope: Scope, receive: Receive, send: Send) -> None:
    """The application a connection past the cap gets instead of Comptoir's."""
    await answer(send, *error_answer(OVER_CAP, [CLOSE]))


# What a graceful shutdown (SIGTERM) tells the responses that never end by themselves (the
# event streams, docs/api/callbacks-events.md "Stream"): uvicorn stops accepting connections
# and waits for the open responses to end before the application stops.
_draining: set[Callable[[], None]] = set()


def on_drain(callback: Callable[[], None]) -> Callable[[], None]:
    """Call `callback` when this process begins its graceful shutdown; returns the unsubscriber."""
    _draining.add(callback)
    return lambda: _draining.discard(callback)


def drain() -> None:
    """The process is shutting down: the open responses that wait for more to send end now."""
    for callback in list(_draining):
        callback()


class ComptoirHttpProtocol(HttpToolsProtocol):
    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.limits = limits()
        self._header_timer: asyncio.TimerHandle | None = None
        self._header_deadline = 0.0
        self._request_begun = False  # some bytes of a request whose headers are incomplete
        self._body_timer: asyncio.TimerHandle | None = None
        self._body_start = 0.0  # when the rate rule's clock started (moved on by server waits)
        self._body_last = 0.0  # when the last body bytes arrived (or the server last waited)
        self._body_bytes = 0
        self._over_cap = False

    # --- the connection -------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.limits.max_connections:
            self._over_cap = True
            self.app = over_capacity  # this connection's only answer (it closes the connection)
            log.warning("connection_over_cap", open=len(self.connections), cap=self.limits.max_connections)
        self._arm_header_timer()

    def shutdown(self) -> None:
        if self.cycle is not None and not self.cycle.response_complete:
            drain()  # a response in progress may be a stream, which ends only when told
        super().shutdown()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        self._cancel_body_timer()
        super().connection_lost(exc)

    # --- headers --------------------------------------------------------------------------

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._request_begun = True
        if self._header_timer is None:  # a later request on a kept-alive connection
            self._arm_header_timer()

    def on_headers_complete(self) -> None:
        self._request_begun = False
        self._cancel_header_timer()
        super().on_headers_complete()
        if self._has_body():
            now = self.loop.time()
            self._body_start = self._body_last = now
            self._body_bytes = 0
            self._body_timer = self.loop.call_at(now + self.limits.body_timeout, self._check_body)

    def _arm_header_timer(self) -> None:
        self._header_deadline = self.loop.time() + self.limits.header_timeout
        self._header_timer = self.loop.call_at(self._header_deadline, self._check_headers)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _check_headers(self) -> None:
        self._header_timer = None
        if self.transport.is_closing():
            return
        if self.flow.read_paused:  # Comptoir has not read what may have arrived: not the client's delay
            self._arm_header_timer()
            return
        log.info("request_headers_timeout", client=_client(self.client), partial=self._request_begun)
        if self._request_begun:
            self.transport.write(error_response(HEADERS_LATE, self.server_state.default_headers))
        self.transport.close()

    # --- body -----------------------------------------------------------------------------

    def _has_body(self) -> bool:
        for name, value in self.headers:
            if name == b"transfer-encoding" or (name == b"content-length" and value.strip() not in (b"0", b"")):
                return True
        return False

    def on_body(self, body: bytes) -> None:
        self._body_bytes += len(body)
        self._body_last = self.loop.time()
        super().on_body(body)

    def on_message_complete(self) -> None:
        self._cancel_body_timer()
        super().on_message_complete()

    def _cancel_body_timer(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _check_body(self) -> None:
        self._body_timer = None
        if self.transport.is_closing():
            return
        now = self.loop.time()
        limits = self.limits
        cycle = self.cycle
        if self.flow.read_paused or (cycle is not None and cycle.waiting_for_100_continue):
            # Comptoir is the one waiting: both clocks start again from now
            self._body_last = now
            self._body_start = now - self._body_bytes / limits.body_min_rate
        deadline = min(
            self._body_last + limits.body_timeout,
            self._body_start + limits.body_timeout + self._body_bytes / limits.body_min_rate,
        )
        if now < deadline:
            self._body_timer = self.loop.call_at(deadline, self._check_body)
            return
        log.info("request_body_timeout", client=_client(self.client), received=self._body_bytes)
        if cycle is not None and not cycle.response_started:
            cycle.disconnected = True  # the application's receive() now gets http.disconnect
            cycle.message_event.set()
            self.transport.write(error_response(BODY_LATE, self.server_state.default_headers))
        self.transport.close()


def _client(client: tuple[str, int] | None) -> str:
    return "" if client is None else f"{client[0]}:{client[1]}"
