"""What the running service holds: settings, database, server key, rate limiter, the direct
driver, the connection cache, the trusted proxies and the wake-up of live answers."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request

from comptoir.config import Settings
from comptoir.db.connection_cache import ConnectionCache
from comptoir.db.direct import FastReader
from comptoir.db.engine import Database
from comptoir.events.wakeup import Wakeup
from comptoir.http.forwarded import TrustedProxies
from comptoir.ratelimit import RateLimiter
from comptoir.request_logs.buffer import RequestLogBuffer


@dataclass(slots=True)
class AppState:
    settings: Settings
    db: Database
    key: bytes
    limiter: RateLimiter
    fast: FastReader
    cache: ConnectionCache  # what hot paths remember of connections
    request_log: RequestLogBuffer
    proxies: TrustedProxies  # COMPTOIR_FORWARDED_ALLOW_IPS (http/forwarded.py)
    wakeup: Wakeup  # what live answers hear of commits, once per process (events/wakeup.py)
    # the process's event streams (`callbacks.stream.streams_of`, which narrows it), made with
    # the first stream: a feature's object, held as `object` by this layer below it
    streams: object = None
    # the process's live boards of the back office (`web.board_stream.boards_of`), alike
    boards: object = None


def app_state(request: Request) -> AppState:
    return request.app.state.comptoir
