"""The OpenAPI document at /v1/openapi.json (read at /docs, http/reference.py): what FastAPI
writes from the routes, completed by `install` with what every operation shares.

Each operation is written once, where it is declared: its summary (`summary=`), its
description (the endpoint's docstring), its example (`body_example` / `answer_example`,
or its parameters' examples below). `install` adds to every `/v1` operation the access it
needs, in the words of docs/api/permissions.md (`http.permission_table.describe`, from its
`require(...)`), the two ways to send the token, the rate-limit and request-id headers of
every answer, `ETag` / `If-None-Match` / 304 on reads (http/middleware.py `tagged`), and an
example of every parameter it knows by name; the application adds the authorisation
server's paths and the callbacks' `webhooks` (app.py).

Error shapes: each operation lists the statuses it answers with their shapes; `4XX` stands for any other
refusal (409, 413, ...), whose body is the same error shape. Declaring it also keeps FastAPI
from adding its own 422 to operations that take no body: the error handlers answer a bad
query or path parameter with a 400 in the shape below (docs/api/conventions.md "Errors"),
never with FastAPI's `{"detail": [...]}`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI
from fastapi.routing import APIRoute, iter_route_contexts
from pydantic import BaseModel, ConfigDict
from pydantic.json_schema import models_json_schema
from starlette.routing import BaseRoute

from comptoir.http.permission_table import describe
from comptoir.http.routing import declared_permission


class ErrorBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    error_type: str
    message: str


class FieldErrorBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    field: str
    message: str


class ValidationErrorBody(ErrorBody):
    errors: list[FieldErrorBody]


_DESCRIPTIONS = {
    400: "Malformed request (JSON, query parameter or cursor)",
    401: "Missing, invalid, revoked or blocked token, or suspended account",
    403: "The token's level or scope does not allow this request",
    404: "Unknown or inaccessible id",
    415: "The body is not JSON",
    422: "The request is well-formed but breaks a rule",
    429: "Rate limit reached",
}


def error_answer(description: str, shape: type[ErrorBody] = ErrorBody) -> dict[str, Any]:
    """A refusal's answer in an operation's `responses`: `description`, its body `shape`.

    The shape is a reference to the schema `complete` puts once in the document's components,
    not a `model`: FastAPI builds a pydantic adapter for every `model` of every operation's
    answers when the route is declared, only to write the document; for ~180 routes with five
    to eight refusals each, 903 of the 1,190 adapters routing built (docs/performance.md
    "Start-up")."""
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{shape.__name__}"}}},
    }


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    declared: dict[int | str, dict[str, Any]] = {
        status: error_answer(_DESCRIPTIONS[status], ValidationErrorBody if status == 422 else ErrorBody)
        for status in statuses
    }
    declared["4XX"] = error_answer("Any other refusal, in the same shape")
    return declared


def _error_schemas() -> dict[str, Any]:
    """The JSON schemas of the refusals' shapes (`error_answer`), by name, as FastAPI writes an
    answer's model."""
    _, top = models_json_schema(
        [(ErrorBody, "serialization"), (ValidationErrorBody, "serialization")],
        ref_template="#/components/schemas/{model}",
    )
    schemas: dict[str, Any] = top["$defs"]
    return schemas


READ_ERRORS = error_responses(400, 401, 403, 404, 429)
# docs/api/conventions.md "Pagination": lists send X-Cursor-Next while more results remain.
PAGE_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "One page of results",
        "headers": {
            "X-Cursor-Next": {
                "description": "Pass as `cursor` to get the next page; absent on the last page.",
                "schema": {"type": "string"},
            }
        },
    },
    **READ_ERRORS,
}
WRITE_ERRORS = error_responses(400, 401, 403, 404, 415, 422, 429)


def body_example(value: Any) -> dict[str, Any]:
    """`openapi_extra` showing `value` as the example of the operation's JSON body."""
    return {"requestBody": {"content": {"application/json": {"example": value}}}}


def answer_example(responses: dict[int | str, dict[str, Any]], value: Any) -> dict[int | str, dict[str, Any]]:
    """`responses` with `value` as the example of the 200 answer (for an operation without a
    body: deletes, reads, lists)."""
    ok = responses.get(200, {})
    return {**responses, 200: {**ok, "content": {"application/json": {"example": value}}}}


IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "Makes the creation safe to retry: within 24 hours, the same key from the same connection "
    "answers the first response again (with `Idempotent-Replayed: true`) and creates nothing; the same key "
    'with another method, path or body is a 422 (docs/api/conventions.md "Idempotency").',
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
    "example": "order-2026-06-24-0001",
}
# `openapi_extra` of the creations that honour the header (`idempotency.service.idempotent`).
IDEMPOTENT: dict[str, Any] = {"parameters": [IDEMPOTENCY_KEY]}

BEARER = {
    "type": "http",
    "scheme": "bearer",
    "description": "The same access token in `Authorization: Bearer <token>` (RFC 6750).",
}
SECURITY: list[dict[str, list[str]]] = [{"AccessToken": []}, {"Bearer": []}]

_STRING = {"schema": {"type": "string"}}
_RATE_LIMIT_HEADERS = {
    "RateLimit-Policy": {
        "description": "Each window's limit and length in seconds, e.g. "
        '`"minute";q=500;w=60, "hour";q=2500;w=3600, "day";q=10000;w=86400` '
        '(docs/api/conventions.md "Rate limits").',
        **_STRING,
    },
    "RateLimit": {
        "description": 'Requests left and seconds to the end of each window, e.g. `"minute";r=499;t=37, ...`.',
        **_STRING,
    },
}
_REQUEST_ID = {
    "X-Request-Id": {
        "description": "The request's id (the one sent, when sane): quote it when reporting a problem.",
        **_STRING,
    }
}
_RETRY_AFTER = {"Retry-After": {"description": "Seconds left in the window that refused the request.", **_STRING}}
_REPLAYED = {
    "Idempotent-Replayed": {
        "description": "`true` when the answer is the replay of an earlier request with the same `Idempotency-Key`.",
        "schema": {"type": "string", "const": "true"},
    }
}
_ETAG = {"ETag": {"description": "The answer's version: send it back in `If-None-Match`.", **_STRING}}
# Declared once in `components.headers`; each answer refers to them.
HEADERS = {**_RATE_LIMIT_HEADERS, **_REQUEST_ID, **_RETRY_AFTER, **_REPLAYED, **_ETAG}


def _refs(*names: str) -> dict[str, Any]:
    return {name: {"$ref": f"#/components/headers/{name}"} for name in names}


IF_NONE_MATCH = {
    "name": "If-None-Match",
    "in": "header",
    "required": False,
    "description": "An `ETag` this read answered before: while nothing changed, the answer is a 304 without body.",
    "schema": {"type": "string"},
    "example": '"5d41402abc4b2a76b9719d91"',
}
NOT_MODIFIED = {"description": "Nothing changed since the `ETag` sent in `If-None-Match`"}

# An example of each parameter, by name: the demo's ids (`comptoir serve --demo`) and typical values.
PARAMETER_EXAMPLES: dict[str, Any] = {
    "account_id": "4k3jxr",
    "location_id": "4k3jxr-1",
    "order_id": "a7d9kp",
    "quote_id": "q8r3tz",
    "catalog_id": "r8dms9",
    "item_id": "p5x2kd",
    "product_id": "p5x2kd",
    "sku_id": "s9h4wq",
    "option_list_id": "l3v8nc",
    "option_id": "o2k7fb",
    "image_id": "i6t2pm",
    "customer_list_id": "rqs3g7",
    "customer_id": "c4n8vd",
    "loyalty_card_id": "y7d2hs",
    "operation_id": "z3m9ka",
    "event_id": "e5w2rq",
    "count": 20,
    "cursor": "AUXf3bq0Vd2kN8sHq1cZ4w",
    "private_ref": "my-ref-42",
    "status": "new",
    "created_by": "My App",
    "after": "2026-06-24T00:00:00+02:00",
    "before": "2026-06-25T00:00:00+02:00",
    "email": "ann@example.com",
    "phone": "+3361234*",
    "name": "Points",
    "ref": "CARD-0042",
    "hide_data": "true",
}


def _complete_operation(operation: dict[str, Any], method: str, access: str | None) -> None:
    if access is not None:
        operation["description"] = f"{operation.get('description', '').rstrip()}\n\n{access}".strip()
    operation["security"] = SECURITY
    parameters = operation.setdefault("parameters", [])
    for parameter in parameters:
        if parameter["name"] in PARAMETER_EXAMPLES and "example" not in parameter:
            parameter["example"] = PARAMETER_EXAMPLES[parameter["name"]]
    responses = operation["responses"]
    if method == "get":
        parameters.append(IF_NONE_MATCH)
        responses["304"] = {**NOT_MODIFIED, "headers": {}}
    for status, response in responses.items():
        headers = response.setdefault("headers", {})
        headers.update(_refs("X-Request-Id"))
        if status != "401":  # no valid token: no rate-limit window
            headers.update(_refs("RateLimit-Policy", "RateLimit"))
        if status == "429":
            headers.update(_refs("Retry-After"))
        if status in ("200", "304") and method == "get":
            headers.update(_refs("ETag"))
        if status == "200" and IDEMPOTENCY_KEY in parameters:
            headers.update(_refs("Idempotent-Replayed"))
    if not parameters:
        del operation["parameters"]


def _examples_as_declared(operation: dict[str, Any], route: APIRoute) -> None:
    """The examples of `body_example` and `answer_example` as written: FastAPI's document drops
    every null value, which a read shape's example needs (`"resume_at": null`)."""
    declared = [("requestBody", (route.openapi_extra or {}).get("requestBody", {}))]
    declared += [(str(status), response) for status, response in route.responses.items()]
    for key, part in declared:
        for media_type, media in part.get("content", {}).items():
            if "example" in media:
                found = operation["requestBody"] if key == "requestBody" else operation["responses"][key]
                found["content"][media_type]["example"] = media["example"]


def _access(route: APIRoute) -> str | None:
    permission = declared_permission(route)
    if permission is None:
        return None
    levels, scope, kind = describe(permission)
    return f"**Access**: token level {levels}; scope: {scope}; rate limit: {kind}."


def complete(
    document: dict[str, Any],
    routes: Sequence[BaseRoute],
    paths: dict[str, Any],
    schemas: dict[str, Any],
    webhooks: dict[str, Any],
) -> None:
    """Add to `document` (FastAPI's) what every API operation shares, `paths` (written by
    hand: routes that are not JSON operations) with their `schemas`, and `webhooks`."""
    for context in iter_route_contexts(routes):
        route, path = context.original_route, context.path
        if not isinstance(route, APIRoute) or path is None or path not in document["paths"]:
            continue
        for method in route.methods or ():
            operation = document["paths"][path].get(method.lower())
            if operation is not None:
                _examples_as_declared(operation, route)
                _complete_operation(operation, method.lower(), _access(route))
    document["paths"].update(paths)
    document["webhooks"] = webhooks
    document["components"]["schemas"].update(_error_schemas() | schemas)
    document["components"]["headers"] = HEADERS
    schemes = document["components"].setdefault("securitySchemes", {})
    schemes["Bearer"] = BEARER
    schemes["ClientBasic"] = {
        "type": "http",
        "scheme": "basic",
        "description": "An application's client id and client secret, for the authorisation server.",
    }


def install(app: FastAPI, *, paths: dict[str, Any], schemas: dict[str, Any], webhooks: dict[str, Any]) -> None:
    """`app.openapi()` builds the document once, completed (`complete`)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            complete(FastAPI.openapi(app), app.routes, paths, schemas, webhooks)
        assert app.openapi_schema is not None
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
