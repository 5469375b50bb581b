"""The one declarative permission check every endpoint uses
(docs/architecture.md "Permissions").

An endpoint states what it needs:

    ctx: Annotated[Ctx, Depends(require("location", "any"))]

and this module decides, in this order: 401 for a missing or invalid token (spec 5.6),
429 when a rate limit is reached (spec 8.2), 403 when the token's level or scope does not
allow the request (docs/api/conventions.md "Errors", "Access"). Reach (an id outside the
connection's location or account) is the service's 404.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import cache
from typing import Annotated, Protocol

from fastapi import Security
from fastapi.security import APIKeyHeader
from starlette.requests import Request

from comptoir.auth.context import Ctx
from comptoir.auth.scopes import LEVELS, Scope
from comptoir.auth.tokens import resolve
from comptoir.db.connection_cache import ConnectionCache
from comptoir.db.direct import FastReader
from comptoir.errors import Forbidden
from comptoir.ratelimit import GENERAL, RateLimiter
from comptoir.ratelimit.limiter import RateLimitedWithState

# spec 5.4 item 1; declared as a security scheme so the OpenAPI document shows it.
ACCESS_TOKEN = APIKeyHeader(
    name="X-Access-Token",
    scheme_name="AccessToken",
    description="The access token of a connection (spec 5.4), from the OAuth token endpoint.",
    auto_error=False,
)


class Services(Protocol):
    """What the permission check uses of the running service: the application state that
    `create_app` keeps as `app.state.comptoir` (`http.state.AppState`). Declared here so
    that access depends on what it reads, not on the HTTP layer that holds it."""

    fast: FastReader
    cache: ConnectionCache
    key: bytes
    limiter: RateLimiter


ANY = "any"  # any permission at the token's level
ANY_WRITE = "any.write"  # any write permission at the token's level
PROFILE = "profile"  # profile or profile_with_email
TOKEN = "token"  # noqa: S105 - a need (any valid token, for /callback), not a secret

_LEVEL_WORDS = {
    ("location",): "a location-level token",
    ("account",): "an account-level token",
    ("location", "account"): "a location-level or account-level token",
}


def _check(scope: Scope, need: str) -> str | None:
    """None when `scope` satisfies `need`, else the reason."""
    if need == ANY:
        return None if scope.has_any_permission else "it needs a permission at the token's level"
    if need == ANY_WRITE:
        return None if scope.has_any_write else "it needs a write permission"
    if need == TOKEN:
        return None
    if need == PROFILE:
        return None if scope.profile else "it needs the profile or profile_with_email scope"
    alternatives = need.split("|")  # "customer_list.read|all_customer_lists.read": either
    for permission in alternatives:
        resource, _, right = permission.partition(".")
        if scope.allows(resource, right):
            return None
    return f"it needs {' or '.join(alternatives)}"


@cache
def require(levels: str, need: str, kind: str = GENERAL) -> Callable[..., Awaitable[Ctx]]:
    """Dependency giving the request's Ctx once token, rate limit, level and scope allow it.

    `levels`: "location", "account", "location,account", or "*" (any token, e.g. /user).
    `need`: ANY, ANY_WRITE, PROFILE, a permission such as "orders.write", or alternatives
    such as "customer_list.write|all_customer_lists.write".
    `kind`: rate-limit policy ("general", "heavy", "image").
    """
    allowed = tuple(levels.split(",")) if levels != "*" else None
    if allowed is not None:
        assert all(level in LEVELS for level in allowed), levels
    words = _LEVEL_WORDS.get(allowed or (), "")

    async def dependency(request: Request, token: Annotated[str | None, Security(ACCESS_TOKEN)]) -> Ctx:
        checked = getattr(request.state, "authorized", None)
        if checked is not None and checked[0] is dependency:  # checked before the body was read
            return checked[1]
        state: Services = request.app.state.comptoir
        ctx = await resolve(state.fast, state.cache, state.key, token)
        request.state.connection_id = ctx.connection_id
        try:
            decision = await state.limiter.hit(ctx.connection_id, kind)
        except RateLimitedWithState as refused:
            request.state.ratelimit = refused.decision  # the 429 shows the full window too
            raise
        if decision is not None:
            request.state.ratelimit = decision
        if allowed is not None and ctx.level not in allowed:
            raise Forbidden(f"This endpoint needs {words}")
        reason = _check(ctx.scope, need)
        if reason is not None:
            raise Forbidden(f"The connection's scope ({ctx.scope}) does not allow this request: {reason}")
        return ctx

    dependency.__comptoir_permission__ = (levels, need, kind)  # type: ignore[attr-defined]  # http.routing
    return dependency
