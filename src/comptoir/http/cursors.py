"""The cursors of spec 8.1 as requests carry them: opaque, sealed, bound to their list
(docs/api/conventions.md "Pagination").

A cursor is the sort key of the last row of a page (`db.keyset.paginate`), packed in a
fixed-width form and sealed (`kit.crypto.Sealer`, under a key derived from the server key)
together with what it belongs to: the route, its path parameters (the location, account,
list or catalog), its filters (every query parameter but `cursor` and `count`, in order of
name) and who asked (the connection; in the back office, the signed-in user and session).
So a cursor tells nothing of the rows (no id, no time, a length that does not depend on
them, different every time), and opens only on the request that continues its list. Every
other cursor, altered, from another list, other filters or another connection, is refused
with one and the same 400. A cursor stays valid while the server key is unchanged.
"""

from __future__ import annotations

import base64
import binascii
import struct
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Annotated, Any, NoReturn

import orjson
from fastapi import Depends, Query
from pydantic import WithJsonSchema
from starlette.datastructures import QueryParams
from starlette.requests import Request

from comptoir.auth.request_context import context_of
from comptoir.errors import BadRequest
from comptoir.kit.crypto import Sealer
from comptoir.kit.pagination import MAX_COUNT, PageRequest
from comptoir.kit.wire import shown

REFUSED = "cursor is not a value this API gave in X-Cursor-Next"  # the one answer to any refused cursor
PURPOSE = "comptoir pagination cursor v1"  # a new format takes a new purpose: older cursors are refused
_LONGEST = 1024  # characters of a cursor worth opening
_BLOCK = 32  # a packed key is padded to a multiple of this many bytes
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_INT = struct.Struct(">q")
_LENGTH = struct.Struct(">H")


@lru_cache(maxsize=4)
def _sealer(key: bytes) -> Sealer:
    return Sealer(key, PURPOSE)


# --- the packed key: a tag and a fixed-width value each, zero-padded to a block ----------


def _pack(values: Sequence[Any]) -> bytes:
    out = bytearray()
    for value in values:
        if value is None:
            out += b"n"
        elif isinstance(value, datetime):
            out += b"t" + _INT.pack((value - _EPOCH) // timedelta(microseconds=1))
        elif isinstance(value, int) and not isinstance(value, bool):
            out += b"i" + _INT.pack(value)
        elif isinstance(value, str):
            text = value.encode()
            out += b"s" + _LENGTH.pack(len(text)) + text
        else:
            raise TypeError(f"a cursor cannot hold a {type(value).__name__}")
    return bytes(out) + bytes(-len(out) % _BLOCK)


def _unpack(packed: bytes) -> list[Any] | None:
    values: list[Any] = []
    at = 0
    try:
        while at < len(packed) and packed[at] != 0:
            tag, at = packed[at : at + 1], at + 1
            if tag == b"n":
                values.append(None)
            elif tag in (b"t", b"i"):
                [number] = _INT.unpack_from(packed, at)
                at += _INT.size
                values.append(_EPOCH + timedelta(microseconds=number) if tag == b"t" else number)
            elif tag == b"s":
                [length] = _LENGTH.unpack_from(packed, at)
                at += _LENGTH.size
                if at + length > len(packed):
                    return None
                values.append(packed[at : at + length].decode())
                at += length
            else:
                return None
    except (struct.error, OverflowError, UnicodeDecodeError):
        return None
    return values if values and not any(packed[at:]) else None


# --- sealing for one list -----------------------------------------------------------------


def _seal(key: bytes, binding: bytes, values: Sequence[Any]) -> str:
    sealed = _sealer(key).seal(_pack(values), binding)
    return base64.urlsafe_b64encode(sealed).decode("ascii").rstrip("=")


def _open(key: bytes, binding: bytes, cursor: str) -> list[Any] | None:
    if len(cursor) > _LONGEST:
        return None
    try:
        sealed = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    except (ValueError, binascii.Error):
        return None
    packed = _sealer(key).open(sealed, binding)
    return None if packed is None else _unpack(packed)


def _binding(request: Request, filters: list[tuple[str, str]], who: list[Any]) -> bytes:
    route = request.scope.get("route")
    path = getattr(route, "path", None) or request.url.path
    return orjson.dumps([path, sorted(request.path_params.items()), filters, who])


def _filters(params: QueryParams, *, skip: tuple[str, ...], empty: bool) -> list[tuple[str, str]]:
    """The list's query parameters but `skip`, by name, each name's values in their order."""
    kept = [(name, value) for name, value in params.multi_items() if name not in skip and (empty or value)]
    return sorted(kept, key=lambda item: item[0])


def _page(key: bytes, binding: bytes, count: int, cursor: str | None, refused: str) -> PageRequest:
    def refuse() -> NoReturn:
        raise BadRequest(refused)

    def seal(values: Sequence[Any]) -> str:
        return _seal(key, binding, values)

    after = None
    if cursor is not None:
        after = _open(key, binding, cursor)
        if after is None:
            refuse()
    return PageRequest(count=count, after=after, seal=seal, refuse=refuse)


def _parse_count(raw: str | None) -> int:
    if raw is None:
        return MAX_COUNT
    if not (raw.isascii() and raw.isdigit()) or int(raw) < 1:
        raise BadRequest(f"count must be a positive integer, not {shown(raw)}")
    return min(int(raw), MAX_COUNT)


async def page_request(
    request: Request,
    count: Annotated[
        str | None,
        WithJsonSchema({"type": "integer", "minimum": 1}),
        Query(description=f"Results per page: default and maximum {MAX_COUNT} (more reads as {MAX_COUNT})."),
    ] = None,
    cursor: Annotated[
        str | None,
        WithJsonSchema({"type": "string", "pattern": f"^[A-Za-z0-9_-]{{1,{_LONGEST}}}$"}),
        Query(description="The previous page's X-Cursor-Next, as it was given (any other value is a 400)."),
    ] = None,
) -> PageRequest:
    """The page an API list is asked for. Declared after the route's `ctx`, whose check
    names the connection (`auth.access.require`) that the cursor is bound to."""
    connection_id = context_of(request).connection_id
    if connection_id is None:
        raise RuntimeError(f"{request.url.path}: a paginated endpoint declares its ctx before its page")
    filters = _filters(request.query_params, skip=("cursor", "count"), empty=True)
    binding = _binding(request, filters, ["connection", connection_id])
    return _page(request.app.state.comptoir.key, binding, _parse_count(count), cursor, REFUSED)


Pagination = Annotated[PageRequest, Depends(page_request)]


def back_office_page(request: Request, key: bytes, count: int, who: list[Any], refused: str) -> PageRequest:
    """The page a back office list is asked for, its cursor bound to `who` (the signed-in user
    and session); a refused cursor is BadRequest(`refused`). Empty filters are left out, as
    the page's Next link leaves them out."""
    filters = _filters(request.query_params, skip=("cursor",), empty=False)
    binding = _binding(request, filters, ["back office", *who])
    return _page(key, binding, count, request.query_params.get("cursor") or None, refused)
