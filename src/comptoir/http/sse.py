"""What every answer sent as Server-Sent Events shares (the API's event stream,
docs/api/callbacks-events.md "Stream"; the back office's board, docs/back-office.md
"Orders"): its headers, its first bytes (the reconnection delay a client should use), a
comment line at least every PING_SECONDS so that proxies keep it open, a send timeout (a
client that stops reading is dropped), and noticing the client leave. What it sends and
when it ends is the subclass's."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from starlette.responses import Response
from starlette.types import Message, Receive, Send

PING_SECONDS = 15.0  # a comment line at least this often
RETRY_MS = 3000  # the reconnection delay the `retry:` field asks of the client
OPENING = b"retry: %d\n: open\n\n" % RETRY_MS  # sent at once: a proxy or a client waiting knows it is open
PING = b": ping\n\n"
HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-store"),
    (b"x-accel-buffering", b"no"),  # nginx and the like: pass each message on at once
]


class SseResponse(Response):
    """An answer that stays open; each send that takes longer than `send_timeout` raises
    TimeoutError (the client stopped reading)."""

    media_type = "text/event-stream"

    def __init__(self, send_timeout: float) -> None:
        self.send_timeout = send_timeout
        self.status_code = 200
        self.background = None
        self.raw_headers = list(HEADERS)

    async def open(self, send: Send) -> None:
        """The status, the headers and the first bytes."""
        await self.send_message(send, {"type": "http.response.start", "status": 200, "headers": self.raw_headers})
        await self.send_body(send, OPENING)

    async def send_message(self, send: Send, message: Message) -> None:
        async with asyncio.timeout(self.send_timeout):
            await send(message)

    async def send_body(self, send: Send, data: bytes) -> None:
        await self.send_message(send, {"type": "http.response.body", "body": data, "more_body": True})

    async def end(self, send: Send, reason: str | None) -> None:
        """The end of the answer, made by the server (the client reconnects after `retry`),
        unless the client is gone (`reason`: it left, or stopped reading)."""
        if reason not in ("disconnected", "send_timeout"):
            await self.send_message(send, {"type": "http.response.body", "body": b"", "more_body": False})

    async def wait_or_ping(self, send: Send, wake: asyncio.Event) -> None:
        """Wait until `wake` is set; a comment line every PING_SECONDS meanwhile."""
        wake.clear()
        try:
            async with asyncio.timeout(PING_SECONDS):
                await wake.wait()
        except TimeoutError:
            await self.send_body(send, PING)

    @staticmethod
    async def watch(receive: Receive, left: Callable[[], None]) -> None:
        """Call `left` once the client disconnects (run as a task beside the sending)."""
        while (await receive())["type"] != "http.disconnect":
            pass
        left()
