"""Slow clients cannot hold a server's connections (docs/operations.md "Slow clients and
connections"): against a real `comptoir serve`, with 1 s timeouts set by the environment,
40 connections sending their headers a byte at a time and 40 sending a body a byte at a time
are closed shortly after the timeouts while a normal client is answered meanwhile, and a
connection past the cap is answered 503 until connections free up."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import COMPTOIR, LOOPBACK, Server, _read_line, free_port, wait_until_up
from tests.waiting import PATIENCE, QUICKLY, eventually

pytestmark = pytest.mark.e2e

CAP = 60
SLOW = {
    "COMPTOIR_HEADER_TIMEOUT_SECONDS": "1",
    "COMPTOIR_BODY_TIMEOUT_SECONDS": "1",
    "COMPTOIR_MAX_CONNECTIONS": str(CAP),
    "COMPTOIR_RATE_LIMITS": "off",
}
DRIP = 0.2  # seconds between two bytes of a slow client
COUNT = 40
# A slow client is closed this long after it connected at most: the 1 s timeout, and what a
# loaded machine adds to it; below the default timeouts (10 s) the settings replace.
CLOSED_WITHIN = 1 + QUICKLY


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One `comptoir serve --demo` with the SLOW settings for the whole module (a start takes
    seconds; each test leaves no connection open)."""
    directory = tmp_path_factory.mktemp("slow-clients")
    port = free_port()
    stderr_path = directory / "server.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")} | LOOPBACK | SLOW
    with stderr_path.open("w") as stderr:
        process = subprocess.Popen(
            [COMPTOIR, "serve", "--demo", "--port", str(port)],
            cwd=directory,
            env=env,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
        try:
            running = Server(process, f"http://127.0.0.1:{port}", _read_line(process.stdout, 60), stderr_path)
            wait_until_up(running)
            yield running
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stdout is not None:
                process.stdout.close()


def location_token(server: Server) -> str:
    assert server.first_line is not None
    return str(json.loads(server.first_line)["tokens"]["location"])


def port_of(server: Server) -> int:
    return int(server.base_url.rsplit(":", 1)[1])


async def slow_client(port: int, head: bytes, drip: bytes, connected: list[None] | None = None) -> tuple[float, bytes]:
    """Sends `head` at once (then says so in `connected`), then `drip` a byte every DRIP
    seconds, reading meanwhile; returns when the server closed the connection (seconds after
    the client began connecting: the server's clocks start later) and what it sent."""
    started = time.monotonic()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(head)
    await writer.drain()
    if connected is not None:
        connected.append(None)

    async def dripping() -> None:
        for byte in drip:
            await asyncio.sleep(DRIP)
            writer.write(bytes([byte]))
            await writer.drain()

    sender = asyncio.create_task(dripping())
    received = b""
    try:
        while chunk := await asyncio.wait_for(reader.read(65536), PATIENCE):
            received += chunk
    except ConnectionResetError:
        pass
    closed_after = time.monotonic() - started
    sender.cancel()
    await asyncio.gather(sender, return_exceptions=True)
    writer.close()
    with contextlib.suppress(ConnectionError):
        await writer.wait_closed()
    return closed_after, received


def error_answer(received: bytes) -> tuple[int, dict[str, str], Any]:
    head, _, body = received.partition(b"\r\n\r\n")
    status_line, *lines = head.decode().split("\r\n")
    headers = {name.lower(): value for name, value in (line.split(": ", 1) for line in lines)}
    return int(status_line.split(" ")[1]), headers, json.loads(body)


async def served_meanwhile(server: Server, path: str, headers: dict[str, str], connected: list[None]) -> int:
    """A normal client's request, once every slow client has connected and sent its head."""

    async def all_connected() -> bool:
        return len(connected) == COUNT

    await eventually(all_connected, "the slow clients connected")
    async with httpx.AsyncClient(base_url=server.base_url, timeout=PATIENCE) as http:
        return (await http.get(path, headers=headers)).status_code


async def test_slowloris_headers_are_closed_with_408_after_the_header_timeout(server: Server) -> None:
    head = b"GET /v1/health HTTP/1.1\r\nHost: comptoir\r\n"
    connected: list[None] = []
    slow = [slow_client(port_of(server), head, b"X-Padding: " + b"a" * 100, connected) for _ in range(COUNT)]
    *closed, normal = await asyncio.gather(*slow, served_meanwhile(server, "/v1/health", {}, connected))
    assert normal == 200
    for closed_after, received in closed:
        assert 0.9 < closed_after < CLOSED_WITHIN, closed_after
        status, headers, body = error_answer(received)
        assert (status, headers["connection"], headers["content-type"]) == (408, "close", "application/json")
        assert body == {"error_type": "request_timeout", "message": "The request headers did not arrive in time"}


async def test_slowloris_connection_that_sends_nothing_is_closed_after_the_header_timeout(server: Server) -> None:
    closed = await asyncio.gather(*(slow_client(port_of(server), b"", b"") for _ in range(COUNT)))
    for closed_after, received in closed:
        assert 0.9 < closed_after < CLOSED_WITHIN, closed_after
        assert received == b""


async def test_slow_body_is_closed_with_408_after_the_body_timeout(server: Server) -> None:
    token = location_token(server)
    head = (
        "POST /v1/location/orders HTTP/1.1\r\nHost: comptoir\r\nContent-Type: application/json\r\n"
        f"X-Access-Token: {token}\r\nContent-Length: 1000\r\n\r\n"
    ).encode()
    # a byte every 0.2 s: never a pause of 1 s, but far below the minimum rate after the grace
    connected: list[None] = []
    slow = [slow_client(port_of(server), head, b"{" + b" " * 100, connected) for _ in range(COUNT)]
    normal = served_meanwhile(server, "/v1/location", {"X-Access-Token": token}, connected)
    *closed, answered = await asyncio.gather(*slow, normal)
    assert answered == 200
    for closed_after, received in closed:
        assert 0.9 < closed_after < CLOSED_WITHIN, closed_after
        status, headers, body = error_answer(received)
        assert (status, headers["connection"]) == (408, "close")
        assert body == {"error_type": "request_timeout", "message": "The request body did not arrive in time"}

    async def logged() -> bool:  # each line is written as its connection closes
        return server.logs().count("event=client_disconnected") >= COUNT

    await eventually(logged, "a line for each slow client")
    logs = server.logs()
    assert logs.count("event=request_body_timeout") == COUNT
    assert logs.count("event=client_disconnected") == COUNT  # an info line each, no error
    assert "internal_error" not in logs


async def test_slow_but_steady_large_body_is_read_in_full(server: Server) -> None:
    """3 s for 96 KiB (32 KiB/s, well over the minimum rate) with 1 s timeouts: the body is
    read and answered as the same body sent at once. Steady means no pause of a second: a
    loaded machine may hold this client back that long, and the server then rightly cuts the
    upload, so an upload the client could not keep steady is tried again."""
    token = location_token(server)
    body = json.dumps({"items": [], "notes": "n" * (96 * 1024)}).encode()
    body_timeout = float(SLOW["COMPTOIR_BODY_TIMEOUT_SECONDS"])
    async with httpx.AsyncClient(base_url=server.base_url, timeout=PATIENCE) as http:
        at_once = await http.post("/v1/location/orders", content=body, headers={"X-Access-Token": token})

        async def steadily(sent: list[float]) -> Any:
            for start in range(0, len(body), 4096):
                sent.append(time.monotonic())
                yield body[start : start + 4096]
                await asyncio.sleep(3 / (len(body) / 4096))

        for _ in range(3):
            sent: list[float] = []
            slowly = await http.post(
                "/v1/location/orders",
                content=steadily(sent),
                headers={"X-Access-Token": token, "Content-Length": str(len(body))},
            )
            if max(b - a for a, b in itertools.pairwise(sent)) < body_timeout:
                break
        else:
            raise AssertionError("the client could not send steadily three times")
    assert sent[-1] - sent[0] > 2.5  # slowly indeed
    assert at_once.status_code != 408
    assert (slowly.status_code, slowly.json()) == (at_once.status_code, at_once.json())


async def hold(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection kept alive (5 s) after one answered request."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /v1/health HTTP/1.1\r\nHost: comptoir\r\n\r\n")
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    length = re.search(rb"\r\ncontent-length: *(\d+)", head, re.IGNORECASE)
    assert length is not None
    await reader.readexactly(int(length.group(1)))  # the whole answer: all that follows is the close
    return reader, writer


async def test_connections_past_the_cap_are_answered_503_then_served_once_others_close(server: Server) -> None:
    holders = await asyncio.gather(*(hold(port_of(server)) for _ in range(CAP)))
    async with httpx.AsyncClient(base_url=server.base_url, timeout=PATIENCE) as http:
        refused = await http.get("/v1/health")
    # at once, not once a connection freed up: every held connection is still open
    assert [reader.at_eof() for reader, _ in holders] == [False] * CAP
    assert (refused.status_code, refused.headers["retry-after"], refused.headers["connection"]) == (503, "1", "close")
    assert refused.json() == {"error_type": "service_unavailable", "message": "Too many connections; retry shortly"}
    for _, holder in holders:
        holder.close()
        await holder.wait_closed()
    statuses: list[int] = []

    async def served() -> bool:  # once the server has seen them close
        async with httpx.AsyncClient(base_url=server.base_url, timeout=PATIENCE) as http:
            statuses.append((await http.get("/v1/health")).status_code)
        return statuses[-1] == 200

    await eventually(served, "a connection served")
    assert set(statuses[:-1]) <= {503}
