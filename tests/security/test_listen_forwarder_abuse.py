"""Abuse of `comptoir-listen` (clients/python/README.md "comptoir-listen"): a --forward-to
that is no http(s) URL (a file, another protocol, no host) is refused before anything is
sent, and neither the token, the client secret nor credentials in the URLs reach its log."""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.waiting import PATIENCE, as_in_a_terminal

LISTEN = str(Path(sys.executable).parent / "comptoir-listen")
TOKEN = "f00dfeedf00dfeedf00dfeedf00dfeed"
CLIENT_SECRET = "client-secret-that-must-stay-out-of-logs"


@contextmanager
def silent_server() -> Iterator[socket.socket]:
    """A port that accepts connections and never answers: any request shows as a pending one."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server


def environment(base_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")}
    return env | {"COMPTOIR_URL": base_url, "COMPTOIR_TOKEN": TOKEN, "COMPTOIR_CLIENT_SECRET": CLIENT_SECRET}


@pytest.mark.parametrize(
    "target",
    [
        "file:///etc/passwd",
        "ftp://127.0.0.1/hook",
        "gopher://127.0.0.1:70/_POST",
        "javascript:alert(1)",
        "http://",
        "http:///hook",
        "127.0.0.1:8080/hook",
        "http://127.0.0.1:port/hook",
    ],
)
def test_a_forward_to_that_is_no_http_url_is_refused_before_anything_is_sent(target: str) -> None:
    with silent_server() as comptoir:
        base_url = f"http://127.0.0.1:{comptoir.getsockname()[1]}"
        done = subprocess.run(
            [LISTEN, "--forward-to", target],
            env=environment(base_url),
            capture_output=True,
            text=True,
            timeout=PATIENCE,
            check=False,
        )
        connected, _, _ = select.select([comptoir], [], [], 0)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("comptoir-listen: argument --forward-to: ")
    assert target in done.stderr
    assert connected == []  # the token went nowhere
    assert TOKEN not in done.stderr
    assert CLIENT_SECRET not in done.stderr


def test_the_token_secret_and_url_credentials_stay_out_of_the_log() -> None:
    with silent_server() as comptoir:
        port = comptoir.getsockname()[1]
        base_url = f"http://operator:comptoir-password@127.0.0.1:{port}"
        target = "http://user:hunter2@127.0.0.1:9/hook?key=sekrit-key#frag"
        process = subprocess.Popen(
            as_in_a_terminal([LISTEN, "--forward-to", target]),
            env=environment(base_url),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            comptoir.settimeout(PATIENCE)
            connection, _ = comptoir.accept()
            with connection:
                request = b""
                while b"\r\n\r\n" not in request:  # the stream asked for, with the token
                    request += connection.recv(65536) or b"\r\n\r\n"
                process.send_signal(signal.SIGINT)
                log, _ = process.communicate(timeout=PATIENCE)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert request.startswith(b"GET /v1/callback/stream ")
    assert f"x-access-token: {TOKEN}".encode() in request.lower()
    assert process.returncode == 0
    assert f"listening to http://127.0.0.1:{port}, forwarding to http://127.0.0.1:9/hook" in log
    for secret in (TOKEN, CLIENT_SECRET, "comptoir-password", "hunter2", "sekrit-key", "frag"):
        assert secret not in log
    assert "Traceback" not in log


# A Ctrl-C that lands between two system calls (say between sending the stream's request and
# blocking on its answer) only marks the signal pending: a thread blocked in a read does not
# wake for it. `_thread.interrupt_main` does exactly that, without any system call to break.
_LOST_WAKEUP = """
import _thread, sys, threading
from comptoir_client.listen import main
threading.Timer(float(sys.argv[1]), _thread.interrupt_main).start()
sys.exit(main(sys.argv[2:]))
"""


def test_a_ctrl_c_that_no_blocked_read_notices_still_stops_it_at_once() -> None:
    with silent_server() as comptoir:  # the stream's request is sent, and never answered
        base_url = f"http://127.0.0.1:{comptoir.getsockname()[1]}"
        done = subprocess.run(
            as_in_a_terminal([sys.executable, "-c", _LOST_WAKEUP, "1.0", "--forward-to", "http://127.0.0.1:9/hook"]),
            env=environment(base_url),
            capture_output=True,
            text=True,
            timeout=PATIENCE,  # before: until the stream's read timed out (60 s), then again
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert done.stderr.endswith(" stopped\n")
    assert "Traceback" not in done.stderr
