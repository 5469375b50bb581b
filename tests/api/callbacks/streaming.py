"""An event stream (GET /v1/callback/stream, or the back office's board stream) served by the
app in process, read as it is sent: httpx's in-process transport returns a response only once it is complete, which a
stream never is. The test decides when the client leaves (`leave`) and when it stops
reading (`stall`: the app's next send never returns, as for a client whose buffers are full)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from fastapi import FastAPI
from starlette.types import Message

from tests.waiting import PATIENCE


@dataclass
class Sse:
    """One message of the stream (its fields; `comment` for a comment line)."""

    id: str | None = None
    event: str | None = None
    data: str | None = None
    retry: str | None = None
    comments: list[str] = field(default_factory=list)


class OpenStream:
    """`token`: the API's stream; `cookie` and `path`: another stream (the back office's board)."""

    def __init__(
        self,
        app: FastAPI,
        token: str | None = None,
        *,
        last_event_id: str | None = None,
        query: dict[str, str] | None = None,
        cookie: str | None = None,
        path: str = "/v1/callback/stream",
    ):
        headers = [(b"host", b"testserver")]
        if token is not None:
            headers.append((b"x-access-token", token.encode()))
        if cookie is not None:
            headers.append((b"cookie", cookie.encode()))
        if last_event_id is not None:
            headers.append((b"last-event-id", last_event_id.encode()))
        self.scope: dict[str, Any] = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": urlencode(query or {}).encode(),
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 80),
        }
        self.app = app
        self.sent: asyncio.Queue[Message] = asyncio.Queue()
        self.status = 0
        self.headers: dict[str, str] = {}
        self.ended = False  # the app sent the end of the body
        self._left = asyncio.Event()
        self._stalled = asyncio.Event()
        self._asked = False
        self._text = ""
        self.task: asyncio.Task[None] | None = None

    async def _receive(self) -> Message:
        if not self._asked:
            self._asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self._left.wait()
        return {"type": "http.disconnect"}

    async def _send(self, message: Message) -> None:
        if self._stalled.is_set() and message["type"] == "http.response.body":
            await asyncio.Event().wait()  # never taken
        await self.sent.put(message)

    async def open(self) -> OpenStream:
        """Start the request; answers once its status and headers are sent."""
        self.task = asyncio.create_task(self.app(self.scope, self._receive, self._send))
        start = await asyncio.wait_for(self.sent.get(), PATIENCE)
        assert start["type"] == "http.response.start"
        self.status = start["status"]
        self.headers = {k.decode(): v.decode() for k, v in start["headers"]}
        return self

    async def body(self) -> str:
        """The whole body of an answer that ends (an error)."""
        while not self.ended:
            await self._chunk()
        text, self._text = self._text, ""
        return text

    async def _chunk(self) -> None:
        message = await asyncio.wait_for(self.sent.get(), PATIENCE)
        self._text += message.get("body", b"").decode()
        if not message.get("more_body", False):
            self.ended = True

    async def next_message(self) -> Sse:
        """The next message, comments included."""
        while "\n\n" not in self._text:
            if self.ended:
                raise AssertionError("the stream ended")
            await self._chunk()
        raw, self._text = self._text.split("\n\n", 1)
        found = Sse()
        for line in raw.split("\n"):
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "":
                found.comments.append(value)
            else:
                setattr(found, name, value)
        return found

    async def next_event(self) -> Sse:
        """The next message that carries an event."""
        while True:
            found = await self.next_message()
            if found.id is not None:
                return found

    async def events(self, count: int) -> list[Sse]:
        return [await self.next_event() for _ in range(count)]

    async def until_end(self) -> list[Sse]:
        """Every message up to the end of the stream, which the server makes."""
        found = []
        while True:
            try:
                found.append(await self.next_message())
            except AssertionError:
                return found

    def stall(self) -> None:
        self._stalled.set()

    async def leave(self) -> None:
        """The client disconnects; returns once the app is done with the request."""
        self._left.set()
        await self.finished()

    async def finished(self) -> None:
        assert self.task is not None
        await asyncio.wait_for(self.task, PATIENCE)
