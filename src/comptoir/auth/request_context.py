"""What the layers of one request hand each other (docs/architecture.md "The context of a
request"): one `RequestContext` per request, made by the outermost middleware
(`http.middleware.tag_request`, `start`) and read everywhere through `context_of`.

It lives in `auth/`, the lowest layer that writes it and the one whose `Ctx` it holds:
`http/` and `web/` import it from here, nothing here imports them. A field typed `object` holds
a value of a layer above (compared by identity, or narrowed by that layer).

One object per request, with slots, stored once in the scope's state: reading a field is one
dict lookup and an attribute, as `request.state.<name>` was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.requests import HTTPConnection
from starlette.types import Scope

from comptoir.auth.context import Ctx
from comptoir.errors import ComptoirError
from comptoir.ratelimit import Decision

_KEY = "comptoir.context"  # in the scope's "state" (what Starlette's `request.state` wraps)


@dataclass(slots=True)
class RequestContext:
    """Each field names who writes it; None until then."""

    request_id: str  # http.middleware: `X-Request-Id`, on every log line and request log entry
    connection_id: int | None = None  # auth.access.authorize: the token's connection (logs, cursors)
    ratelimit: Decision | None = None  # auth.access.authorize: its headers go on the response (429 too)
    permission: object | None = None  # http.routing: the `auth.access.Permission` applied before the body...
    ctx: Ctx | None = None  # ...and the Ctx it gave, which `auth.access.guard` hands FastAPI again
    fingerprint: str | None = None  # http.routing: the JSON body's, taken as it streamed (idempotency.service)
    body_error: ComptoirError | None = None  # http.routing: the body's refusal, answered by app.py's handler
    visitor: object | None = None  # web.render: the signed-in `Visitor`, for a 404 page raised later


def start(scope: Scope, request_id: str) -> RequestContext:
    """The request's context, made and stored once (the outermost middleware)."""
    context = RequestContext(request_id)
    state: dict[str, Any] = scope.setdefault("state", {})
    state[_KEY] = context
    return context


def context_of(where: HTTPConnection | Scope) -> RequestContext:
    """The context of a request, from its `Request` or its ASGI scope (a copy of the scope
    shares it)."""
    scope = where.scope if isinstance(where, HTTPConnection) else where
    context: RequestContext = scope["state"][_KEY]
    return context
