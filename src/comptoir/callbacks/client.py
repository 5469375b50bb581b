"""The HTTP/1.1 client of callback POSTs: lean, kept-alive per origin (docs/api/callbacks-events.md
"Delivery").

A worker POSTs a lane's events one after the other to the same URL; a general client
(aiohttp's `ClientSession`) spent most of a delivery's CPU on its own layers. This one writes
the request in one buffer on a connection it keeps open per origin (scheme, host, port), and
reads the answer with asyncio's streams. It keeps the rules of `callbacks/sending.py`:

- every name is resolved by `addresses.GuardedResolver` (only allowed addresses are kept) and
  the connection goes to a checked address; an address literal is checked by the caller
  (`sending.literal_refusal`) before `post`, and connected to as read (`literal_address`);
- the timeout covers the whole exchange: connecting, writing, the status line, the headers and
  the body (its first `max_counted` bytes);
- redirects are not followed (a 3xx is an answer like any other);
- the body is read up to `max_counted` bytes; past that the connection is closed, not reused.

A connection is kept for another POST when the answer was read whole, HTTP/1.1 without
`Connection: close`, and it idles at most `KEEP_ALIVE_SECONDS`. A POST on a kept connection
that the server had closed meanwhile (no byte of an answer came back) is sent once more on a
new connection, within the same timeout: the receiver may then get the event twice, as at
least once allows, with the same `X-Event-Id`.

Failures are exceptions the caller turns into a failed attempt: `TimeoutError`,
`RefusedAddress` (no allowed address), `ConnectError` (no connection), `ServerDisconnectedError`
(the server closed before the whole head of its answer), `ClientPayloadError` (the body broke
off), `ClientResponseError` (not an HTTP/1.x answer).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import socket
import ssl
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from yarl import URL

from comptoir.callbacks.addresses import GuardedResolver, literal_address
from comptoir.config import IPNetwork

KEEP_ALIVE_SECONDS = 15.0  # an idle connection older than this is closed, not reused
DNS_SECONDS = 60.0  # a name's checked addresses are kept this long
MAX_HEAD = 64 * 1024  # status line and headers of an answer
_DEFAULT_PORTS = {"http": 80, "https": 443}


class ConnectError(OSError):
    """No connection could be made to any of the host's allowed addresses."""


class ServerDisconnectedError(ConnectionError):
    """The server closed the connection before the whole head of its answer."""


class ClientPayloadError(ConnectionError):
    """The body of the answer broke off (shorter than announced, or a broken chunk)."""


class ClientResponseError(ValueError):
    """What came back is not an HTTP/1.x answer."""


@dataclass(slots=True, frozen=True)
class Target:
    """What a URL says about where and how to POST."""

    key: tuple[str, str, int]  # the origin: scheme, host, port
    host: str  # as resolved or connected to (no brackets)
    port: int
    tls: bool
    head: bytes  # the request line and the headers every POST to this URL carries


@dataclass(slots=True)
class Reply:
    """An answer, filled in as it arrives: a POST that fails after the head still tells its status."""

    status: int | None = None
    start: bytes = b""  # the first `excerpt` bytes of the body
    counted: int = 0  # the body's bytes read, up to `max_counted`
    length: int | None = None  # Content-Length, when announced


@functools.lru_cache(maxsize=1024)
def target(url: str, user_agent: str) -> Target:
    """The origin of `url` and the fixed part of a POST to it (ValueError for a URL that is
    not an absolute http(s) one)."""
    parsed = URL(url)
    scheme = parsed.scheme
    host = parsed.raw_host
    if scheme not in _DEFAULT_PORTS or not host:
        raise ValueError(f"not an absolute http(s) URL: {url!r}")
    port = parsed.port or _DEFAULT_PORTS[scheme]
    shown = f"[{host}]" if ":" in host else host
    if parsed.explicit_port is not None and parsed.port != _DEFAULT_PORTS[scheme]:
        shown = f"{shown}:{parsed.port}"
    lines = [f"POST {parsed.raw_path_qs or '/'} HTTP/1.1", f"Host: {shown}", f"User-Agent: {user_agent}"]
    if parsed.user is not None:  # credentials in the URL: Basic authentication, as aiohttp sent it
        pair = f"{parsed.user}:{parsed.password or ''}".encode("latin-1")
        lines.append("Authorization: Basic " + base64.b64encode(pair).decode())
    head = ("\r\n".join(lines) + "\r\n").encode("latin-1")
    return Target((scheme, host.lower(), port), host, port, scheme == "https", head)


class _Connection:
    __slots__ = ("idle_since", "reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.idle_since = 0.0

    def usable(self, now: float) -> bool:
        return now - self.idle_since < KEEP_ALIVE_SECONDS and not self.writer.is_closing() and not self.reader.at_eof()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()


class CallbackClient:
    """POSTs to callback URLs over HTTP/1.1 connections kept alive per origin; at most `limit`
    idle connections kept. Use as an async context manager, or `close()` when done."""

    def __init__(
        self,
        timeout: float,
        allowed: Sequence[IPNetwork],
        limit: int,
        *,
        user_agent: str,
        excerpt: int,
        max_counted: int,
    ) -> None:
        self.timeout = timeout
        self.limit = max(1, limit)
        self.user_agent = user_agent
        self.excerpt = excerpt
        self.max_counted = max_counted
        self._resolver = GuardedResolver(allowed)
        self._addresses: dict[tuple[str, int], tuple[float, list[tuple[str, int]]]] = {}
        self._idle: dict[tuple[str, str, int], deque[_Connection]] = {}
        self._idle_count = 0
        self._ssl: ssl.SSLContext | None = None
        self.opened = 0  # connections made so far (tests read it)

    async def __aenter__(self) -> CallbackClient:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        for idle in self._idle.values():
            for connection in idle:
                connection.close()
        self._idle.clear()
        self._idle_count = 0
        await self._resolver.close()

    async def post(self, url: str, body: bytes, headers: dict[str, str], reply: Reply | None = None) -> Reply:
        """POST `body` with `headers` (beside Host, User-Agent, Content-Length) and read the
        answer into `reply` (a new one by default), all within the timeout; raises what the
        module docstring lists, `reply` then holding what had arrived."""
        reply = Reply() if reply is None else reply
        where = target(url, self.user_agent)
        extra = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        request = b"".join((where.head, extra.encode("latin-1"), b"Content-Length: %d\r\n\r\n" % len(body), body))
        async with asyncio.timeout(self.timeout):
            connection = self._take(where.key)
            if connection is not None:
                try:
                    return await self._exchange(where, connection, request, reply)
                except ServerDisconnectedError:
                    pass  # closed by the server while idle: once more on a new connection
            return await self._exchange(where, await self._open(where), request, reply)

    # --- connections ----------------------------------------------------------------------

    def _take(self, key: tuple[str, str, int]) -> _Connection | None:
        idle = self._idle.get(key)
        now = time.monotonic()
        while idle:
            connection = idle.pop()  # the most recently used first
            self._idle_count -= 1
            if connection.usable(now):
                return connection
            connection.close()
        return None

    def _keep(self, key: tuple[str, str, int], connection: _Connection) -> None:
        if self._idle_count >= self.limit:
            connection.close()
            return
        connection.idle_since = time.monotonic()
        self._idle.setdefault(key, deque()).append(connection)
        self._idle_count += 1

    async def _open(self, where: Target) -> _Connection:
        errors: list[OSError] = []
        for host, port in await self._resolve(where):
            try:
                reader, writer = await asyncio.open_connection(
                    host,
                    port,
                    ssl=self._tls() if where.tls else None,
                    server_hostname=where.host if where.tls else None,
                    limit=MAX_HEAD,
                )
            except OSError as exc:  # the next address (ssl.SSLError is one too)
                errors.append(exc)
                continue
            self.opened += 1
            return _Connection(reader, writer)
        raise ConnectError(f"cannot connect to {where.host}:{where.port}") from (errors[-1] if errors else None)

    async def _resolve(self, where: Target) -> list[tuple[str, int]]:
        ip = literal_address(where.host)
        if ip is not None:  # checked by the caller (sending.literal_refusal): no resolver sees it
            return [(str(ip), where.port)]
        cache_key = (where.host, where.port)
        cached = self._addresses.get(cache_key)
        now = time.monotonic()
        if cached is not None and now - cached[0] < DNS_SECONDS:
            return cached[1]
        try:
            results = await self._resolver.resolve(where.host, where.port, socket.AF_UNSPEC)
        except OSError as exc:
            if type(exc) is OSError or isinstance(exc, socket.gaierror):
                raise ConnectError(f"{where.host} does not resolve") from exc
            raise  # RefusedAddress: every address refused
        addresses = [(str(result["host"]), int(result["port"])) for result in results]
        self._addresses[cache_key] = (now, addresses)
        return addresses

    def _tls(self) -> ssl.SSLContext:
        if self._ssl is None:
            self._ssl = ssl.create_default_context()
        return self._ssl

    # --- one exchange ---------------------------------------------------------------------

    async def _exchange(self, where: Target, connection: _Connection, request: bytes, reply: Reply) -> Reply:
        try:
            try:
                connection.writer.write(request)
                await connection.writer.drain()
            except (ConnectionResetError, BrokenPipeError) as exc:
                raise ServerDisconnectedError("closed before the request was sent") from exc
            status, length, chunked, reusable = await self._head(connection.reader)
            reply.status, reply.length = status, length
            if status in (204, 304):
                length, chunked = 0, False
            if chunked:
                start, counted, whole = await self._chunked(connection.reader)
            else:
                start, counted, whole = await self._sized(connection.reader, length)
        except BaseException:
            connection.close()
            raise
        if whole and reusable:
            self._keep(where.key, connection)
        else:
            connection.close()
        reply.start, reply.counted = start, counted
        return reply

    async def _head(self, reader: asyncio.StreamReader) -> tuple[int, int | None, bool, bool]:
        """The status, Content-Length, whether chunked and whether the connection may be
        reused, of the first final answer (1xx ones skipped)."""
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError as exc:
                raise ServerDisconnectedError("closed before the answer's head") from exc
            except asyncio.LimitOverrunError as exc:
                raise ClientResponseError("the answer's head is too large") from exc
            except (ConnectionResetError, BrokenPipeError) as exc:
                raise ServerDisconnectedError("closed before the answer's head") from exc
            lines = head[:-4].split(b"\r\n")
            parts = lines[0].split(b" ", 2)
            if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or len(parts[1]) != 3 or not parts[1].isdigit():
                raise ClientResponseError("not an HTTP/1.x status line")
            status = int(parts[1])
            if 100 <= status < 200:
                continue  # an interim answer: the final one follows
            length: int | None = None
            chunked = False
            reusable = parts[0] == b"HTTP/1.1"
            for line in lines[1:]:
                name, sep, value = line.partition(b":")
                if not sep:
                    raise ClientResponseError("a header line without a colon")
                name = name.strip().lower()
                value = value.strip()
                if name == b"content-length":
                    if not value.isdigit():
                        raise ClientResponseError("an invalid Content-Length")
                    length = int(value)
                elif name == b"transfer-encoding":
                    chunked = value.lower().endswith(b"chunked")
                elif name == b"connection":
                    reusable = reusable and b"close" not in value.lower()
            if chunked:
                length = None
            return status, length, chunked, reusable

    async def _sized(self, reader: asyncio.StreamReader, length: int | None) -> tuple[bytes, int, bool]:
        """A body of `length` bytes (None: up to the end of the connection), read up to
        `max_counted`: its start, the bytes read, and whether it was read whole."""
        limit = self.max_counted if length is None else min(length, self.max_counted)
        start = bytearray()
        counted = 0
        while counted < limit:
            chunk = await reader.read(min(65536, limit - counted))
            if not chunk:
                if length is not None:
                    raise ClientPayloadError("the body broke off")
                return bytes(start), counted, False  # read to the end: not reusable
            if len(start) < self.excerpt:
                start += chunk[: self.excerpt - len(start)]
            counted += len(chunk)
        return bytes(start), counted, length is not None and counted == length

    async def _chunked(self, reader: asyncio.StreamReader) -> tuple[bytes, int, bool]:
        """A chunked body read up to `max_counted`, as `_sized` answers."""
        start = bytearray()
        counted = 0
        try:
            while True:
                size_line = await reader.readuntil(b"\r\n")
                try:
                    size = int(size_line.split(b";", 1)[0].strip(), 16)
                except ValueError as exc:
                    raise ClientPayloadError("a broken chunk size") from exc
                if size == 0:
                    while await reader.readuntil(b"\r\n") != b"\r\n":  # trailers
                        pass
                    return bytes(start), counted, True
                if counted + size > self.max_counted:
                    rest = self.max_counted - counted
                    data = await reader.readexactly(rest) if rest else b""
                    if len(start) < self.excerpt:
                        start += data[: self.excerpt - len(start)]
                    return bytes(start), self.max_counted, False
                data = await reader.readexactly(size)
                if await reader.readexactly(2) != b"\r\n":
                    raise ClientPayloadError("a chunk without its end")
                if len(start) < self.excerpt:
                    start += data[: self.excerpt - len(start)]
                counted += size
        except asyncio.IncompleteReadError as exc:
            raise ClientPayloadError("the body broke off") from exc
        except asyncio.LimitOverrunError as exc:
            raise ClientPayloadError("a broken chunk") from exc
