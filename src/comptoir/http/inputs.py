"""Limits on what any request may carry (API, OAuth, back office), checked before an
endpoint sees it.

A query parameter holding a NUL character is a 400 naming it, and so is a form body holding
one (PostgreSQL can neither store nor compare such text; JSON bodies are checked by
`nul_fields`, through `routing`, for a 422 naming each field).

A body over its limit is a 413 `payload_too_large`, and is never held in memory.

The limit is COMPTOIR_MAX_BODY_BYTES, or COMPTOIR_MAX_CATALOG_BODY_BYTES for a catalog's
creation or replacement and an inventory. It is checked when the endpoint first reads the
body, not before: API endpoints check the token first (`routing.ComptoirRoute`), so a
request without a valid token is a 401 whatever its size. The declared Content-Length is
checked before any byte is read; a body sent without one (chunked) is counted as it comes.
Image uploads keep their own, smaller limit (`catalogs.images`).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from comptoir.errors import BadRequest, FieldErrors, PayloadTooLarge, Unprocessable, field_path
from comptoir.http.middleware import answer, error_answer
from comptoir.kit.wire import shown

NUL = "\x00"
NUL_MESSAGE = "must not contain a NUL character"

# POST /locations/:id/catalogs, /location/catalogs, /accounts/:id/catalogs, /account/catalogs;
# PUT /catalogs/:id; PUT or PATCH /catalogs/:id/locations/:id/inventory and
# /catalogs/:id/location/inventory.
_LARGE = re.compile(
    r"/v1/(?:(?:locations/[^/]+|location|accounts/[^/]+|account)/catalogs"
    r"|catalogs/[^/]+(?:/locations/[^/]+/inventory|/location/inventory)?)"
)


def body_limit(max_body: int, max_catalog_body: int, method: str, path: str) -> int:
    if method in ("POST", "PUT", "PATCH") and _LARGE.fullmatch(path.rstrip("/")):
        return max_catalog_body
    return max_body


def body_headers(headers: list[tuple[bytes, bytes]]) -> tuple[bool, int | None, bool]:
    """Whether the request carries a body (HTTP/1.1: only with `Content-Length` or
    `Transfer-Encoding`), its declared length (None when not given or not a number), and
    whether it is a form; one look at the headers."""
    length: bytes | None = None
    chunked = False
    kind: bytes | None = None
    for key, value in headers:  # the first of each, as a server reads them
        if key == b"content-length":
            length = value if length is None else length
        elif key == b"transfer-encoding":
            chunked = True
        elif key == b"content-type" and kind is None:
            kind = value
    declared = None
    if length is not None:
        try:
            declared = int(length)
        except ValueError:
            declared = None
    form = kind is not None and kind.split(b";", 1)[0].strip().lower() == b"application/x-www-form-urlencoded"
    return length is not None or chunked, declared, form


def nul_query_parameter(query_string: bytes) -> str | None:
    """The name of the first query parameter whose name or value holds a NUL character."""
    if b"%00" not in query_string and b"\x00" not in query_string:
        return None
    for name, value in parse_qsl(query_string.decode("latin-1"), keep_blank_values=True, encoding="utf-8"):
        if NUL in name or NUL in value:
            return name.replace(NUL, "\\0")
    return None


def nul_fields(value: Any) -> Unprocessable | None:
    """A 422 naming every field of a parsed JSON body whose text (or key) holds a NUL."""
    found = FieldErrors()

    def walk(item: Any, loc: tuple[str | int, ...]) -> None:
        if isinstance(item, str):
            if NUL in item:
                found.add(field_path(loc) or "body", NUL_MESSAGE)
        elif isinstance(item, dict):
            for key, sub in item.items():
                if NUL in key:
                    found.add(field_path((*loc, key.replace(NUL, "\\0"))), f"key {NUL_MESSAGE}")
                else:
                    walk(sub, (*loc, key))
        elif isinstance(item, list):
            for index, sub in enumerate(item):
                walk(sub, (*loc, index))

    walk(value, ())
    return found.refusal() if found else None


class InputLimits:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        bad = nul_query_parameter(scope.get("query_string", b""))
        if bad is not None:
            await answer(send, *error_answer(BadRequest(f"Invalid query parameter {shown(bad)}: {NUL_MESSAGE}")))
            return
        has_body, declared, form = body_headers(scope["headers"])
        if not has_body:  # nothing to limit: a GET, a DELETE
            await self.app(scope, receive, send)
            return
        settings = scope["app"].state.comptoir.settings
        limit = body_limit(settings.max_body_bytes, settings.max_catalog_body_bytes, scope["method"], scope["path"])
        received = 0
        tail = b""  # the end of the previous chunk, for a `%00` cut in two

        async def limited_receive() -> Message:
            nonlocal received, tail
            if declared is not None and declared > limit:
                raise PayloadTooLarge(limit)
            message = await receive()
            if message["type"] == "http.request":
                chunk = message.get("body", b"")
                received += len(chunk)
                if received > limit:
                    raise PayloadTooLarge(limit)
                if form:
                    seen = tail + chunk
                    if b"%00" in seen or b"\x00" in seen:
                        raise BadRequest(f"Form fields {NUL_MESSAGE}")
                    tail = seen[-2:]
            return message

        # Raised where no exception handler answers it (the endpoints' handlers do), the
        # refusal is answered by the middleware (http.middleware `error_answer`).
        await self.app(scope, limited_receive, send)
