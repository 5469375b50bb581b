"""How API routes read JSON and answer JSON.

Bodies must be JSON (spec 7: 415 otherwise) and are parsed with exact decimals
(decisions.md "Wire formats": a JSON number is taken by its exact text, never through
float) before FastAPI validates them against the route's request model.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar
from urllib.parse import unquote

from fastapi import APIRouter
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from comptoir.errors import BadRequest, UnsupportedMediaType, validation_error
from comptoir.http.inputs import nul_fields
from comptoir.kit import gcpause
from comptoir.kit.jsonutil import dumps, loads

LARGE_BODY = 256 * 1024
F = TypeVar("F", bound=Callable[..., Any])


class JSON(JSONResponse):
    """JSON with exact decimals (orjson; Decimal written as its own number text)."""

    def render(self, content: Any) -> bytes:
        return dumps(content)


def is_json_content_type(value: str | None) -> bool:
    if not value:
        return False
    media = value.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


async def read_json_body(request: Request) -> None:
    """Parse the body once, exactly; FastAPI then finds it through `request.json()`."""
    body = await request.body()
    if not body:
        return
    if not is_json_content_type(request.headers.get("content-type")):
        raise UnsupportedMediaType()
    try:
        if len(body) < LARGE_BODY:
            request._json = loads(body)
        else:  # a catalog: a million objects (kit.gcpause)
            with gcpause.paused():
                request._json = loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequest(f"Malformed JSON body: {exc}") from None
    if b"\\u0000" in body and (refused := nul_fields(request._json)) is not None:
        raise refused


Handler = Callable[[Request], Coroutine[Any, Any, Response]]
_DIRECT = "__comptoir_direct__"


def served_directly(permission: Callable[..., Awaitable[Any]], model: type[BaseModel]) -> Callable[[F], F]:
    """Serve an endpoint `(request, ctx, body, **path_params)` without FastAPI's dependency
    solving, for the hottest writes (order creation: about 15% of its CPU,
    benchmarks/orders.py). The route is declared as usual (its OpenAPI operation does not
    change); `permission` is the `require(...)` of its `ctx` and `model` the type of its
    `body`, and they are applied as FastAPI would: the token, rate limit and scope first,
    then the body (415, 400, 422 in the spec's shapes)."""

    def mark(endpoint: F) -> F:
        setattr(endpoint, _DIRECT, (permission, model))
        return endpoint

    return mark


def _direct_handler(
    endpoint: Callable[..., Any], permission: Callable[..., Awaitable[Any]], model: type[BaseModel]
) -> Handler:
    async def handler(request: Request) -> Response:
        # As FastAPI's APIKeyHeader(auto_error=False) gives it: an empty header is no token.
        ctx = await permission(request, request.headers.get("x-access-token") or None)
        await read_json_body(request)
        try:
            body = model.model_validate(getattr(request, "_json", None))
        except ValidationError as exc:
            raise validation_error({**error, "loc": ("body", *error["loc"])} for error in exc.errors()) from None
        return await endpoint(request=request, ctx=ctx, body=body, **request.path_params)  # type: ignore[no-any-return]

    return handler


def _permission_of(dependant: Dependant) -> Callable[..., Awaitable[Any]] | None:
    """The route's `auth.access.require(...)` dependency, however deep it is declared."""
    for sub in dependant.dependencies:
        if getattr(sub.call, "__comptoir_permission__", False) is True:
            return sub.call
        found = _permission_of(sub)
        if found is not None:
            return found
    return None


class ComptoirRoute(APIRoute):
    def get_route_handler(self) -> Handler:
        direct = getattr(self.endpoint, _DIRECT, None)
        if direct is not None:
            return _direct_handler(self.endpoint, *direct)
        handler = super().get_route_handler()
        if self.body_field is None:
            return handler
        permission = _permission_of(self.dependant)

        async def route_handler(request: Request) -> Response:
            if permission is not None:
                # The token first, then the body (inputs.InputLimits): a request without a valid
                # token is a 401 whatever its body, which is never read. The dependency
                # keeps its Ctx for FastAPI's own call of it (auth.access.require).
                ctx = await permission(request, request.headers.get("x-access-token") or None)
                request.state.authorized = (permission, ctx)
            try:
                await read_json_body(request)
            except (BadRequest, UnsupportedMediaType) as exc:
                # Raised once the dependencies (authentication first) have passed: a bad
                # token is a 401 whatever the body (see app.request_validation_error).
                request.state.body_error = exc
                request._json = None
            return await handler(request)

        return route_handler


def plus_literal(request: Request, name: str, value: str | None) -> str | None:
    """The query parameter `name` with a literal `+` read as a plus sign, not a space.

    For the parameters whose values hold plus signs and never spaces that a form encoder
    would have written as `+`: phone and email filters (`phone=+4477*`, `john+tag@...`)
    and times (`after=2026-06-24T13:00:00+02:00`). `%2B` means the same; `%20` is still a
    space. Other parameters follow form encoding (`created_by=My+App` is "My App")."""
    if value is None or b"+" not in request.scope.get("query_string", b""):
        return value
    for pair in request.scope["query_string"].split(b"&"):
        key, _, raw = pair.partition(b"=")
        if unquote(key.decode("latin-1")) == name:
            return unquote(raw.decode("latin-1"), encoding="utf-8", errors="replace")
    return value


def update_route(router: APIRouter, path: str, **kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register an update endpoint for PATCH and for PUT (decisions.md "Methods": PUT is
    accepted wherever PATCH is), each with its own OpenAPI operation."""

    def decorator(endpoint: Callable[..., Any]) -> Callable[..., Any]:
        router.patch(path, name=endpoint.__name__, **kwargs)(endpoint)
        router.put(path, name=f"{endpoint.__name__}_put", **kwargs)(endpoint)
        return endpoint

    return decorator


def operation_id(route: APIRoute) -> str:
    return route.name
