"""HTTP conventions of the API, in one pure ASGI middleware (cheap on every request).

- `X-Request-Id` on every response (the caller's own when it sends a sane one);
- `X-Http-Method-Override` on POST turns it into the named method; on GET it is a 400
  (spec 4, docs/api/conventions.md "Methods");
- a trailing slash is ignored (`GET /locations/` of spec 4.8 is `GET /locations`);
- `/v1` answers browsers from any origin, exposing `X-Cursor-Next` (spec 5.4 item 3);
  the authorisation server does not (spec 5.3 item 6);
- every successful GET of `/v1` carries an `ETag`, and a matching `If-None-Match` gets a 304
  without body (spec 7, docs/api/conventions.md "Responses");
- the rate-limit headers the auth dependency computed are added to the response;
- one access log line per request;
- a request made with a connection's token goes to the request log (`requestlog.py`) with
  the first 10 KB of each body.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from typing import Any

import structlog
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from comptoir.errors import BadRequest, ComptoirError, InternalError
from comptoir.http.request_log import MAX_BODY, Record, RequestLogBuffer
from comptoir.kit import clock

log = structlog.get_logger("comptoir.http")

_REQUEST_ID = re.compile(rb"[A-Za-z0-9._\-]{1,128}")
_OVERRIDABLE = {"GET", "PUT", "PATCH", "DELETE", "POST"}
_CORS = [
    (b"access-control-allow-origin", b"*"),
    (
        b"access-control-expose-headers",
        b"X-Cursor-Next, X-Request-Id, ETag, Retry-After, RateLimit, RateLimit-Policy, Idempotent-Replayed",
    ),
]
_PREFLIGHT = [
    (b"access-control-allow-origin", b"*"),
    (b"access-control-allow-methods", b"GET, POST, PUT, PATCH, DELETE, OPTIONS"),
    (b"access-control-max-age", b"86400"),
]
_DEFAULT_ALLOWED_HEADERS = b"X-Access-Token, Content-Type, X-Http-Method-Override, If-None-Match, Idempotency-Key"


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> bytes | None:
    for key, value in headers:
        if key == name:
            return value
    return None


def _etag_matches(if_none_match: bytes, etag: bytes) -> bool:
    if if_none_match.strip() == b"*":
        return True
    bare = etag.removeprefix(b"W/")
    return any(tag.strip().removeprefix(b"W/") == bare for tag in if_none_match.split(b","))


class HttpConventions:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        headers: list[tuple[bytes, bytes]] = scope["headers"]
        given_id = _header(headers, b"x-request-id")
        request_id = given_id.decode() if given_id and _REQUEST_ID.fullmatch(given_id) else os.urandom(8).hex()
        state: dict[str, Any] = scope.setdefault("state", {})
        state["request_id"] = request_id
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(request_id=request_id)

        path: str = scope["path"]
        if len(path) > 1 and path.endswith("/"):
            path = path.rstrip("/") or "/"
            scope = dict(scope, path=path, raw_path=path.encode())
        api = path == "/v1" or path.startswith("/v1/")
        method: str = scope["method"]
        request_id_header = (b"x-request-id", request_id.encode())
        status_seen = 0

        async def reply_error(error: ComptoirError, extra: list[tuple[bytes, bytes]]) -> None:
            nonlocal status_seen
            body = error.render()
            status_seen = error.status
            await send(
                {
                    "type": "http.response.start",
                    "status": error.status,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                        request_id_header,
                        *extra,
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})

        if api:
            override = _header(headers, b"x-http-method-override")
            if override is not None:
                wanted = override.decode("latin-1").strip().upper()
                if method == "GET":
                    await reply_error(BadRequest("X-Http-Method-Override is not accepted on GET"), _CORS)
                    self._log(method, path, status_seen, started)
                    return
                if method == "POST":
                    if wanted not in _OVERRIDABLE:
                        await reply_error(BadRequest(f"X-Http-Method-Override cannot be {wanted!r}"), _CORS)
                        self._log(method, path, status_seen, started)
                        return
                    method = wanted
                    scope = dict(scope, method=wanted)
            if method == "OPTIONS" and _header(headers, b"access-control-request-method") is not None:
                requested = _header(headers, b"access-control-request-headers") or _DEFAULT_ALLOWED_HEADERS
                await send(
                    {
                        "type": "http.response.start",
                        "status": 200,
                        "headers": [
                            *_PREFLIGHT,
                            (b"access-control-allow-headers", requested),
                            (b"content-length", b"0"),
                            request_id_header,
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": b""})
                self._log(method, path, 200, started)
                return

        # Only /v1 requests are made with tokens: the others skip the request log entirely.
        request_log: RequestLogBuffer | None = scope["app"].state.comptoir.request_log if api else None
        at = clock.now() if request_log is not None else None
        logged = request_log is not None and request_log.enabled
        if logged:  # keep the first 10 KB of each body; the rest only counts
            kept_in, kept_out = bytearray(), bytearray()
            size_in = size_out = 0
            response_type = b""
            upstream_receive, upstream_send = receive, send

            async def receive() -> Message:
                nonlocal size_in
                message = await upstream_receive()
                if message["type"] == "http.request":
                    chunk = message.get("body", b"")
                    size_in += len(chunk)
                    if len(kept_in) < MAX_BODY:
                        kept_in.extend(chunk[: MAX_BODY - len(kept_in)])
                return message

            async def send(message: Message) -> None:
                nonlocal size_out, response_type
                if message["type"] == "http.response.body":
                    chunk = message.get("body", b"")
                    size_out += len(chunk)
                    if len(kept_out) < MAX_BODY:
                        kept_out.extend(chunk[: MAX_BODY - len(kept_out)])
                elif message["type"] == "http.response.start":
                    response_type = _header(message.get("headers", []), b"content-type") or b""
                await upstream_send(message)

        conditional = _header(headers, b"if-none-match") if api and method == "GET" else None
        pending_start: Message | None = None
        started_response = False

        async def send_wrapper(message: Message) -> None:
            nonlocal pending_start, status_seen, started_response
            if message["type"] == "http.response.start":
                started_response = True
                status_seen = message["status"]
                out = list(message.get("headers", []))
                out.append(request_id_header)
                if api:
                    out.extend(_CORS)
                    decision = state.get("ratelimit")
                    if decision is not None:
                        out.extend(decision.headers())
                message = dict(message, headers=out)
                if api and method == "GET" and status_seen == 200:
                    pending_start = message  # wait for the body: the ETag hashes it
                    return
                await send(message)
                return
            if pending_start is not None and message["type"] == "http.response.body":
                start, pending_start = pending_start, None
                body = message.get("body", b"")
                if message.get("more_body"):  # streamed: no ETag
                    await send(start)
                    await send(message)
                    return
                given = _header(start["headers"], b"etag")  # an endpoint that knows its version
                etag = given or b'"' + hashlib.blake2b(body, digest_size=12).hexdigest().encode() + b'"'
                if conditional is not None and _etag_matches(conditional, etag):
                    status_seen = 304
                    kept = [
                        (k, v) for k, v in start["headers"] if k not in (b"content-length", b"content-type", b"etag")
                    ]
                    await send({"type": "http.response.start", "status": 304, "headers": [*kept, (b"etag", etag)]})
                    await send({"type": "http.response.body", "body": b""})
                    return
                if given is None:
                    start = dict(start, headers=[*start["headers"], (b"etag", etag)])
                await send(start)
                await send(message)
                return
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        except ClientDisconnect:
            # the client left, or was closed for sending its body too slowly (http/protocol.py):
            # no one to answer, nothing unexpected
            log.info("client_disconnected", method=method, path=path)
        except Exception:
            # An unexpected error: log it with the request id, answer spec 7's internal_error
            # with the same headers as any other response (request id, CORS).
            log.exception("internal_error", method=method, path=path)
            if started_response:
                raise
            await reply_error(InternalError(), _CORS if api else [])
        finally:
            connection_id = state.get("connection_id")
            self._log(method, path, status_seen, started, connection_id)
            if connection_id is not None and request_log is not None and at is not None:
                request_log.used(connection_id, at)
            if logged and connection_id is not None and request_log is not None and at is not None:
                query = scope.get("query_string", b"")
                request_log.add(
                    Record(
                        connection_id=connection_id,
                        at=at,
                        request_id=request_id,
                        method=method,
                        path=f"{path}?{query.decode('latin-1')}" if query else path,
                        status=status_seen,
                        duration_ms=round((time.perf_counter() - started) * 1000),
                        request_body=bytes(kept_in),
                        request_bytes=size_in,
                        request_type=(_header(headers, b"content-type") or b"").decode("latin-1"),
                        response_body=bytes(kept_out),
                        response_bytes=size_out,
                        response_type=response_type.decode("latin-1"),
                    )
                )

    @staticmethod
    def _log(method: str, path: str, status: int, started: float, connection_id: int | None = None) -> None:
        log.info(
            "request",
            method=method,
            path=path,
            status=status,
            duration_ms=round((time.perf_counter() - started) * 1000, 2),
            connection_id=connection_id,
        )
