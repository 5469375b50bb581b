"""A real HTTP receiver for callback tests: a threaded server on 127.0.0.1 that records every
request (time, path, headers, body) and answers as the test scripts it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.waiting import PATIENCE

WITHOUT_BODY = frozenset({204, 304})  # statuses whose answer carries no body (RFC 9110 6.4.1)


@dataclass
class Received:
    at: float  # time.monotonic()
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Answer:
    status: int = 200
    delay: float = 0.0
    body: bytes = b"ok"
    headers: dict[str, str] = field(default_factory=dict)
    pause_after: int | None = None  # write this many body bytes, flush, wait `stall` s, then the rest
    stall: float = 0.2
    # answer only once the test sets it: "while the request is still being answered" is then
    # a state the test holds, not a delay it hopes is long enough
    hold: threading.Event | None = None


class Receiver:
    def __init__(self) -> None:
        self.received: list[Received] = []
        self.lock = threading.Lock()
        # path -> how to answer the n-th request to that path (0-based); default 200
        self.script: dict[str, Callable[[int], Answer]] = {}
        self._counts: dict[str, int] = {}
        # or, for every path: how to answer the n-th request carrying that X-Event-Id
        self.per_event: Callable[[int], Answer] | None = None
        self._event_counts: dict[str, int] = {}
        self.server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def url(self, path: str) -> str:
        return self.base_url + path

    def answer(self, path: str, how: Callable[[int], Answer] | Answer) -> None:
        self.script[path] = how if callable(how) else (lambda _n, a=how: a)

    def by_event(self) -> dict[str, list[Received]]:
        with self.lock:
            grouped: dict[str, list[Received]] = {}
            for request in self.received:
                grouped.setdefault(request.headers.get("X-Event-Id", ""), []).append(request)
            return grouped

    def requests_to(self, path: str) -> list[Received]:
        with self.lock:
            return [r for r in self.received if r.path == path]

    def wait_for(self, path: str, count: int, timeout: float = PATIENCE) -> list[Received]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = self.requests_to(path)
            if len(got) >= count:
                return got
            time.sleep(0.02)
        raise AssertionError(f"{path}: {len(self.requests_to(path))} requests, expected {count}")

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("content-length") or 0)
        body = handler.rfile.read(length)
        with self.lock:
            self.received.append(Received(time.monotonic(), handler.path, dict(handler.headers.items()), body))
            n = self._counts.get(handler.path, 0)
            self._counts[handler.path] = n + 1
            event_id = handler.headers.get("X-Event-Id", "")
            n_event = self._event_counts.get(event_id, 0)
            self._event_counts[event_id] = n_event + 1
        how = self.script.get(handler.path)
        answer = self.per_event(n_event) if self.per_event else how(n) if how else Answer()
        body = b"" if answer.status in WITHOUT_BODY else answer.body
        if answer.delay:
            time.sleep(answer.delay)
        if answer.hold is not None:
            answer.hold.wait(PATIENCE)
        try:
            handler.send_response(answer.status)
            for key, value in answer.headers.items():
                handler.send_header(key, value)
            if answer.status not in WITHOUT_BODY:
                handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            if answer.pause_after is not None:
                handler.wfile.write(body[: answer.pause_after])
                handler.wfile.flush()
                time.sleep(answer.stall)
                body = body[answer.pause_after :]
            handler.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
            pass


@contextmanager
def running_receiver() -> Iterator[Receiver]:
    receiver = Receiver()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            receiver._handle(self)

        def log_message(self, *_args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    receiver.server = server
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
