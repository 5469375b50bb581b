"""`comptoir-listen --forward-to URL` as a real process, against a real `comptoir serve` on both
databases and a real local receiver (comptoir_client/listen.py): each event POSTed signed as a
callback, so that the client's and the example's verifications accept it; acknowledged only
once the receiver answered 200-499; a 5xx tried again and left pending; nothing lost across
its own restart."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import httpx
import pytest
from client_live_server import Live
from tests.receiver import Answer, Received, running_receiver
from tests.waiting import PATIENCE, as_in_a_terminal, wait_until

from comptoir_client import verify_hmac, verify_standard

pytestmark = pytest.mark.e2e
LISTEN = str(Path(sys.executable).parent / "comptoir-listen")
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@dataclass
class App:
    """An application's connection with a passive callback of order creations."""

    client_secret: str
    token: str
    signing_secret: str


def passive_app(live: Live) -> App:
    _client_id, client_secret, token = live.connection(f"Kitchen {uuid.uuid4().hex[:6]}")
    with live.client(token) as client:
        client.callback.set(None, {"order": ["create"]})
        return App(client_secret, token, client.callback.signing_secret().secret)


def new_order(live: Live) -> str:
    with live.client() as writer:  # another application: the listener receives its changes
        return writer.orders.create(live.location_id, {"status": "new"}).id


def pending(live: Live, app: App) -> list[str]:
    with live.client(app.token) as client:
        return [event.id for event in client.callback.list_events()]


def order_of(request: Received) -> str:
    return str(json.loads(request.body)["order_id"])


class Listener:
    def __init__(self, process: subprocess.Popen[str], log: Path) -> None:
        self.process, self.log = process, log

    def stop(self) -> tuple[int, str]:
        """Ctrl-C, as a person stops it: its exit status and everything it wrote."""
        self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=PATIENCE), self.log.read_text()


@contextmanager
def listening(live: Live, app: App, url: str) -> Iterator[Listener]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")}
    env |= {"COMPTOIR_URL": live.base_url, "COMPTOIR_TOKEN": app.token, "COMPTOIR_CLIENT_SECRET": app.client_secret}
    log = live.cwd / f"listen-{uuid.uuid4().hex[:6]}.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            as_in_a_terminal([LISTEN, "--forward-to", url]), env=env, stdout=out, stderr=subprocess.STDOUT, text=True
        )
    try:
        yield Listener(process, log)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def example_verifier() -> ModuleType:
    spec = importlib.util.spec_from_file_location("verify_callback", EXAMPLES / "verify_callback.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_forwarded_events_verify_under_both_schemes_and_are_acknowledged(live: Live) -> None:
    app = passive_app(live)
    before = new_order(live)
    with running_receiver() as receiver, listening(live, app, receiver.url("/hook")) as listener:
        answered = threading.Event()
        receiver.answer("/hook", Answer(200, hold=answered))
        [held] = receiver.wait_for("/hook", 1)
        url = f"{live.base_url}/v1/callback/events/{held.headers['X-Event-Id']}"
        read = httpx.get(url, headers={"X-Access-Token": app.token})  # before it is acknowledged
        assert (read.status_code, held.body) == (200, read.content)  # the body exactly as the API reads it
        answered.set()
        after = new_order(live)
        received = receiver.wait_for("/hook", 2)
        wait_until(lambda: pending(live, app) == [], "both events acknowledged")
        status, log = listener.stop()
    assert [order_of(request) for request in received] == [before, after]
    example = example_verifier()
    for request in received:
        by_client = verify_hmac(request.body, request.headers, app.client_secret)
        assert verify_standard(request.body, request.headers, app.signing_secret).event_id == by_client.event_id
        assert example.verify_hmac(app.client_secret, request.body, request.headers["X-Service-Hmac-SHA256"])
        assert example.verify_standard(app.signing_secret, request.headers, request.body)
        assert request.headers["X-Event-Id"] == request.headers["webhook-id"] == by_client.event.id
        assert request.headers["Content-Type"] == "application/json"
        assert f"order.create {by_client.event_id} -> 200, acknowledged" in log
    assert status == 0
    assert "Traceback" not in log
    for secret in (app.token, app.client_secret, app.signing_secret, app.signing_secret.removeprefix("whsec_")):
        assert secret not in log


def test_a_5xx_is_tried_again_and_left_pending_a_4xx_is_acknowledged(live: Live) -> None:
    app = passive_app(live)
    with running_receiver() as receiver, listening(live, app, receiver.url("/hook")) as listener:
        release = threading.Event()
        receiver.per_event = lambda n: Answer(500) if n == 0 else Answer(200, hold=release)
        failing = new_order(live)
        [first, second] = receiver.wait_for("/hook", 2)  # the second try waits for `release`
        [event_id] = pending(live, app)
        assert (order_of(first), order_of(second)) == (failing, failing)
        release.set()
        wait_until(lambda: pending(live, app) == [], "the event acknowledged after its second try")
        receiver.per_event = lambda _n: Answer(422)
        refused = new_order(live)
        receiver.wait_for("/hook", 3)
        wait_until(lambda: pending(live, app) == [], "the refused event acknowledged")
        assert [order_of(request) for request in receiver.requests_to("/hook")] == [failing, failing, refused]
        status, log = listener.stop()
    assert f"order.create {event_id} -> 500, not acknowledged, again in 1 s" in log
    assert f"order.create {event_id} -> 200, acknowledged" in log
    assert "-> 422, acknowledged" in log
    assert status == 0


def test_after_its_own_restart_nothing_is_lost(live: Live) -> None:
    app = passive_app(live)
    with running_receiver() as receiver:
        receiver.per_event = lambda _n: Answer(503)  # the local application is down
        with listening(live, app, receiver.url("/hook")) as listener:
            failing = new_order(live)
            receiver.wait_for("/hook", 1)
            status, _log = listener.stop()
        assert status == 0
        while_stopped = new_order(live)
        assert len(pending(live, app)) == 2
        receiver.per_event = None
        tries = len(receiver.requests_to("/hook"))
        with listening(live, app, receiver.url("/hook")) as listener:
            wait_until(lambda: pending(live, app) == [], "every event acknowledged after the restart")
            listener.stop()
        after_restart = receiver.requests_to("/hook")[tries:]
    assert [order_of(request) for request in after_restart] == [failing, while_stopped]


def test_a_refused_stream_ends_it_with_a_one_line_error(live: Live) -> None:
    app = passive_app(live)
    with live.client(app.token) as client:
        client.callback.set("http://127.0.0.1:9/hook", {"order": ["create"]})  # an active callback
    with listening(live, app, "http://127.0.0.1:9/hook") as listener:
        status = listener.process.wait(timeout=PATIENCE)
        log = listener.log.read_text()
    assert status == 1
    assert "409 conflict: The callback delivers its events to its URL" in log
    assert "Traceback" not in log


def test_a_local_url_that_refuses_connections_is_tried_again_and_nothing_acknowledged(live: Live) -> None:
    app = passive_app(live)
    with socket.create_server(("127.0.0.1", 0)) as reserved:
        closed_port = reserved.getsockname()[1]  # closed again below: connections are refused
    with listening(live, app, f"http://127.0.0.1:{closed_port}/hook") as listener:
        new_order(live)
        [event_id] = pending(live, app)
        tried = f"order.create {event_id} -> ConnectError, not acknowledged, again in 2 s"
        wait_until(lambda: tried in listener.log.read_text(), "a second try refused")
        assert pending(live, app) == [event_id]
        status, log = listener.stop()
    assert status == 0
    assert [line for line in log.splitlines() if line.endswith(", acknowledged")] == []
