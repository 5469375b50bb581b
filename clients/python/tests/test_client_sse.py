"""Reading Server-Sent Events (comptoir_client/sse.py) and reconnecting the event stream, without
a server: the format's corners, and what each kind of ending leads to."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest

from comptoir_client import AsyncComptoir, Comptoir, Conflict, ServerSentEvent, Unauthorized
from comptoir_client.sse import Decoder, Reconnection


def decoded(*chunks: bytes) -> list[ServerSentEvent]:
    decoder = Decoder()
    return [message for chunk in chunks for message in decoder.feed(chunk)]


def test_data_lines_are_joined_by_lf_and_an_empty_line_ends_the_message() -> None:
    assert decoded(b"id: 1\nevent: order.create\ndata: a\ndata: b\n\n") == [
        ServerSentEvent("1", "order.create", "a\nb")
    ]


@pytest.mark.parametrize("end", [b"\n", b"\r\n", b"\r"])
def test_each_line_end_is_one(end: bytes) -> None:
    stream = end.join([b"id: 1", b"data: x", b"", b"id: 2", b"data: y", b"", b""])
    assert decoded(stream) == [ServerSentEvent("1", "message", "x"), ServerSentEvent("2", "message", "y")]


def test_a_crlf_split_between_two_chunks_ends_one_line() -> None:
    assert decoded(b"data: x\r", b"\ndata: y\r", b"\n\r", b"\n") == [ServerSentEvent("", "message", "x\ny")]


def test_fed_byte_by_byte_the_messages_are_the_same() -> None:
    stream = 'retry: 5\r\n: open\r\n\r\nid: 7\nevent: order.update\ndata: {"note": "café ☕"}\n\n'.encode()
    assert decoded(*(stream[i : i + 1] for i in range(len(stream)))) == decoded(stream)
    assert decoded(stream) == [ServerSentEvent("7", "order.update", '{"note": "café ☕"}')]


def test_a_value_loses_one_space_after_the_colon_and_no_other() -> None:
    assert decoded(b"data:x\n\ndata:  y\n\ndata\n\n") == [
        ServerSentEvent("", "message", "x"),
        ServerSentEvent("", "message", " y"),
        ServerSentEvent("", "message", ""),
    ]


def test_unicode_line_separators_inside_data_do_not_end_the_line() -> None:
    data = json.dumps({"note": "one\u2028two\u0085three\x0bfour\x1cfive"}, ensure_ascii=False)
    assert decoded(b"id: 9\ndata: " + data.encode() + b"\n\n") == [ServerSentEvent("9", "message", data)]


def test_comments_unknown_fields_and_messages_without_data_are_not_messages() -> None:
    assert decoded(b": ping\n\nfoo: bar\n\nevent: x\n\nid: 3\n\ndata: z\n\n") == [ServerSentEvent("3", "message", "z")]


def test_the_last_id_stays_until_another_and_an_id_with_nul_is_ignored() -> None:
    assert [m.id for m in decoded(b"id: 1\ndata: a\n\ndata: b\n\nid: 2\x00\ndata: c\n\n")] == ["1", "1", "1"]


def test_retry_takes_digits_only_in_milliseconds() -> None:
    decoder = Decoder()
    decoder.feed(b"retry: 2500\n\n")
    assert decoder.retry == 2.5
    decoder.feed(b"retry: 1.5\nretry: -3\nretry: soon\n\n")
    assert decoder.retry == 2.5


def test_a_message_cut_short_is_not_given_out() -> None:
    decoder = Decoder()
    assert decoder.feed(b"\xef\xbb\xbfid: 1\ndata: whole\n\nid: 2\ndata: cut") == [
        ServerSentEvent("1", "message", "whole")
    ]
    assert decoder.pending


def test_a_refusal_raises_its_error_and_a_5xx_waits_longer_each_time() -> None:
    reconnection = Reconnection(None, resume=True)
    body = {"error_type": "conflict", "message": "a stream needs a passive callback"}
    with pytest.raises(Conflict):
        reconnection.opened(httpx.Response(409, json=body))
    with pytest.raises(Unauthorized):
        reconnection.opened(httpx.Response(401, json={"error_type": "unauthorized", "message": "no"}))
    first, second = (reconnection.opened(httpx.Response(503)) for _ in range(2))
    assert first is not None
    assert 2.4 <= first <= 3.0
    assert second is not None
    assert 4.8 <= second <= 6.0
    assert reconnection.opened(httpx.Response(429, headers={"Retry-After": "7"})) == 7.0
    assert reconnection.opened(httpx.Response(200)) is None
    assert reconnection.ended(Decoder()) == 3.0  # after a stream the server ended: its retry, as asked


def event(event_id: str) -> bytes:
    body = {"id": event_id, "resource_type": "order", "event_type": "create", "created_at": "2026-06-24T17:07:53+02:00"}
    return b"id: %s\nevent: order.create\ndata: %s\n\n" % (event_id.encode(), json.dumps(body).encode())


class Broken(httpx.SyncByteStream):
    """A body that breaks off after its chunks, as a dropped connection does."""

    def __init__(self, *chunks: bytes) -> None:
        self.chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        yield from self.chunks
        raise httpx.ReadError("connection reset")


def test_a_dropped_stream_reconnects_after_its_retry_with_the_last_id_received() -> None:
    sent: list[str | None] = []
    answers = [
        Broken(b"retry: 50\n: open\n\n", event("ev2222"), event("ev3333"), b'id: ev4444\ndata: {"cut'),
        httpx.ByteStream(b"retry: 50\n\n" + event("ev4444")),
    ]

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.headers.get("Last-Event-ID"))
        headers = {"Content-Type": "text/event-stream"}
        return httpx.Response(200, headers=headers, stream=answers.pop(0) if answers else httpx.ByteStream(b""))

    with Comptoir("token", "http://comptoir.test", transport=httpx.MockTransport(handler)) as client:
        stream = client.callback.stream()
        started = time.monotonic()
        events = iter(stream)
        got = [next(events).id for _ in range(3)]
        stream.close()
    assert got == ["ev2222", "ev3333", "ev4444"]
    assert sent == [None, "ev3333"]
    assert 0.04 <= time.monotonic() - started < 2.5  # the server's retry: 50 ms (less jitter), not 3 s


def test_without_resume_a_reconnection_asks_for_every_pending_event_again() -> None:
    sent: list[str | None] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.headers.get("Last-Event-ID"))
        return httpx.Response(200, stream=Broken(b"retry: 10\n\n", event("ev2222")))

    with Comptoir("token", "http://comptoir.test", transport=httpx.MockTransport(handler)) as client:
        stream = client.callback.stream("ev9999", resume=False)
        events = iter(stream)
        assert [next(events).id for _ in range(2)] == ["ev2222", "ev2222"]
        stream.close()
    assert sent == ["ev9999", None]


class AsyncBroken(httpx.AsyncByteStream):
    def __init__(self, *chunks: bytes) -> None:
        self.chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk
        raise httpx.ReadError("connection reset")


async def test_the_async_stream_reconnects_and_resumes_the_same_way() -> None:
    sent: list[str | None] = []
    answers = [AsyncBroken(b"retry: 10\n\n", event("ev2222"), b"id: ev3333\nda"), AsyncBroken(event("ev3333"))]

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.headers.get("Last-Event-ID"))
        return httpx.Response(200, stream=answers.pop(0) if answers else AsyncBroken())

    async with (
        AsyncComptoir("token", "http://comptoir.test", transport=httpx.MockTransport(handler)) as client,
        client.callback.stream() as stream,
    ):
        events = aiter(stream)
        assert [(await anext(events)).id, (await anext(events)).id] == ["ev2222", "ev3333"]
        assert stream.last_event_id == "ev3333"
    assert sent == [None, "ev2222"]


def test_reopen_every_replaces_the_connection_between_messages_at_once() -> None:
    sent: list[str | None] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.headers.get("Last-Event-ID"))
        later = "ev3333" if len(sent) == 1 else "ev4444"
        return httpx.Response(200, stream=Broken(event("ev2222" if len(sent) == 1 else "ev3333"), event(later)))

    with Comptoir("token", "http://comptoir.test", transport=httpx.MockTransport(handler)) as client:
        stream = client.callback.stream(reopen_every=0.0)
        started, events = time.monotonic(), iter(stream)
        assert [next(events).id, next(events).id] == ["ev2222", "ev3333"]
        stream.close()
    assert sent == [None, "ev2222"]  # replaced after its first chunk, resumed after its last event
    assert time.monotonic() - started < 2.5  # at once, not after the retry delay
