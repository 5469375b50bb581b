"""Reading `GET /v1/callback/stream` (docs/api/callbacks-events.md "Stream"): the Server-Sent
Events format, and when to reconnect. `_sync.EventStream` and `_async.AsyncEventStream` hold
the connection; everything they decide is here, once.

The parser follows the HTML standard's "event stream interpretation"
(https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):

- a line ends with CRLF, LF or CR, and with nothing else. The bytes are split before they are
  decoded, so a U+2028 or U+0085 inside an event's JSON (the server writes them as they are)
  stays inside its line; httpx's `iter_lines()` would split there;
- a line starting with `:` is a comment (the server's `: ping`), ignored;
- a field's value is what follows the first `:`, less one space if one follows it; a line
  without `:` is a field with an empty value; unknown fields are ignored;
- `data:` lines add up, joined by LF; an empty line ends the message; a message without data
  is not one;
- `id:` sets the last event id (unless it holds a NUL), `retry:` the reconnection delay in
  milliseconds (digits only);
- a message cut short by the end of the connection is dropped: the server sends it again.

(httpx-sse parses alike, but would bring only this parser: the reconnections are this
module's either way, so the client keeps to httpx and pydantic.)
"""

from __future__ import annotations

import logging
import random
import re
import time
from dataclasses import dataclass
from typing import Any

import httpx

from comptoir_client.errors import error_of, retry_after

log = logging.getLogger("comptoir_client.stream")
PATH = "/v1/callback/stream"
DEFAULT_RETRY = 3.0  # seconds, until the server's `retry:` says otherwise
MAX_WAIT = 60.0  # the longest wait between two tries, however many failed in a row
# The server sends a comment at least every 15 seconds: a connection silent much longer than
# that is dead without having said so (a peer gone, a NAT that forgot it), and is replaced.
READ_TIMEOUT = 60.0
_LINE_END = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class ServerSentEvent:
    """One message: `id` (the last event id when it ended, "" if none), `event` ("message"
    when the message named none) and `data` (its data lines joined by LF)."""

    id: str
    event: str
    data: str


class Decoder:
    """Bytes of one connection in, messages out; `retry` is the last reconnection delay asked
    (seconds), None until one is."""

    def __init__(self) -> None:
        self.retry: float | None = None
        self._tail = b""
        self._after_cr = False  # the last chunk ended with CR: an LF opening the next ends no line
        self._started = False
        self._data: list[str] = []
        self._event = ""
        self._last_id = ""

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        if self._after_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        if not chunk:
            return []
        self._after_cr = chunk.endswith(b"\r")
        buffered = self._tail + chunk
        if not self._started and len(buffered) >= len(_BOM):
            self._started = True
            buffered = buffered.removeprefix(_BOM)
        *lines, self._tail = _LINE_END.split(buffered)
        messages = []
        for line in lines:
            message = self._line(line.decode("utf-8", errors="replace"))
            if message is not None:
                messages.append(message)
        return messages

    @property
    def pending(self) -> bool:
        """Whether a message has begun and not ended (a reconnection now would cut it)."""
        return bool(self._tail or self._data or self._event)

    def _line(self, line: str) -> ServerSentEvent | None:
        if line == "":
            data, event = self._data, self._event
            self._data, self._event = [], ""
            if not data:
                return None
            return ServerSentEvent(self._last_id, event or "message", "\n".join(data))
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._last_id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self.retry = int(value) / 1000
        return None


class Reconnection:
    """Where a stream resumes and how long it waits before it reconnects.

        `last_event_id` is the id of the last message handed to the caller: with `resume`, each
        reconnection sends it as `Last-Event-ID`, so the server sends only what came after it
        (nothing lost, nothing repeated). Without `resume`, each reconnection asks for every
        pending event again: right for a caller that acknowledges each event before it takes the
        next, as it then repeats nothing and also gets an event that committed behind one already
        streamed (docs/api/callbacks-events.md "Stream": such an event is pending, not streamed).
    With `reopen_every` (seconds), a connection that old is replaced between two messages.

        The wait is the server's `retry:` delay, doubled for each failure in a row (a refused
        connection, a 5xx) up to MAX_WAIT; a 429 (too many streams open) waits its Retry-After."""

    def __init__(self, last_event_id: str | None, *, resume: bool, reopen_every: float | None = None) -> None:
        self.last_event_id = last_event_id or None
        self.resume = resume
        self.reopen_every = reopen_every
        self._opened = 0.0
        self.retry = DEFAULT_RETRY
        self.failures = 0
        self._first = True

    def request(self, headers: dict[str, str]) -> dict[str, Any]:
        """The arguments of httpx's `stream()` for the next connection."""
        sent = dict(headers) | {"Accept": "text/event-stream", "Cache-Control": "no-store"}
        if self.last_event_id and (self.resume or self._first):
            sent["Last-Event-ID"] = self.last_event_id
        self._first = False
        timeout = httpx.Timeout(30.0, read=READ_TIMEOUT)
        return {"method": "GET", "url": PATH, "headers": sent, "timeout": timeout}

    def opened(self, response: httpx.Response) -> float | None:
        """None when `response` is the stream; else the wait before trying again. Raises the
        typed error of an answer that trying again would not change (401, 403, 409...).
        The body of a refusal must have been read."""
        status = response.status_code
        if status == 200:
            self.failures = 0
            self._opened = time.monotonic()
            return None
        if status == 429:
            asked = retry_after(response)
            wait = min(MAX_WAIT, self.retry if asked is None else asked)
        elif status >= 500:
            self.failures += 1
            wait = self._wait()
        else:
            raise error_of(response)
        log.warning("callback stream: answer %d, reconnecting in %.1f s", status, wait)
        return wait

    def received(self, decoder: Decoder, message: ServerSentEvent) -> None:
        """`message` was handed to the caller: a reconnection resumes after it."""
        if decoder.retry is not None:
            self.retry = decoder.retry
        if message.id:
            self.last_event_id = message.id

    def old(self, decoder: Decoder) -> bool:
        """Whether to replace the connection now: `reopen_every` seconds old, between messages."""
        if self.reopen_every is None or decoder.pending:
            return False
        return time.monotonic() - self._opened >= self.reopen_every

    def ended(self, decoder: Decoder, error: Exception | None = None, *, old: bool = False) -> float:
        """The wait before the next connection, once this one ended: `error` when it broke
        off (or never opened), `old` when it is replaced as `old()` asked."""
        if decoder.retry is not None:
            self.retry = decoder.retry
        if old:
            return 0.0
        if error is None:
            wait = self._wait()
            log.info("callback stream: ended by the server, reconnecting in %.1f s", wait)
        else:
            self.failures += 1
            wait = self._wait()
            log.warning("callback stream: %s, reconnecting in %.1f s", type(error).__name__, wait)
        return wait

    def _wait(self) -> float:
        """`retry`, doubled per failure in a row, at most MAX_WAIT."""
        base = min(MAX_WAIT, self.retry * 2 ** max(0, min(self.failures - 1, 8)))
        return base * (0.8 + random.random() / 5) if self.failures else base  # jitter, not a secret
