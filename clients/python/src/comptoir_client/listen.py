"""`comptoir-listen --forward-to URL`: a passive callback's events, forwarded to a local URL as
Comptoir would POST them to a callback (clients/python/README.md "comptoir-listen").

It holds `GET /v1/callback/stream` with the token in COMPTOIR_TOKEN (server in COMPTOIR_URL)
and POSTs each event's body, exactly as streamed, to URL with the headers of a delivery
(docs/api/callbacks-events.md "Verifying a callback"): `X-Service-Hmac-SHA256` keyed with
COMPTOIR_CLIENT_SECRET and the Standard Webhooks headers keyed with the callback's signing
secret (`GET /v1/callback/signing_secret`, read again at most a minute old), both made by
`webhooks.signed_headers`, which the verification beside it reads.

As the delivery worker does, an answer 200-499 acknowledges the event (`DELETE
/v1/callback/events/:id`); a 5xx or no answer is tried again, with a growing wait, before any
later event (they stay in order), and the event is not acknowledged meanwhile. Nothing is kept
on disk: what was not acknowledged is still pending at the server, and each (re)connection
asks for every pending event (`resume=False`), so a restart, or a connection lost at any
moment, loses nothing; the connection is also replaced every few minutes, which picks up an
event committed behind one already streamed. One line per event on stderr; never the token or
a secret. Ctrl-C (or SIGTERM) stops it with exit status 0.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from types import FrameType
from typing import NoReturn
from urllib.parse import urlsplit

import httpx

from comptoir_client._core import DEFAULT_BASE_URL, __version__
from comptoir_client.client import Comptoir
from comptoir_client.errors import ComptoirError, InternalError, NotFound, ServiceUnavailable, TransportError
from comptoir_client.sse import ServerSentEvent
from comptoir_client.webhooks import signed_headers

log = logging.getLogger("comptoir_client.listen")

SECRET_MAX_AGE = 60.0  # seconds a signing secret read is used before it is read again
REOPEN_EVERY = 300.0  # seconds a stream connection is held before it is replaced
FIRST_WAIT, MAX_WAIT = 1.0, 60.0  # the waits before a failed forward is tried again
SIGNAL_CHECK = 0.2  # seconds at most between two looks at a pending Ctrl-C or SIGTERM


def http_url(value: str) -> str:
    """An http(s) URL with a host, else argparse's one-line error (nothing else is POSTed to)."""
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - a port that is no number raises here
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a URL: {value}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(f"must be an http:// or https:// URL with a host, not {value}")
    return value


def shown(url: str) -> str:
    """A URL as logged: without a user, password, query or fragment (they may hold secrets)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    netloc += f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{netloc}{parts.path}"


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """Bad arguments: one line on stderr, exit status 2, nothing sent anywhere."""
        self.exit(2, f"comptoir-listen: {message}\n")


def arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = Parser(
        prog="comptoir-listen",
        description="Forward a passive callback's events (GET /v1/callback/stream) to a local URL, "
        "signed as Comptoir signs a callback. Environment: COMPTOIR_TOKEN (required), "
        f"COMPTOIR_CLIENT_SECRET (required), COMPTOIR_URL (default {DEFAULT_BASE_URL}).",
    )
    parser.add_argument("--forward-to", required=True, type=http_url, metavar="URL", help="where each event is POSTed")
    parser.add_argument(
        "--timeout", type=float, default=20.0, help="seconds URL has to answer (default 20, as a callback)"
    )
    return parser.parse_args(argv)


class Forwarder:
    """POSTs events to `url`, signed, and acknowledges those the URL took (200-499)."""

    def __init__(self, client: Comptoir, url: str, client_secret: str, timeout: float) -> None:
        self.client, self.url, self.client_secret = client, url, client_secret
        self.http = httpx.Client(timeout=timeout, headers={"User-Agent": f"comptoir-listen/{__version__}"})
        self._secret: tuple[float, str] | None = None

    def close(self) -> None:
        self.http.close()

    def signing_secret(self) -> str:
        now = time.monotonic()
        if self._secret is None or now - self._secret[0] > SECRET_MAX_AGE:
            self._secret = (now, self.client.callback.signing_secret().secret)
        return self._secret[1]

    def forward(self, message: ServerSentEvent) -> None:
        """POST `message` until URL answers 200-499, then acknowledge it."""
        body, wait = message.data.encode(), FIRST_WAIT
        while True:
            try:
                headers = signed_headers(
                    body,
                    message.id,
                    client_secret=self.client_secret,
                    signing_secret=self.signing_secret(),
                    timestamp=int(time.time()),
                )
                status: int | str = self.http.post(self.url, content=body, headers=headers).status_code
            except httpx.HTTPError as error:
                status = type(error).__name__
            except (TransportError, InternalError, ServiceUnavailable) as error:  # the secret unread
                status = f"signing secret unread ({error})"
            if isinstance(status, int) and status < 500:
                break
            log.warning("%s %s -> %s, not acknowledged, again in %.0f s", message.event, message.id, status, wait)
            time.sleep(wait)
            wait = min(MAX_WAIT, wait * 2)
        try:
            self.client.callback.acknowledge(message.id)
            outcome = "acknowledged"
        except NotFound:
            outcome = "already acknowledged"
        except (TransportError, InternalError, ServiceUnavailable) as error:
            outcome = f"not acknowledged ({error}): still pending, it will come again"
        log.info("%s %s -> %s, %s", message.event, message.id, status, outcome)


def _stop(signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    args = arguments(argv)
    formatter = logging.Formatter("%(asctime)s %(message)s", "%Y-%m-%dT%H:%M:%SZ")
    formatter.converter = time.gmtime
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter)
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    logging.getLogger("httpx").setLevel(logging.WARNING)  # its lines would repeat ours
    token, client_secret = os.environ.get("COMPTOIR_TOKEN", ""), os.environ.get("COMPTOIR_CLIENT_SECRET", "")
    base_url = os.environ.get("COMPTOIR_URL") or DEFAULT_BASE_URL
    required = (("COMPTOIR_TOKEN", token), ("COMPTOIR_CLIENT_SECRET", client_secret))
    missing = [name for name, value in required if not value]
    if missing:
        print(f"comptoir-listen: set {' and '.join(missing)}", file=sys.stderr)
        return 2
    try:
        http_url(base_url)
    except argparse.ArgumentTypeError as error:
        print(f"comptoir-listen: COMPTOIR_URL {error}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _stop)
    client = Comptoir(token, base_url)
    forwarder = Forwarder(client, args.forward_to, client_secret, args.timeout)
    outcome: list[BaseException] = []

    def listen() -> None:
        try:
            with client.callback.stream(resume=False, reopen_every=REOPEN_EVERY) as stream:
                for message in stream.messages():
                    forwarder.forward(message)
        except BaseException as error:  # handed to the main thread as it is
            outcome.append(error)

    # The stream is read in a thread, and the main thread only waits: a Ctrl-C that arrives
    # between two system calls (sending the request, then blocking on the answer) wakes no
    # blocked read, and would wait for the read's timeout (a minute); the main thread's wait
    # is cut every SIGNAL_CHECK seconds, so the signal is seen at once.
    reader = threading.Thread(target=listen, name="comptoir-listen stream", daemon=True)
    try:
        log.info("listening to %s, forwarding to %s", shown(base_url), shown(args.forward_to))
        reader.start()
        while reader.is_alive():
            reader.join(SIGNAL_CHECK)
        if outcome:
            raise outcome[0]
    except KeyboardInterrupt:
        log.info("stopped")  # the reader may be in a request: it ends with the process
        return 0
    except ComptoirError as error:
        log.error("comptoir-listen: %s", error)
        return 1
    finally:
        if not reader.is_alive():  # else closing them under the reader would be its error
            forwarder.close()
            client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
