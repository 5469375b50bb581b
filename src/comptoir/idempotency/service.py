"""Idempotent creation (beyond the spec; docs/api/conventions.md "Idempotency"): `POST` of
orders, deliveries, quotes, customers and loyalty operations accepts an `Idempotency-Key` header.

Within 24 hours the same key from the same connection answers the first response again,
unchanged, with `Idempotent-Replayed: true`; the same key with a different request (method,
path or body) is a 422; a duplicate arriving while the first is still being processed is a
409. The stored answer is written in the creation's own transaction, so a creation that
fails leaves no key behind and may be retried.

In flight: a set per process, and on PostgreSQL a transaction-scoped advisory lock on the
(connection, key), taken without waiting. SQLite serialises writers, so there a duplicate
from another process waits for the first and then gets the replay.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request
from starlette.responses import Response

from comptoir.auth.context import Ctx
from comptoir.auth.request_context import context_of
from comptoir.errors import BadRequest, Conflict, FieldError, Unprocessable
from comptoir.http.routing import IDEMPOTENCY_HEADER, JSON
from comptoir.idempotency import repository
from comptoir.kit import clock
from comptoir.kit.jsonutil import dumps
from comptoir.models.idempotency import IdempotencyKey

HEADER = IDEMPOTENCY_HEADER
LIFETIME = timedelta(hours=24)
MAX_KEY = 255

_in_flight: set[tuple[int, str]] = set()


async def idempotent(
    request: Request, session: AsyncSession, ctx: Ctx, produce: Callable[[], Awaitable[dict[str, Any]]]
) -> Response:
    """The response of `produce()`, or, for a key seen before, the first one again."""
    key = request.headers.get(HEADER)
    if key is None:
        return JSON(await produce())
    if not key or len(key) > MAX_KEY or not key.isprintable():
        raise BadRequest(f"{HEADER} must be 1 to {MAX_KEY} printable characters")
    fingerprint = context_of(request).fingerprint  # a JSON body's: taken as it streamed in (routing)
    if fingerprint is None:
        body = await request.body()
        fingerprint = hashlib.sha256(
            b"%s %s\n%s" % (request.method.encode(), request.url.path.encode(), body)
        ).hexdigest()
    slot = (ctx.connection_id, key)
    if slot in _in_flight:
        raise Conflict(f"A request with this {HEADER} is still being processed; retry in a moment")
    _in_flight.add(slot)
    try:
        if not await repository.try_lock_key(session, *slot):
            raise Conflict(f"A request with this {HEADER} is still being processed; retry in a moment")
        row = await repository.find_key(session, *slot)
        if row is not None and row.created_at > clock.now() - LIFETIME:
            if row.request_hash != fingerprint:
                raise Unprocessable(FieldError(HEADER, "was already used with a different request"))
            return Response(
                row.response,
                media_type="application/json",
                headers={"Idempotent-Replayed": "true"},
            )
        if row is not None:  # expired: the key may be used afresh
            await repository.delete_key(session, *slot)
        result = await produce()
        rendered = dumps(result).decode()
        await repository.add_key(
            session,
            IdempotencyKey(
                connection_id=ctx.connection_id,
                key=key,
                request_hash=fingerprint,
                response=rendered,
                created_at=clock.now(),
            ),
        )
        return Response(rendered, media_type="application/json")
    finally:
        _in_flight.discard(slot)


async def purge_expired(session: AsyncSession) -> int:
    """Keys older than their lifetime (the hourly retention job)."""
    return await repository.purge_keys(session, clock.now() - LIFETIME)
