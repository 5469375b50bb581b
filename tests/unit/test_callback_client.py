"""The callback client (`callbacks/client.py`) and `sending.post` over it, against a raw
HTTP server on 127.0.0.1 whose every byte the test writes: keep-alive, a connection closed
while idle, sizes, chunks, timeouts, redirects, interim answers, broken answers."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import pytest

from comptoir.callbacks import sending
from comptoir.callbacks.client import CallbackClient, Reply, target
from comptoir.config import IPNetwork

LOOPBACK: list[IPNetwork] = [ipaddress.ip_network("127.0.0.0/8")]
OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

# reads one request (head and body) from a connection, None at its end
Request = tuple[bytes, bytes]
Handler = Callable[[int, Request, asyncio.StreamWriter], Awaitable[bool]]  # False: close the connection


async def read_request(reader: asyncio.StreamReader) -> Request | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return head, await reader.readexactly(length)


@dataclass
class Server:
    """Answers the n-th request (0-based, over all connections) with `handler`."""

    handler: Handler
    port: int = 0
    connections: int = 0
    requests: list[Request] = field(default_factory=list)
    server: asyncio.Server | None = None

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while (request := await read_request(reader)) is not None:
                self.requests.append(request)
                if not await self.handler(len(self.requests) - 1, request, writer):
                    break
        finally:
            writer.close()


@pytest.fixture
async def serve() -> AsyncIterator[Callable[[Handler], Awaitable[Server]]]:
    servers: list[asyncio.Server] = []

    async def start(handler: Handler) -> Server:
        server = Server(handler)
        server.server = await asyncio.start_server(server._serve, "127.0.0.1", 0)
        servers.append(server.server)
        server.port = server.server.sockets[0].getsockname()[1]
        return server

    yield start
    for server in servers:
        server.close()


def answering(*answers: bytes, keep: bool = True) -> Handler:
    """Writes answers[n] (the last one again past the end) and keeps the connection open."""

    async def handler(n: int, _request: Request, writer: asyncio.StreamWriter) -> bool:
        writer.write(answers[min(n, len(answers) - 1)])
        await writer.drain()
        return keep

    return handler


def client(timeout: float = 2.0, limit: int = 4) -> CallbackClient:
    return sending.http_client(timeout, LOOPBACK, limit)


async def send(http: CallbackClient, url: str, body: bytes = b'{"id":"e1"}') -> sending.Outcome:
    return await sending.post(http, url, body, {"X-Event-Id": "e1", "Content-Type": "application/json"}, LOOPBACK)


async def test_posts_to_one_origin_share_one_kept_alive_connection(
    serve: Callable[[Handler], Awaitable[Server]],
) -> None:
    server = await serve(answering(OK))
    async with client() as http:
        outcomes = [await send(http, server.url(), b"x" * n) for n in range(1, 4)]
        assert http.opened == 1
    assert [(o.status_code, o.error, o.excerpt, o.size, o.acknowledged) for o in outcomes] == [
        (200, None, "ok", 2, True)
    ] * 3
    assert server.connections == 1
    assert [body for _head, body in server.requests] == [b"x", b"xx", b"xxx"]
    head = server.requests[0][0].decode()
    assert head.startswith("POST /hook HTTP/1.1\r\n")
    assert f"Host: 127.0.0.1:{server.port}\r\n" in head
    assert "User-Agent: Comptoir-Callbacks/1\r\n" in head
    assert "X-Event-Id: e1\r\nContent-Type: application/json\r\nContent-Length: 1\r\n\r\n" in head


async def test_a_connection_the_server_closed_while_idle_is_replaced_and_the_post_sent_again(
    serve: Callable[[Handler], Awaitable[Server]],
) -> None:
    async def close_after_first(n: int, request: Request, writer: asyncio.StreamWriter) -> bool:
        if n == 1:  # the second request, on the kept connection: closed without an answer
            return False
        writer.write(OK)
        await writer.drain()
        return True

    server = await serve(close_after_first)
    async with client() as http:
        first = await send(http, server.url())
        second = await send(http, server.url())
        assert http.opened == 2
    assert (first.status_code, first.error) == (200, None)
    assert (second.status_code, second.error, second.acknowledged) == (200, None, True)
    assert server.connections == 2
    assert len(server.requests) == 3  # the second POST twice: at least once, same X-Event-Id


async def test_a_new_connection_closed_without_an_answer_is_a_failed_attempt_not_resent(
    serve: Callable[[Handler], Awaitable[Server]],
) -> None:
    async def close(_n: int, _request: Request, _writer: asyncio.StreamWriter) -> bool:
        return False

    server = await serve(close)
    async with client() as http:
        outcome = await send(http, server.url())
    assert (outcome.status_code, outcome.error, outcome.acknowledged) == (None, "ServerDisconnectedError", False)
    assert len(server.requests) == 1


async def test_connection_close_is_honoured(serve: Callable[[Handler], Awaitable[Server]]) -> None:
    server = await serve(answering(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", keep=False))
    async with client() as http:
        outcomes = [await send(http, server.url()) for _ in range(2)]
        assert http.opened == 2
    assert [(o.status_code, o.error) for o in outcomes] == [(200, None), (200, None)]
    assert server.connections == 2


async def test_an_http_1_0_answer_without_a_length_is_read_to_the_end(
    serve: Callable[[Handler], Awaitable[Server]],
) -> None:
    server = await serve(answering(b"HTTP/1.0 200 OK\r\n\r\nall of it", keep=False))
    async with client() as http:
        outcome = await send(http, server.url())
    assert (outcome.status_code, outcome.error, outcome.excerpt, outcome.size) == (200, None, "all of it", 9)


async def test_a_chunked_answer_is_read_whole_and_the_connection_kept(
    serve: Callable[[Handler], Awaitable[Server]],
) -> None:
    chunked = b"HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n"
    server = await serve(answering(chunked))
    async with client() as http:
        outcomes = [await send(http, server.url()) for _ in range(2)]
        assert http.opened == 1
    assert [(o.status_code, o.error, o.excerpt, o.size) for o in outcomes] == [(201, None, "hello world", 11)] * 2


async def test_a_broken_chunk_is_a_failed_attempt(serve: Callable[[Handler], Awaitable[Server]]) -> None:
    server = await serve(answering(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n", keep=False))
    async with client() as http:
        outcome = await send(http, server.url())
    assert (outcome.status_code, outcome.error, outcome.acknowledged) == (200, "ClientPayloadError", False)


async def test_a_body_shorter_than_announced_is_a_failed_attempt(serve: Callable[[Handler], Awaitable[Server]]) -> None:
    server = await serve(answering(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", keep=False))
    async with client() as http:
        outcome = await send(http, server.url())
    assert (outcome.status_code, outcome.error, outcome.acknowledged) == (200, "ClientPayloadError", False)


async def test_a_body_past_the_limit_is_counted_to_it_and_the_connection_not_reused(
    serve: Callable[[Handler], Awaitable[Server]],
) -> None:
    big = sending.MAX_COUNTED + 5000
    chunked_big = b"%x\r\n" % big + b"b" * big + b"\r\n0\r\n\r\n"

    async def handler(n: int, _request: Request, writer: asyncio.StreamWriter) -> bool:
        if n == 0:  # announced
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % big + b"a" * big)
        elif n == 1:  # chunked
            writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked_big)
        else:
            writer.write(OK)
        await writer.drain()
        return True

    server = await serve(handler)
    async with client() as http:
        announced = await send(http, server.url())
        chunked = await send(http, server.url())
        small = await send(http, server.url())
        assert http.opened == 3  # neither big answer was read whole: their connections closed
    assert (announced.status_code, announced.error, announced.size, announced.acknowledged) == (200, None, big, True)
    assert announced.excerpt == "a" * sending.EXCERPT_CHARS + "…"
    assert (chunked.status_code, chunked.error, chunked.size) == (200, None, sending.MAX_COUNTED)
    assert chunked.excerpt == "b" * sending.EXCERPT_CHARS + "…"
    assert (small.status_code, small.error, small.size) == (200, None, 2)


async def test_no_answer_within_the_timeout_is_a_timeout(serve: Callable[[Handler], Awaitable[Server]]) -> None:
    async def silent(_n: int, _request: Request, _writer: asyncio.StreamWriter) -> bool:
        await asyncio.sleep(5)
        return False

    server = await serve(silent)
    async with client(timeout=0.3) as http:
        outcome = await send(http, server.url())
    assert (outcome.status_code, outcome.error, outcome.acknowledged) == (None, "timeout", False)


async def test_a_body_stalling_past_the_timeout_keeps_its_status_and_is_a_timeout(
    serve: Callable[[Handler], Awaitable[Server]],
) -> None:
    async def stall(_n: int, _request: Request, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nok")
        await writer.drain()
        await asyncio.sleep(5)
        return False

    server = await serve(stall)
    async with client(timeout=0.3) as http:
        outcome = await send(http, server.url())
        assert http._idle_count == 0  # the connection is not kept
    assert (outcome.status_code, outcome.error, outcome.acknowledged) == (200, "timeout", False)


async def test_a_redirect_is_not_followed(serve: Callable[[Handler], Awaitable[Server]]) -> None:
    server = await serve(
        answering(b"HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:1/elsewhere\r\nContent-Length: 0\r\n\r\n")
    )
    async with client() as http:
        outcome = await send(http, server.url())
    assert (outcome.status_code, outcome.error, outcome.size, outcome.acknowledged) == (302, None, 0, True)
    assert len(server.requests) == 1


async def test_an_interim_answer_is_skipped_and_no_body_is_read_for_204(
    serve: Callable[[Handler], Awaitable[Server]],
) -> None:
    server = await serve(answering(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n"))
    async with client() as http:
        outcomes = [await send(http, server.url()) for _ in range(2)]
        assert http.opened == 1
    assert [(o.status_code, o.error, o.size) for o in outcomes] == [(204, None, 0)] * 2


async def test_what_is_not_http_is_a_failed_attempt(serve: Callable[[Handler], Awaitable[Server]]) -> None:
    server = await serve(answering(b"SSH-2.0-OpenSSH\r\n\r\n", keep=False))
    async with client() as http:
        outcome = await send(http, server.url())
    assert (outcome.status_code, outcome.error, outcome.acknowledged) == (None, "ClientResponseError", False)


async def test_nobody_listening_is_a_connect_error() -> None:
    probe = await asyncio.start_server(lambda _r, _w: None, "127.0.0.1", 0)
    port = probe.sockets[0].getsockname()[1]
    probe.close()
    await probe.wait_closed()
    async with client() as http:
        outcome = await send(http, f"http://127.0.0.1:{port}/hook")
    assert (outcome.status_code, outcome.error) == (None, "connect_error")


async def test_an_address_not_allowed_is_refused_before_any_connection(
    serve: Callable[[Handler], Awaitable[Server]],
) -> None:
    server = await serve(answering(OK))
    async with sending.http_client(2.0, [], 4) as http:
        outcome = await sending.post(http, server.url(), b"{}", {}, [])
        assert http.opened == 0
    assert (outcome.status_code, outcome.error) == (None, "refused: 127.0.0.1 is a loopback address")
    assert server.connections == 0


async def test_a_name_is_resolved_by_the_guard(serve: Callable[[Handler], Awaitable[Server]]) -> None:
    server = await serve(answering(OK))
    async with sending.http_client(2.0, [], 4) as http:
        refused = await sending.post(http, f"http://localhost:{server.port}/hook", b"{}", {}, [])
    assert refused.status_code is None
    # the first address localhost resolves to, by the system's order, as the guard asks for it
    [first, *_] = socket.getaddrinfo(
        "localhost", server.port, socket.AF_UNSPEC, socket.SOCK_STREAM, flags=socket.AI_ADDRCONFIG
    )
    assert refused.error == f"refused: {first[4][0]} is a loopback address"
    async with client() as http:
        allowed = await send(http, f"http://localhost:{server.port}/hook")
    assert (allowed.status_code, allowed.error) == (200, None)
    assert server.connections == 1


def test_the_request_head_of_a_url() -> None:
    # the path and query as aiohttp sent them (yarl's reading: %2F in a query is a slash)
    where = target("http://user:p%40ss@Example.COM:8080/a%20b?x=1&y=%2F", "UA/1")
    assert where.key == ("http", "example.com", 8080)
    assert (where.host, where.port, where.tls) == ("example.com", 8080, False)
    assert where.head == (
        b"POST /a%20b?x=1&y=/ HTTP/1.1\r\nHost: example.com:8080\r\nUser-Agent: UA/1\r\n"
        b"Authorization: Basic dXNlcjpwQHNz\r\n"
    )
    secure = target("https://[2001:db8::1]/", "UA/1")
    assert (secure.key, secure.tls) == (("https", "2001:db8::1", 443), True)
    assert secure.head == b"POST / HTTP/1.1\r\nHost: [2001:db8::1]\r\nUser-Agent: UA/1\r\n"
    assert target("https://example.com:443", "UA/1").head.startswith(b"POST / HTTP/1.1\r\nHost: example.com\r\n")


async def test_a_failed_post_leaves_what_arrived_in_the_reply(serve: Callable[[Handler], Awaitable[Server]]) -> None:
    server = await serve(answering(b"HTTP/1.1 503 Busy\r\nContent-Length: 10\r\n\r\nbu", keep=False))
    reply = Reply()
    async with client() as http:
        with pytest.raises(ConnectionError):
            await http.post(server.url(), b"{}", {}, reply)
    assert (reply.status, reply.length) == (503, 10)
