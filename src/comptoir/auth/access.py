"""The one declarative permission check every endpoint uses
(docs/architecture.md "Permissions"; each route's permission is listed in
docs/api/permissions.md, generated from these declarations).

An endpoint states everything it needs once, as the dependency giving its `Ctx`:

    ctx: Annotated[Ctx, Depends(require("location,account", "orders.write"))]

`require(levels, need, kind=GENERAL, *, on=None)` says:

- `levels`: the token levels the route serves: "location", "account", "location,account",
  or "*" (any valid token, e.g. /user). Another level is a 403.
- `need`: what the token's scope must hold:
  - a permission, "orders.write" (write implies read), or alternatives,
    "catalog.read|all_catalogs.read" (either);
  - ANY (any permission at the token's level), ANY_WRITE (any write permission), PROFILE
    (profile or profile_with_email), TOKEN (nothing more than a valid token);
  - `PerLevel(location=..., account=...)`: a need of its own for each level, for a rule
    that differs by level: inventory is `inventory.read` at both, and a location token may
    still use the deprecated `catalog.read` (docs/api/inventory.md "Access").
- `kind`: the rate-limit policy the request counts in (GENERAL, HEAVY, IMAGE;
  docs/api/conventions.md "Rate limits"), or `KindByQuery(param, values, kind, otherwise)`,
  chosen from a query parameter: a catalog GET is heavy unless `hide_data=true`.
- `on`: `WriteOn(resource, param, ...)`, a write on the one catalog or customer list that
  the path parameter `param` names (spec 5.1, docs/api/catalogs.md "Access",
  docs/api/customers.md "Access"): `<resource>.write` allows it on the one the connection is
  bound to, `all_<resource>s.write` on any within the connection's level (403 otherwise);
  and for a request that changes the row itself (`change`: "update", "rename", "delete"),
  a location-level token doing it to an account-level one is a 401, except the
  `bound_change` of the connection bound to it with `<resource>.write`.

The check decides, in this order: 401 for a missing or invalid token (spec 5.6), 429 when
a rate limit is reached (spec 8.2), 403 when the token's level or scope does not allow the
request, then the `on` rule (docs/api/conventions.md "Errors", "Access"). Reach (an id
outside the connection's location or account) is the service's 404: when the `on` rule
depends on the row (its level, whether it is in reach), the check reads it with
`core.levels.held` and leaves a row the connection may not read to the service's 404, so
nothing reveals what exists elsewhere. It reads it only when the scope alone does not decide.

`authorize(request, permission, token)` applies a declaration; the dependency made by `require`
calls it, and so does `http.routing` for a route it serves itself (before reading a body,
and for `DirectRoute`): one application for every path a request may take.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Annotated, Literal, Protocol

from fastapi import Security
from fastapi.security import APIKeyHeader
from starlette.requests import Request

from comptoir.auth.context import Ctx
from comptoir.auth.request_context import context_of
from comptoir.auth.scopes import Scope
from comptoir.auth.tokens import resolve
from comptoir.core.levels import held
from comptoir.db.connection_cache import ConnectionCache
from comptoir.db.direct import FastReader
from comptoir.errors import BadBearer, Forbidden, Unauthorized
from comptoir.kit import ids
from comptoir.ratelimit import GENERAL, RateLimiter
from comptoir.ratelimit.limiter import RateLimitedWithState

# docs/api/conventions.md "Requests"; declared as a security scheme so the OpenAPI document shows it.
ACCESS_TOKEN = APIKeyHeader(
    name="X-Access-Token",
    scheme_name="AccessToken",
    description="The access token of a connection, as `POST /oauth2/v1/token` gave it.",
    auto_error=False,
)
# docs/api/oauth.md "Bearer tokens": the same token in `Authorization: Bearer` (RFC 6750 2.1);
# `token_of` reads both. The OpenAPI document declares the Bearer scheme (`http.openapi`).
B64TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")  # RFC 6750 2.1 b64token


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


@dataclass(frozen=True, slots=True)
class PerLevel:
    """A need for each token level (each a need as `require` takes it)."""

    location: str
    account: str

    def at(self, level: str) -> str:
        return self.location if level == "location" else self.account


@dataclass(frozen=True, slots=True)
class KindByQuery:
    """The rate-limit `kind` when the query parameter `param` is one of `values`, else
    `otherwise` (a missing or malformed value included)."""

    param: str
    values: tuple[str, ...]
    kind: str
    otherwise: str

    def of(self, request: Request) -> str:
        return self.kind if request.query_params.get(self.param) in self.values else self.otherwise


@dataclass(frozen=True, slots=True)
class WriteOn:
    """A write on the catalog or customer list (`resource`) whose public id is the path
    parameter `param`. `refused`: the 403's words after "does not allow", `'{id}'` the id as
    sent. `change`: the request changes the row itself ("update", "rename", "delete"), which
    a location-level token may not do to an account-level one (401) unless `bound_change`
    and it is bound to it with `<resource>.write`."""

    resource: Literal["catalog", "customer_list"]
    param: str
    refused: str = "this request: it needs {resource}.write"
    change: str | None = None
    bound_change: bool = False


Need = str | PerLevel
Kind = str | KindByQuery


@dataclass(frozen=True, slots=True)
class Permission:
    """What `require(levels, need, kind, on=on)` declares (see the module's docstring)."""

    levels: str
    need: Need
    kind: Kind = GENERAL
    on: WriteOn | None = None
    allowed: tuple[str, ...] | None = field(init=False, repr=False, compare=False)  # the levels; None: any

    def __post_init__(self) -> None:
        allowed = None if self.levels == "*" else tuple(self.levels.split(","))
        object.__setattr__(self, "allowed", allowed)  # frozen: set once, read by every request

    def at_level(self, level: str) -> Permission:
        """The same permission for `level` alone (a short form: `http.routing.route`)."""
        allowed = self.allowed
        if allowed is None or level not in allowed:
            raise ValueError(f"{self.levels} has no {level}")
        return replace(self, levels=level)


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


async def _check_write_on(request: Request, reader: FastReader, ctx: Ctx, on: WriteOn) -> None:
    """The `on` rule (see `WriteOn`), once the scope holds `<resource>.write` or
    `all_<resource>s.write`. The row is read only when the scope does not decide alone."""
    public_id = request.path_params[on.param]
    pk = ids.decode(on.resource, public_id)
    if pk is None:
        return  # no such id: the service's 404
    bound = pk == (ctx.catalog_id if on.resource == "catalog" else ctx.customer_list_id)
    bound_write = bound and ctx.scope.allows(on.resource, "write")
    all_write = ctx.scope.allows(f"all_{on.resource}s", "write")
    row_level_free = on.change is None or ctx.level != "location"  # no 401 whatever the row's level
    if (bound_write and (row_level_free or on.bound_change)) or (all_write and row_level_free):
        return
    row = await held(reader, on.resource, pk)
    if row is None or not ctx.may_use(on.resource, row, "read"):
        return  # out of reach: the service's 404, whatever the scope
    if not row_level_free and row.location_id is None and not (on.bound_change and bound_write):
        noun = on.resource.replace("_", " ")
        raise Unauthorized(
            f"A location-level token cannot {on.change} an account-level {noun}", challenge="insufficient_scope"
        )
    if not (bound_write or all_write):
        refused = on.refused.format(resource=on.resource, id=public_id)
        raise Forbidden(f"The connection's scope ({ctx.scope}) does not allow {refused}")


TOKEN_HEADERS = frozenset((b"x-access-token", b"authorization"))  # what `token_of` reads


def carries_token(headers: list[tuple[bytes, bytes]]) -> bool:
    """Whether any header `token_of` reads is there (without reading it): a request without
    one is no connection's."""
    return any(name in TOKEN_HEADERS for name, _ in headers)


def token_of(request: Request) -> str | None:
    """The request's token, the one every path reads (permissions, rate limits, logs):
    `X-Access-Token`, or `Authorization: Bearer <token>` (the scheme in any case; another
    scheme is no token), an empty one being no token (docs/api/oauth.md "Bearer tokens").
    BadBearer (400) for a Bearer credential that is not one b64token (RFC 6750 2.1), or
    two different tokens in any two of these headers, repeated ones included (RFC 6750
    3.1); copies of one token are that token. One pass over the raw headers: it runs on
    every request (ASGI servers give header names in lower case, as Starlette reads them)."""
    header: str | None = None
    bearer: str | None = None
    for name, raw in request.scope["headers"]:
        if name == b"x-access-token":
            if raw:
                value = raw.decode("latin-1")
                if header is not None and value != header:
                    raise BadBearer(_TWO_TOKENS.format("Two X-Access-Token headers"))
                header = value
        elif name == b"authorization":
            credential = _bearer_credential(raw.decode("latin-1"))
            if credential is not None:
                if bearer is not None and credential != bearer:
                    raise BadBearer(_TWO_TOKENS.format("Two Authorization: Bearer headers"))
                bearer = credential
    if bearer is None:
        return header
    if header is not None and header != bearer:
        raise BadBearer(_TWO_TOKENS.format("X-Access-Token and Authorization: Bearer"))
    return bearer


_TWO_TOKENS = "{} hold different tokens; send one"


def _bearer_credential(authorization: str) -> str | None:
    """The token of one `Authorization` value: None for another scheme or an empty one."""
    scheme, _, credential = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    credential = credential.strip(" ")
    if not credential:
        return None
    if B64TOKEN.fullmatch(credential) is None:
        raise BadBearer("The Authorization header must be 'Bearer' and the token, with nothing else")
    return credential


async def authorize(request: Request, permission: Permission, token: str | None) -> Ctx:
    """The request's Ctx once `permission` allows `token` (`token_of(request)`): token
    (401), rate limit (429), level and scope (403), then the `on` rule (401, 403)."""
    state: Services = request.app.state.comptoir
    ctx = await resolve(state.fast, state.cache, state.key, token)
    context = context_of(request)
    context.connection_id = ctx.connection_id
    kind = permission.kind if isinstance(permission.kind, str) else permission.kind.of(request)
    try:
        decision = await state.limiter.hit(ctx.connection_id, kind)
    except RateLimitedWithState as refused:
        context.ratelimit = refused.decision  # the 429 shows the full window too
        raise
    if decision is not None:
        context.ratelimit = decision
    allowed = permission.allowed
    if allowed is not None and ctx.level not in allowed:
        raise Forbidden(f"This endpoint needs {_LEVEL_WORDS[allowed]}")
    need = permission.need if isinstance(permission.need, str) else permission.need.at(ctx.level)
    reason = _check(ctx.scope, need)
    if reason is not None:
        raise Forbidden(f"The connection's scope ({ctx.scope}) does not allow this request: {reason}")
    if permission.on is not None:
        await _check_write_on(request, state.fast, ctx, permission.on)
    return ctx


def permission_of(call: object) -> Permission | None:
    """The permission a dependency made by `require` applies; None for any other callable."""
    permission = getattr(call, "__comptoir_permission__", None)
    return permission if isinstance(permission, Permission) else None


def require(
    levels: str, need: Need, kind: Kind = GENERAL, *, on: WriteOn | None = None
) -> Callable[..., Awaitable[Ctx]]:
    """Dependency giving the request's Ctx once the declared permission allows it (see the
    module's docstring for the vocabulary)."""
    return guard(Permission(levels, need, kind, on))


@cache
def guard(permission: Permission) -> Callable[..., Awaitable[Ctx]]:
    """The dependency applying `permission`: one per permission, so that FastAPI solves it
    once per request, and `http.routing` finds the declaration on it (`permission_of`)."""
    allowed = permission.allowed
    if allowed is not None:
        assert allowed in _LEVEL_WORDS, permission.levels  # location, account, or both in that order

    async def dependency(
        request: Request,
        _header: Annotated[str | None, Security(ACCESS_TOKEN)],
    ) -> Ctx:
        context = context_of(request)
        if context.permission is permission and context.ctx is not None:  # applied before the body was read
            return context.ctx
        return await authorize(request, permission, token_of(request))

    dependency.__comptoir_permission__ = permission  # type: ignore[attr-defined]  # permission_of
    return dependency
