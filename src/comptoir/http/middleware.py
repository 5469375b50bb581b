"""HTTP conventions of the API, in one pure ASGI middleware (cheap on every request).

`HttpConventions` applies these steps, each a function or a small class of this module:

- `request_id`, `tag_request`: `X-Request-Id` on every response (the caller's own when it
  sends a sane one), and on every log line of the request;
- `forwarded` (`http/forwarded.py`): behind a trusted proxy, the client and scheme it
  forwards (docs/operations.md "Behind a proxy"); `tag_request` puts the client on every log
  line too;
- `without_trailing_slash`: a trailing slash is ignored (`GET /locations/` of spec 4.8 is
  `GET /locations`);
- `overridden_method`: `X-Http-Method-Override` on POST turns it into the named method; on
  GET it is a 400 (spec 4, docs/api/conventions.md "Methods");
- `head_as_get`: `HEAD` is answered wherever `GET` is, as that `GET` (its status and
  headers, `ETag` and `Content-Length` included) without the body; where there is no `GET`,
  it is the `405` a `GET` would get (docs/api/conventions.md "Methods");
- `preflight`, `response_headers`: `/v1` answers browsers from any origin, exposing
  `X-Cursor-Next` (spec 5.4 item 3); the authorisation server does not (spec 5.3 item 6).
  The rate-limit headers of the decision the permission check left in the request's context
  (`auth.request_context`) are added to the response;
- `tagged`: every successful GET of `/v1` carries an `ETag`, and a matching `If-None-Match`
  gets a 304 without body (spec 7, docs/api/conventions.md "Responses");
- `error_answer`: an error no exception handler answered is framed here (`errors.framed`,
  with its own headers), and an unexpected one is spec 7's 500 `internal_error`, with the
  headers of any other response;
- `access_log`: one access log line per request;
- `counted`: the request in the Prometheus metrics, by route template (docs/operations.md
  "Metrics"), unless COMPTOIR_METRICS_PATH is off;
- `BodyTap`: a request made with a connection's token goes to the request log
  (`request_logs/buffer.py`) with the first 10 KB of each body.

`Responder` is what the application sends through: it applies the response steps.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from datetime import datetime

import structlog
from fastapi.routing import _FASTAPI_EFFECTIVE_ROUTE_CONTEXT_KEY as _EFFECTIVE_ROUTE
from fastapi.routing import _FASTAPI_SCOPE_KEY as _FASTAPI_SCOPE
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from comptoir.auth.access import carries_token
from comptoir.auth.request_context import RequestContext, context_of
from comptoir.auth.request_context import start as start_context
from comptoir.errors import BadRequest, ComptoirError, InternalError, framed
from comptoir.http.forwarded import forwarded
from comptoir.kit import clock, metrics
from comptoir.kit.wire import shown
from comptoir.ratelimit import Decision
from comptoir.request_logs.buffer import MAX_BODY, Record

log = structlog.get_logger("comptoir.http")

Headers = list[tuple[bytes, bytes]]

_REQUEST_ID = re.compile(rb"[A-Za-z0-9._\-]{1,128}")
_OVERRIDABLE = {"GET", "PUT", "PATCH", "DELETE", "POST"}
CORS = [
    (b"access-control-allow-origin", b"*"),
    (
        b"access-control-expose-headers",
        b"X-Cursor-Next, X-Request-Id, ETag, Retry-After, RateLimit, RateLimit-Policy, Idempotent-Replayed, "
        b"WWW-Authenticate",
    ),
]
_PREFLIGHT = [
    (b"access-control-allow-origin", b"*"),
    (b"access-control-allow-methods", b"GET, POST, PUT, PATCH, DELETE, OPTIONS"),
    (b"access-control-max-age", b"86400"),
]
_DEFAULT_ALLOWED_HEADERS = (
    b"X-Access-Token, Authorization, Content-Type, X-Http-Method-Override, If-None-Match, Idempotency-Key"
)
_NOT_KEPT_BY_304 = (b"content-length", b"content-type", b"etag")


def header(headers: Headers, name: bytes) -> bytes | None:
    for key, value in headers:
        if key == name:
            return value
    return None


# --- the request ------------------------------------------------------------------------------


def request_id(headers: Headers) -> str:
    """The caller's `X-Request-Id` when it is sane (1 to 128 of `A-Za-z0-9._-`), else a new one."""
    given = header(headers, b"x-request-id")
    return given.decode() if given and _REQUEST_ID.fullmatch(given) else os.urandom(8).hex()


def tag_request(scope: Scope, request_id: str) -> RequestContext:
    """The request's context (`auth.request_context`), made here once, holding its id; every
    log line of the request carries the id and the client's address (`forwarded`'s), bound at
    once."""
    context = start_context(scope, request_id)
    client = scope.get("client")
    structlog.contextvars.clear_contextvars()
    structlog.contextvars.bind_contextvars(request_id=request_id, client=client[0] if client else None)
    return context


def without_trailing_slash(scope: Scope) -> Scope:
    path: str = scope["path"]
    if len(path) > 1 and path.endswith("/"):
        path = path.rstrip("/") or "/"
        return dict(scope, path=path, raw_path=path.encode())
    return scope


def overridden_method(method: str, headers: Headers) -> str:
    """The method an API request is made with: POST's `X-Http-Method-Override` names it;
    BadRequest on GET, or for a method that cannot be named; other methods keep theirs."""
    override = header(headers, b"x-http-method-override")
    if override is None:
        return method
    wanted = override.decode("latin-1").strip().upper()
    if method == "GET":
        raise BadRequest("X-Http-Method-Override is not accepted on GET")
    if method != "POST":
        return method
    if wanted not in _OVERRIDABLE:
        raise BadRequest(f"X-Http-Method-Override cannot be {shown(wanted)}")
    return wanted


def head_as_get(scope: Scope, send: Send) -> tuple[Scope, Send]:
    """A HEAD request routed as its GET, and the send that drops the body of the answer (the
    headers kept as they are); other requests as they are. The answer ends with the GET's first
    body message: an answer sent in parts, an event stream that never ends included, is
    answered at once, and the rest of its body is dropped (the answer being complete, the
    server then tells the GET's handler that its client is gone)."""
    if scope["method"] != "HEAD":
        return scope, send
    ended = False

    async def headers_only(message: Message) -> None:
        nonlocal ended
        if message["type"] == "http.response.body":
            if ended:
                return
            ended = True
            message = {"type": "http.response.body", "body": b"", "more_body": False}
        await send(message)

    return dict(scope, method="GET"), headers_only


def preflight(method: str, headers: Headers, id_header: tuple[bytes, bytes]) -> tuple[Message, Message] | None:
    """The answer to a CORS preflight, or None when the request is not one."""
    if method != "OPTIONS" or header(headers, b"access-control-request-method") is None:
        return None
    requested = header(headers, b"access-control-request-headers") or _DEFAULT_ALLOWED_HEADERS
    allowed = [*_PREFLIGHT, (b"access-control-allow-headers", requested), (b"content-length", b"0"), id_header]
    start = {"type": "http.response.start", "status": 200, "headers": allowed}
    return start, {"type": "http.response.body", "body": b""}


# --- the response -----------------------------------------------------------------------------


def response_headers(
    headers: Headers, id_header: tuple[bytes, bytes], api: bool, ratelimit: Decision | None
) -> Headers:
    """The application's headers with the request id and, on the API, CORS and the rate-limit
    decision's headers (`ratelimit`, None when none was made)."""
    out = list(headers)
    out.append(id_header)
    if api:
        out.extend(CORS)
        if ratelimit is not None:
            out.extend(ratelimit.headers())
    return out


def etag_of(body: bytes) -> bytes:
    """A body's ETag: 96 bits of its SHA-1, which OpenSSL computes with the processor's SHA
    instructions where it has them: a 100-order page (440 KB) in 0.23 ms, where BLAKE2b took
    0.47 ms (docs/performance.md "The 100-order page"). Not a signature: only a cache's key."""
    return b'"' + hashlib.sha1(body, usedforsecurity=False).hexdigest()[:24].encode() + b'"'


def etag_matches(if_none_match: bytes, etag: bytes) -> bool:
    if if_none_match.strip() == b"*":
        return True
    bare = etag.removeprefix(b"W/")
    return any(tag.strip().removeprefix(b"W/") == bare for tag in if_none_match.split(b","))


def tagged(start: Message, body: Message, if_none_match: bytes | None) -> tuple[Message, Message]:
    """A successful GET's whole response with its `ETag` (the endpoint's own, where it knows its
    version, else a hash of the body), or a 304 without body when `If-None-Match` matches it."""
    given = header(start["headers"], b"etag")
    etag = given or etag_of(body.get("body", b""))
    if if_none_match is not None and etag_matches(if_none_match, etag):
        kept = [(k, v) for k, v in start["headers"] if k not in _NOT_KEPT_BY_304]
        return (
            {"type": "http.response.start", "status": 304, "headers": [*kept, (b"etag", etag)]},
            {"type": "http.response.body", "body": b""},
        )
    if given is None:
        start = dict(start, headers=[*start["headers"], (b"etag", etag)])
    return start, body


def error_answer(error: ComptoirError, extra: Headers | None = None) -> tuple[Message, Message]:
    """The error's frame (`errors.framed`: its status, its headers with its own, its body) as
    the ASGI messages of a whole response, with the `extra` headers."""
    status, headers, body = framed(error)
    if extra:
        headers += extra
    return (
        {"type": "http.response.start", "status": status, "headers": headers},
        {"type": "http.response.body", "body": body},
    )


class Responder:
    """What the application sends through: `response_headers` on the start of the response
    and, for a successful GET of the API (`etags`), `tagged` once the body is there (a
    streamed body gets no ETag). Remembers the status sent and whether a response began."""

    __slots__ = ("_api", "_context", "_etags", "_id_header", "_if_none_match", "_pending", "_send", "started", "status")

    def __init__(
        self,
        send: Send,
        id_header: tuple[bytes, bytes],
        api: bool,
        context: RequestContext,
        headers: Headers,
        method: str,
    ) -> None:
        self._send = send
        self._id_header = id_header
        self._api = api
        self._context = context
        self._etags = api and method == "GET"
        self._if_none_match = header(headers, b"if-none-match") if self._etags else None
        self._pending: Message | None = None
        self.status = 0
        self.started = False

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.started = True
            self.status = message["status"]
            ratelimit = self._context.ratelimit if self._api else None
            headers = response_headers(message.get("headers", []), self._id_header, self._api, ratelimit)
            message = dict(message, headers=headers)
            if self._etags and self.status == 200:
                self._pending = message  # wait for the body: the ETag hashes it
                return
        elif self._pending is not None and message["type"] == "http.response.body":
            start, self._pending = self._pending, None
            if not message.get("more_body"):
                start, message = tagged(start, message, self._if_none_match)
                self.status = start["status"]
            await self._send(start)
        await self._send(message)


async def answer(send: Send, start: Message, body: Message) -> int:
    """Send a whole response; its status."""
    await send(start)
    await send(body)
    return int(start["status"])


# --- the logs ---------------------------------------------------------------------------------


def access_log(method: str, path: str, status: int, started: float, connection_id: int | None = None) -> None:
    log.info(
        "request",
        method=method,
        path=path,
        status=status,
        duration_ms=round((time.perf_counter() - started) * 1000, 2),
        connection_id=connection_id,
    )


def route_template(scope: Scope) -> str | None:
    """The template of the route that answered (`/v1/orders/{order_id}`), None when none
    matched. FastAPI includes a router's routes under its prefix without copying them: the
    template with the prefix is on the context it records for the request, the route alone
    holds it without."""
    context = scope.get(_FASTAPI_SCOPE, {}).get(_EFFECTIVE_ROUTE)
    template = getattr(context, "path_format", None)
    if template:
        return str(template)
    route = scope.get("route")
    return getattr(route, "path_format", None) or getattr(route, "path", None)


def counted(scope: Scope, method: str, status: int, started: float) -> None:
    """The request in the metrics, under its route's template (`/v1/orders/{order_id}`), or
    `unmatched` when no route matched: a label never holds a path a client made up."""
    if not scope["app"].state.comptoir.settings.metrics_path:
        return
    template = route_template(scope) or metrics.UNMATCHED
    metrics.request_done(template, method, status, time.perf_counter() - started)


class BodyTap:
    """The request's and the response's first 10 KB and sizes, seen on their way through
    (`receive`, `send`), for the request log; `record` makes the log's entry."""

    __slots__ = ("_receive", "_send", "kept_in", "kept_out", "response_type", "size_in", "size_out")

    def __init__(self, receive: Receive, send: Send) -> None:
        self._receive, self._send = receive, send
        self.kept_in, self.kept_out = bytearray(), bytearray()
        self.size_in = self.size_out = 0
        self.response_type = b""

    async def receive(self) -> Message:
        message = await self._receive()
        if message["type"] == "http.request":
            chunk = message.get("body", b"")
            self.size_in += len(chunk)
            if len(self.kept_in) < MAX_BODY:
                self.kept_in.extend(chunk[: MAX_BODY - len(self.kept_in)])
        return message

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.body":
            chunk = message.get("body", b"")
            self.size_out += len(chunk)
            if len(self.kept_out) < MAX_BODY:
                self.kept_out.extend(chunk[: MAX_BODY - len(self.kept_out)])
        elif message["type"] == "http.response.start":
            self.response_type = header(message.get("headers", []), b"content-type") or b""
        await self._send(message)

    def record(
        self, scope: Scope, connection_id: int, at: datetime, method: str, path: str, status: int, started: float
    ) -> Record:
        query = scope.get("query_string", b"")
        return Record(
            connection_id=connection_id,
            at=at,
            request_id=context_of(scope).request_id,
            method=method,
            path=f"{path}?{query.decode('latin-1')}" if query else path,
            status=status,
            duration_ms=round((time.perf_counter() - started) * 1000),
            request_body=bytes(self.kept_in),
            request_bytes=self.size_in,
            request_type=(header(scope["headers"], b"content-type") or b"").decode("latin-1"),
            response_body=bytes(self.kept_out),
            response_bytes=self.size_out,
            response_type=self.response_type.decode("latin-1"),
        )


# --- the steps, composed ----------------------------------------------------------------------


class HttpConventions:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        headers: Headers = scope["headers"]
        rid = request_id(headers)
        id_header = (b"x-request-id", rid.encode())
        comptoir = scope["app"].state.comptoir
        scope = forwarded(scope, comptoir.proxies)
        context = tag_request(scope, rid)
        scope = without_trailing_slash(scope)
        scope, send = head_as_get(scope, send)
        path: str = scope["path"]
        api = path == "/v1" or path.startswith("/v1/")
        method: str = scope["method"]
        if api:
            try:
                method = overridden_method(method, headers)
            except BadRequest as error:
                access_log(method, path, await answer(send, *error_answer(error, [id_header, *CORS])), started)
                return
            if method != scope["method"]:
                scope = dict(scope, method=method)
            preflight_answer = preflight(method, headers, id_header)
            if preflight_answer is not None:
                access_log(method, path, await answer(send, *preflight_answer), started)
                return

        # Only /v1 requests made with a token can be a connection's: the others skip the
        # request log entirely.
        request_log = comptoir.request_log if api and carries_token(headers) else None
        at = clock.now() if request_log is not None else None
        tap = BodyTap(receive, send) if request_log is not None and request_log.enabled else None
        if tap is not None:
            receive, send = tap.receive, tap.send
        responder = Responder(send, id_header, api, context, headers, method)
        try:
            await self.app(scope, receive, responder.send)
        except ClientDisconnect:
            # the client left, or was closed for sending its body too slowly (http/protocol.py):
            # no one to answer, nothing unexpected
            log.info("client_disconnected", method=method, path=path)
        except ComptoirError as error:
            # raised where no exception handler answers it (a body over its limit found as it
            # is read, a dependency that fails in a handler): answered as itself, its headers
            # with it, and those of any other response (`Responder`)
            if responder.started:
                raise
            await answer(responder.send, *error_answer(error))
        except Exception:
            log.exception("internal_error", method=method, path=path)
            if responder.started:
                raise
            await answer(responder.send, *error_answer(InternalError()))
        finally:
            connection_id = context.connection_id
            access_log(method, path, responder.status, started, connection_id)
            counted(scope, method, responder.status, started)
            if connection_id is not None and request_log is not None and at is not None:
                request_log.used(connection_id, at)
                if tap is not None:
                    request_log.add(tap.record(scope, connection_id, at, method, path, responder.status, started))
