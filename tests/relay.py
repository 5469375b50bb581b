"""A TCP relay in front of a dependency (PostgreSQL, Redis) that the tests make fail the ways a
network does (docs/operations.md "When a dependency fails"):

- `forward()`: passes bytes both ways (the dependency is up);
- `refuse()`: the port is closed: new connections are refused, open ones are cut;
- `blackhole()`: new connections are accepted and never answered, and the open ones stop
  passing bytes: what is sent is dropped (a host that went away without a word, a firewall
  dropping packets);
- `slow(seconds)`: the server's answers are held `seconds` before they are passed on (a
  server that does the work and answers late).

It runs in threads, so a test's event loop and a server's process alike can reach it.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

FORWARD, BLACKHOLE, SLOW = "forward", "blackhole", "slow"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Relay:
    def __init__(self, target_port: int, target_host: str = "127.0.0.1") -> None:
        self.port = free_port()
        self.target = (target_host, target_port)
        self.mode = FORWARD
        self.delay = 0.0
        self.accepted = 0  # connections accepted since the relay was made
        self._listener: socket.socket | None = None
        self._sockets: set[socket.socket] = set()
        self._lock = threading.Lock()

    # --- modes --------------------------------------------------------------------------

    def forward(self) -> None:
        self.mode = FORWARD
        self._listen()

    def refuse(self) -> None:
        """Close the port and cut every open connection."""
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept()
            listener.close()
        self._cut_all()

    def blackhole(self) -> None:
        """Accept and never answer; open connections stop passing bytes."""
        self.mode = BLACKHOLE
        self._listen()

    def slow(self, seconds: float) -> None:
        self.delay = seconds
        self.mode = SLOW
        self._listen()

    def url_of(self, url: str, port: int) -> str:
        """`url` with the dependency's port replaced by the relay's."""
        replaced = url.replace(f":{port}/", f":{self.port}/")
        assert replaced != url, url
        return replaced

    def close(self) -> None:
        self.refuse()

    # --- the threads ----------------------------------------------------------------------

    def _listen(self) -> None:
        if self._listener is not None:
            return
        listener = socket.create_server(("127.0.0.1", self.port))
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _cut_all(self) -> None:
        with self._lock:
            sockets, self._sockets = list(self._sockets), set()
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            if self._listener is not listener:  # closed meanwhile
                client.close()
                return
            self.accepted += 1
            with self._lock:
                self._sockets.add(client)
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        while self.mode == BLACKHOLE and client in self._sockets:
            time.sleep(0.05)  # held open, unanswered, until the relay forwards again or cuts
        if client not in self._sockets:
            return
        try:
            upstream = socket.create_connection(self.target, timeout=5)
        except OSError:
            client.close()
            return
        upstream.settimeout(None)
        with self._lock:
            if client not in self._sockets:  # cut while connecting: `_cut_all` would miss it
                upstream.close()
                return
            self._sockets.add(upstream)
        threading.Thread(target=self._pipe, args=(client, upstream, False), daemon=True).start()
        threading.Thread(target=self._pipe, args=(upstream, client, True), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket, answers: bool) -> None:
        try:
            while data := source.recv(65536):
                if self.mode == BLACKHOLE:
                    continue  # the bytes go nowhere while the hole lasts
                if self.mode == SLOW and answers:
                    time.sleep(self.delay)
                sink.sendall(data)
        except OSError:
            pass
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)


@contextlib.contextmanager
def relay_to(port: int) -> Iterator[Relay]:
    relay = Relay(port)
    relay.forward()
    try:
        yield relay
    finally:
        relay.close()
