"""How API routes are declared, read JSON and answer JSON.

`route` declares an endpoint at its long and short forms; `ComptoirRoute` checks a route's
token before its body is read, and `DirectRoute` serves the hottest writes without FastAPI's
dependency solving. Bodies must be JSON (spec 7: 415 otherwise) and are parsed with exact decimals
(docs/api/conventions.md "Wire formats": a JSON number is taken by its exact text, never through
float) before FastAPI validates them against the route's request model.

Bodies are read as they stream in (docs/architecture.md "Request bodies"): `read_json_body`
feeds each chunk to a `kit.jsonstream.Stream`, awaiting between steps, with the Shape of
`http.bodies` (the elements of the body's arrays checked as they complete); a body refused
there is answered without being held whole, and its refusal costs at most a small multiple
of its size.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import nullcontext
from functools import partial
from typing import Annotated, Any, TypeVar, cast, get_origin, get_type_hints
from urllib.parse import unquote

from fastapi import APIRouter
from fastapi.dependencies.models import Dependant
from fastapi.params import Depends
from fastapi.routing import APIRoute
from pydantic import BaseModel, TypeAdapter, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from comptoir.auth.access import Permission, authorize, guard, permission_of, token_of
from comptoir.auth.context import Ctx
from comptoir.auth.request_context import context_of
from comptoir.db.connection_cache import one_sync_per_request
from comptoir.errors import (
    BadRequest,
    ComptoirError,
    FieldError,
    FieldErrors,
    PayloadTooLarge,
    Unprocessable,
    UnsupportedMediaType,
    framed,
    validation_error,
)
from comptoir.http.bodies import BodyShape, ShapeOf, shape_of
from comptoir.http.inputs import NUL_MESSAGE, nul_fields
from comptoir.kit import gcpause
from comptoir.kit.jsonstream import STEP, WHOLE, Shape, Stream, Tally, ValueTooLarge
from comptoir.kit.jsonutil import dumps

LARGE_BODY = 256 * 1024
IDEMPOTENCY_HEADER = "Idempotency-Key"  # docs/api/conventions.md "Idempotency" (idempotency/service.py)
E = TypeVar("E", bound=Callable[..., Awaitable[Response]])


class JSON(JSONResponse):
    """JSON with exact decimals (orjson; Decimal written as its own number text)."""

    def render(self, content: Any) -> bytes:
        return dumps(content)


class ErrorResponse(Response):
    """An error answered by an exception handler or an endpoint: its frame (`errors.framed`:
    status, headers with the error's own, body) as a Starlette response."""

    def __init__(self, error: ComptoirError) -> None:
        self.status_code, self.raw_headers, self.body = framed(error)
        self.background = None


def is_json_content_type(value: str | None) -> bool:
    if not value:
        return False
    media = value.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


async def read_json_body(
    request: Request,
    shape: ShapeOf | None = None,
    ctx: Ctx | None = None,
    model: Any = None,
    *,
    whole: bool = False,
) -> bytes | None:
    """Parse the body once, exactly, as it streams in; FastAPI then finds it through
    `request.json()`. `shape`: what is checked while streaming (`http.bodies`); once that
    refuses the body (MAX_ERRORS errors), the 422 names them and counts the others, with
    those of the rest of the body against `model` (the route's body model).

    `whole`: the caller validates the body with `model` at once (`DirectRoute`). A body that
    declares a length of at most `jsonstream.WHOLE` then arrives whole and is parsed without
    `shape`'s checks, which the model's own validation makes; its bytes are answered, for
    `refusal` to find the 422 the checks would have made. Otherwise None."""
    chunks = request.stream()
    first = b""
    async for chunk in chunks:
        if chunk:
            first = chunk
            break
    # FastAPI asks `request.body()` (consumed here), then `request.json()` for a non-empty one
    request._body = b"-" if first else b""
    if not first:
        return None
    if not is_json_content_type(request.headers.get("content-type")):
        raise UnsupportedMediaType()
    settings = request.app.state.comptoir.settings
    declared = request.headers.get("content-length", "")
    kept = first if whole and shape is not None and declared.isdigit() and int(declared) <= WHOLE else None
    stream, given, found = _stream(request, shape, ctx, checks=kept is None)
    # a catalog: a million objects (kit.gcpause), paused step by step, never across an await
    large = not declared.isdigit() or int(declared) >= LARGE_BODY
    # the request's fingerprint, as idempotency.service compares it, taken as the body passes: only
    # a request with an Idempotency-Key is compared
    seen = None
    if IDEMPOTENCY_HEADER in request.headers:
        seen = hashlib.sha256(b"%s %s\n" % (request.method.encode(), request.url.path.encode()))
    try:
        if seen is not None:
            seen.update(first)
        await _feed(stream, first, large)
        async for chunk in chunks:
            if seen is not None:
                seen.update(chunk)
            if kept is not None:
                kept += chunk
            await _feed(stream, chunk, large)
        if seen is not None:
            context_of(request).fingerprint = seen.hexdigest()
        with gcpause.paused() if large else nullcontext():
            request._json = stream.close()
    except ValueTooLarge as exc:
        refused = PayloadTooLarge(settings.max_body_bytes)
        refused.message = str(exc)
        raise refused from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequest(f"Malformed JSON body: {exc}") from None
    if kept is not None and stream.has_nul and shape is not None:
        # the NUL check below names what the Shape keeps: read as it streams, checks and all
        stream, given, found = _checked(request, kept, shape, ctx)
        request._json, kept = stream.close(), None
    if stream.has_nul:
        # docs/api/conventions.md "Requests": no text of a body holds a NUL. The elements the
        # Shape checks were kept as they came for this walk; a NUL it cannot name lies in a key
        # skipped unbuilt, and the body is refused all the same (never read further raw).
        nul = nul_fields(request._json)
        if nul is None and given is not None:
            nul = Unprocessable([FieldError("body", f"a key {NUL_MESSAGE}")])
        if nul is not None:
            raise nul
    if stream.refused and isinstance(found, FieldErrors) and model is not None:
        raise _with_the_rest(found, model, request._json)
    return kept


def refusal(
    exc: ValidationError, request: Request, kept: bytes | None, shape: ShapeOf | None, ctx: Ctx | None, model: Any
) -> Exception:
    """The 422 of a body `model` refused, as pydantic found it; for a body read whole
    (`kept`, from `read_json_body(..., whole=True)`), the one the Shape's checks would have made
    had it streamed in: until they refuse it (MAX_ERRORS errors in elements of its arrays)
    the same, from then on the elements' errors first and the others counted."""
    if kept is not None and shape is not None:
        stream, _given, found = _checked(request, kept, shape, ctx)
        skeleton = stream.close()
        if stream.refused and isinstance(found, FieldErrors):
            return _with_the_rest(found, model, skeleton)
    return validation_error({**error, "loc": ("body", *error["loc"])} for error in exc.errors())


# a body's stream, the Shape it checks and where its errors are counted (None, None: no checks)
BodyStream = tuple[Stream, Shape | None, Tally | None]


def _stream(request: Request, shape: ShapeOf | None, ctx: Ctx | None, *, checks: bool) -> BodyStream:
    """The stream that reads a body, with `shape`'s checks when `checks`."""
    given, found = shape(request, ctx) if shape is not None and checks else (None, None)
    # with a Shape, a value read whole is an element or a field: the general limit is enough
    limit = request.app.state.comptoir.settings.max_body_bytes if shape is not None else 1 << 62
    return Stream(given, max_value=limit, tally=found), given, found


def _checked(request: Request, kept: bytes, shape: ShapeOf, ctx: Ctx | None) -> BodyStream:
    """A stream fed `kept` (a body of at most `jsonstream.WHOLE`) with `shape`'s checks, to close."""
    stream, given, found = _stream(request, shape, ctx, checks=True)
    stream.feed(kept)
    return stream, given, found


async def _feed(stream: Stream, chunk: bytes, large: bool) -> None:
    """`chunk` in steps, letting other requests run between two steps (a body of one step,
    most bodies, is parsed at once)."""
    view = memoryview(chunk)
    for start in range(0, len(chunk), STEP):
        if stream.size:
            await asyncio.sleep(0)
        with gcpause.paused() if large else nullcontext():
            stream.feed(bytes(view[start : start + STEP]) if len(chunk) > STEP else chunk)


def _with_the_rest(found: FieldErrors, model: Any, skeleton: Any) -> Exception:
    """The 422 of a body refused while streaming: its array elements' errors (the first
    named), then those of the rest of the body, counted (the refused arrays hold only what
    was kept before the refusal)."""
    try:
        TypeAdapter(model).validate_python(skeleton)
    except ValidationError as exc:
        found.more += len(exc.errors())
    return found.refusal()


Handler = Callable[[Request], Coroutine[Any, Any, Response]]


def _permission_of(dependant: Dependant) -> Dependant | None:
    """The route's `auth.access.require(...)` dependency, however deep it is declared."""
    for sub in dependant.dependencies:
        if permission_of(sub.call) is not None:
            return sub
        found = _permission_of(sub)
        if found is not None:
            return found
    return None


def declared_permission(api_route: APIRoute) -> Permission | None:
    """The permission `api_route` declares with `auth.access.require(...)`; None without one."""
    found = _permission_of(api_route.dependant)
    return None if found is None else permission_of(found.call)


def _one_sync(handler: Handler) -> Handler:
    """`handler` reading the connection cache after one round trip at most
    (`db.connection_cache.one_sync_per_request`)."""

    async def once(request: Request) -> Response:
        with one_sync_per_request():
            return await handler(request)

    return once


def _plain(route: APIRoute) -> Handler | None:
    """The endpoint of `route` called as it is, when FastAPI would have nothing to solve: no
    dependency, no query, header, cookie or body parameter, path parameters that are strings,
    at most the request itself, and a `Response` returned as it is (the health check, most
    back-office pages). FastAPI's dependency solving and serialisation cost more than the
    whole of such an endpoint (docs/performance.md "Routing"); the answer is the same."""
    dependant = route.dependant
    returns = inspect.signature(route.endpoint).return_annotation
    if isinstance(returns, str):
        returns = get_type_hints(route.endpoint).get("return")
    if (
        dependant.dependencies
        or dependant.query_params
        or dependant.header_params
        or dependant.cookie_params
        or dependant.body_params
        or route.body_field is not None
        or any(param.field_info.annotation is not str or param.field_info.metadata for param in dependant.path_params)
        or dependant.websocket_param_name
        or dependant.http_connection_param_name
        or dependant.response_param_name
        or dependant.background_tasks_param_name
        or dependant.security_scopes_param_name
        or not inspect.iscoroutinefunction(route.endpoint)
        or not (isinstance(returns, type) and issubclass(returns, Response))
    ):
        return None
    endpoint, request_name = route.endpoint, dependant.request_param_name
    if request_name is None:

        async def bare(request: Request) -> Response:
            return cast(Response, await endpoint(**request.path_params))

        return bare

    async def with_request(request: Request) -> Response:
        return cast(Response, await endpoint(**{request_name: request}, **request.path_params))

    return with_request


class ComptoirRoute(APIRoute):
    def get_route_handler(self) -> Handler:
        plain = _plain(self)
        if plain is not None:
            return plain
        handler = super().get_route_handler()
        if self.body_field is None:
            return _one_sync(handler)
        permission = declared_permission(self)
        info = self.body_field.field_info
        shape = shape_of(info.annotation, info.metadata)
        # a BodyShape's refusal is the service's to raise (after its 404 and 403)
        model = None if any(isinstance(item, BodyShape) for item in info.metadata) else info.annotation

        async def route_handler(request: Request) -> Response:
            ctx = None
            if permission is not None:
                # The token first, then the body (inputs.InputLimits): a request without a valid
                # token is a 401 whatever its body, which is never read. The dependency
                # keeps its Ctx for FastAPI's own call of it (auth.access.guard).
                ctx = await authorize(request, permission, token_of(request))
                context = context_of(request)
                context.permission, context.ctx = permission, ctx
            try:
                await read_json_body(request, shape, ctx, model)
            except (BadRequest, UnsupportedMediaType) as exc:
                # Raised once the dependencies (authentication first) have passed: a bad
                # token is a 401 whatever the body (see app.request_validation_error).
                context_of(request).body_error = exc
                request._json = None
            return await handler(request)

        return _one_sync(route_handler)


class DirectRoute(ComptoirRoute):
    """A route served without FastAPI's dependency solving, for the hottest requests (order
    creation: about 15% of its CPU; an order GET: about 23%, benchmarks/orders.py);
    `route(..., direct=True)`.

    The route is declared as usual, and its OpenAPI operation does not change. Its endpoint
    takes the request, its `ctx` (an `auth.access.require(...)` dependency), at most one body
    (a pydantic model) and string path parameters, nothing else. Both are found on the route
    and applied as FastAPI would: the permission first (`auth.access.authorize`, as for every
    route), then the body (415, 400, 422 in the spec's shapes)."""

    def get_route_handler(self) -> Handler:
        dependant, body_field, found = self.dependant, self.body_field, _permission_of(self.dependant)
        model = None if body_field is None else body_field.field_info.annotation
        body_model = model if isinstance(model, type) and issubclass(model, BaseModel) else None
        permission = None if found is None else permission_of(found.call)
        if (
            found is None
            or permission is None
            or found.name is None
            or dependant.dependencies != [found]
            or dependant.request_param_name is None
            or dependant.query_params
            or dependant.header_params
            or dependant.cookie_params
            or any(param.field_info.annotation is not str for param in dependant.path_params)
            or (body_field is not None and body_model is None)
        ):
            raise TypeError(
                f"{self.name}: a direct endpoint takes the request, ctx, a body and string path parameters only"
            )
        endpoint = self.endpoint
        request_name, ctx_name = dependant.request_param_name, found.name
        if body_field is None or body_model is None:

            async def read(request: Request) -> Response:
                with one_sync_per_request():
                    ctx = await authorize(request, permission, token_of(request))
                    return await endpoint(**{request_name: request, ctx_name: ctx}, **request.path_params)

            return read
        body_name = body_field.name
        shape = shape_of(body_model, body_field.field_info.metadata)

        async def handler(request: Request) -> Response:
            with one_sync_per_request():
                ctx = await authorize(request, permission, token_of(request))
                kept = await read_json_body(request, shape, ctx, body_model, whole=True)
                try:
                    body = body_model.model_validate(getattr(request, "_json", None))
                except ValidationError as exc:
                    raise refusal(exc, request, kept, shape, ctx, body_model) from None
                return await endpoint(**{request_name: request, ctx_name: ctx, body_name: body}, **request.path_params)

        return handler


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


# The long form of a path and its short form, which acts on the connection's own location or
# account and needs a token of that level (spec, path conventions; docs/api/conventions.md).
LOCATION = "/locations/{location_id}"
ACCOUNT = "/accounts/{account_id}"
_SHORT_FORMS = ((LOCATION, "/location", "location_id", "location"), (ACCOUNT, "/account", "account_id", "account"))
# An update is accepted with PATCH and with PUT, each its own OpenAPI operation (`<name>_put`).
UPDATE = ("PATCH", "PUT")


def route(
    router: APIRouter,
    methods: str | tuple[str, ...],
    path: str,
    *,
    summary: str,
    own_summary: str | None = None,
    direct: bool = False,
    **options: Any,
) -> Callable[[E], E]:
    """Declare an endpoint for `methods` at `path` and, when `path` holds a long form
    (`LOCATION` or `ACCOUNT`), at its short form too: `/locations/{location_id}/orders` is also
    `/location/orders`, `/accounts/{account_id}/catalogs` also `/account/catalogs`.

    The endpoint takes `location_id: str | None` (or `account_id`): the path's id in the long
    form, None in the short form. Its `ctx` (`Depends(require(levels, need, ...))`) is the
    long form's; the short form requires the same permission at its own level only, and is
    named `<verb>_own_<rest>` after the endpoint (`create_order`: `create_own_order`), with
    `own_summary` (by default `summary`). Each method after the first gets its own operation
    named `<name>_<method>`. `direct`: served by `DirectRoute`. Other `options` go to
    `APIRouter.add_api_route` as they are."""
    all_methods = (methods,) if isinstance(methods, str) else methods

    def declare(endpoint: E) -> E:
        forms: list[tuple[str, Callable[..., Any], str, str]] = [(path, endpoint, endpoint.__name__, summary)]
        for long, short, id_name, level in _SHORT_FORMS:
            if long in path:
                verb, _, rest = endpoint.__name__.partition("_")
                own = _short_form(endpoint, id_name, level)
                forms = [
                    (path, _long_form(endpoint, id_name), endpoint.__name__, summary),
                    (path.replace(long, short), own, f"{verb}_own_{rest}", own_summary or summary),
                ]
        if own_summary is not None and len(forms) == 1:
            raise TypeError(f"{endpoint.__name__}: {path} has no short form for own_summary")
        for form_path, call, name, form_summary in forms:
            for index, method in enumerate(all_methods):
                router.add_api_route(
                    form_path,
                    call,
                    methods=[method],
                    name=name if index == 0 else f"{name}_{method.lower()}",
                    summary=form_summary,
                    route_class_override=DirectRoute if direct else None,
                    **options,
                )
        return endpoint

    return declare


def _long_form(endpoint: Callable[..., Any], id_name: str) -> Callable[..., Any]:
    """The endpoint with `id_name` a required string: the path's id."""
    signature = inspect.signature(endpoint, eval_str=True)
    if id_name not in signature.parameters:
        raise TypeError(f"{endpoint.__name__} takes no {id_name}")
    parameters = [
        parameter.replace(annotation=str) if parameter.name == id_name else parameter
        for parameter in signature.parameters.values()
    ]
    return _with_signature(partial(endpoint), signature.replace(parameters=parameters), endpoint)


def _short_form(endpoint: Callable[..., Any], id_name: str, level: str) -> Callable[..., Any]:
    """The endpoint called with `id_name=None`, its `ctx` required at `level` only."""
    signature = inspect.signature(endpoint, eval_str=True)
    parameters = [
        _at_level(parameter, level) for parameter in signature.parameters.values() if parameter.name != id_name
    ]
    if sum(parameter is not signature.parameters[parameter.name] for parameter in parameters) != 1:
        raise TypeError(f"{endpoint.__name__}: the short form needs one `ctx` declared with require(...)")
    return _with_signature(partial(endpoint, **{id_name: None}), signature.replace(parameters=parameters), endpoint)


def _at_level(parameter: inspect.Parameter, level: str) -> inspect.Parameter:
    """`ctx: Annotated[Ctx, Depends(require(levels, ...))]` with the same permission at `level` only."""
    if get_origin(parameter.annotation) is not Annotated:
        return parameter
    metadata, narrowed = [], False
    for item in parameter.annotation.__metadata__:
        permission = permission_of(getattr(item, "dependency", None)) if isinstance(item, Depends) else None
        if permission is not None:
            try:
                at_level = permission.at_level(level)
            except ValueError as exc:
                raise TypeError(f"{parameter.name}: {exc} for the short form") from None
            item, narrowed = Depends(guard(at_level), use_cache=item.use_cache, scope=item.scope), True
        metadata.append(item)
    if not narrowed:
        return parameter
    return parameter.replace(annotation=Annotated[(parameter.annotation.__origin__, *metadata)])


def _with_signature(call: partial[Any], signature: inspect.Signature, endpoint: Callable[..., Any]) -> partial[Any]:
    call.__signature__ = signature  # type: ignore[attr-defined]  # read by FastAPI (inspect.signature)
    call.__doc__ = endpoint.__doc__  # the operation's description, as the endpoint's own
    return call


def operation_id(api_route: APIRoute) -> str:
    return api_route.name
