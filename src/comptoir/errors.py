"""The error tree, and the one place that renders error bodies and frames error answers
(`framed`; spec section 7).

    ComptoirError                      {"error_type", "message"} with its HTTP status
    ├── BadRequest              400    bad_request: malformed JSON, query parameter or cursor
    │   └── BadBearer           400    a token that cannot be read (with WWW-Authenticate)
    ├── Unauthorized            401    unauthorized: token missing, unknown, revoked, blocked...
    │                                  (with WWW-Authenticate)
    ├── Forbidden               403    forbidden: scope or token level lacks the permission
    │                                  (with WWW-Authenticate)
    ├── NotFound                404    not_found: unknown or inaccessible id
    ├── RoutingError            404    routing_error: unknown URL
    ├── RequestTimeout          408    request_timeout: headers or body too slow to arrive
    ├── Conflict                409    conflict: races an identical in-flight request, or a replay still sent
    │   └── StaleForm           409    a back-office form sent from a page out of date
    ├── PayloadTooLarge         413    payload_too_large: the body is over the size limit
    ├── UnsupportedMediaType    415    unsupported_media_type
    ├── Unprocessable           422    unprocessable_entity, with errors [{field, message}]
    ├── RateLimited             429    too_many_requests, with Retry-After
    ├── InternalError           500    internal_error
    └── ServiceUnavailable      503    service_unavailable: the process's connection cap, with Retry-After
        ├── NotReady                   /v1/ready when a check fails
        └── DependencyUnavailable      the database or Redis unreachable or too slow, with Retry-After

docs/api/conventions.md "Errors": every error body is `{"error_type", "message"}` plus
`errors` on 422, and a rejected request changes nothing (the request's transaction is
rolled back by whoever raised). A 422 names the first MAX_ERRORS errors, in order, and its
message counts the rest; each field and message is cut at MAX_TEXT characters, so the
answer stays small whatever the body.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from comptoir.kit.jsonutil import dumps
from comptoir.kit.text import too_long
from comptoir.kit.wire import shown

MAX_ERRORS = 50  # field errors a 422 names; the others are counted
MAX_TEXT = 1000  # characters of one error's field or message (a field path may hold any key)


def _cut(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 3] + "..."


@dataclass(frozen=True, slots=True)
class FieldError:
    field: str
    message: str


class ComptoirError(Exception):
    status: ClassVar[int] = 500
    error_type: ClassVar[str] = "internal_error"
    default_message: ClassVar[str] = "Internal error"

    def __init__(self, message: str | None = None) -> None:
        self.message = message or self.default_message
        super().__init__(self.message)

    def body(self) -> dict[str, Any]:
        return {"error_type": self.error_type, "message": self.message}

    def headers(self) -> dict[str, str]:
        return {}

    def render(self) -> bytes:
        return dumps(self.body())


Headers = list[tuple[bytes, bytes]]
_JSON = (b"content-type", b"application/json")


def framed(error: ComptoirError) -> tuple[int, Headers, bytes]:
    """An error response as every path sends it: its status, its headers (the JSON content
    type, the body's length, then the error's own, `headers()`: `WWW-Authenticate`,
    `Retry-After`...) and its body (`render()`). The one frame of an error; each path only
    puts it in its own form (docs/architecture.md "Where things are"): a Starlette response
    (`http.routing.ErrorResponse`), ASGI messages (`http.middleware.error_answer`), HTTP/1.1
    bytes (`http.protocol.error_response`)."""
    body = error.render()
    headers = [_JSON, (b"content-length", str(len(body)).encode())]
    headers += [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in error.headers().items()]
    return error.status, headers, body


def bearer_challenge(error: str | None, description: str = "") -> str:
    """The `WWW-Authenticate` value of a refused API request (RFC 6750 3; docs/api/oauth.md
    "Bearer tokens"): the realm, and the error code with its description unless `error` is
    None (a request without a token). The description keeps only the characters RFC 6750
    3 allows in it (printable ASCII but `"` and `\\`)."""
    if error is None:
        return 'Bearer realm="comptoir"'
    text = "".join(c if " " <= c <= "~" and c not in '"\\' else "'" if c == '"' else "?" for c in description)
    return f'Bearer realm="comptoir", error="{error}", error_description="{_cut(text)}"'


class BadRequest(ComptoirError):
    status = 400
    error_type = "bad_request"
    default_message = "Bad request"


class BadBearer(BadRequest):
    """A request whose token cannot be read: a malformed `Authorization: Bearer`, or two
    different tokens (RFC 6750 3.1 `invalid_request`)."""

    def headers(self) -> dict[str, str]:
        return {"WWW-Authenticate": bearer_challenge("invalid_request", self.message)}


class Unauthorized(ComptoirError):
    """`challenge`: the RFC 6750 error code of its `WWW-Authenticate`; None for a request
    that sent no token."""

    status = 401
    error_type = "unauthorized"
    default_message = "The access token is invalid or the connection has been revoked"

    def __init__(self, message: str | None = None, *, challenge: str | None = "invalid_token") -> None:
        super().__init__(message)
        self.challenge = challenge

    def headers(self) -> dict[str, str]:
        return {"WWW-Authenticate": bearer_challenge(self.challenge, self.message)}


class Forbidden(ComptoirError):
    """Refused by the token's level or scope: `insufficient_scope` (RFC 6750 3.1)."""

    status = 403
    error_type = "forbidden"
    default_message = "The connection's scope does not allow this request"

    def headers(self) -> dict[str, str]:
        return {"WWW-Authenticate": bearer_challenge("insufficient_scope", self.message)}


class NotFound(ComptoirError):
    status = 404
    error_type = "not_found"

    def __init__(self, resource: str, resource_id: str | None = None) -> None:
        self.resource = resource
        label = resource.replace("_", " ")
        message = f"No {label} with id {shown(resource_id)}" if resource_id is not None else f"No such {label}"
        super().__init__(message)


class RoutingError(ComptoirError):
    status = 404
    error_type = "routing_error"

    def __init__(self, method: str, path: str) -> None:
        super().__init__(f"No route matches [{method}] {path}")


class RequestTimeout(ComptoirError):
    """Written by the HTTP protocol itself (http/protocol.py), before the application runs."""

    status = 408
    error_type = "request_timeout"
    default_message = "The request did not arrive in time"


class Conflict(ComptoirError):
    status = 409
    error_type = "conflict"
    default_message = "Conflict"


class StaleForm(Conflict):
    """A back-office form names what its page showed of `resource` (an order's status, a
    customer's version) in its `seen` field; the service compares it under the row's lock
    and refuses a form sent after the resource changed (docs/back-office.md "Errors").
    `current`: what the resource is now, when the page can say it."""

    def __init__(self, resource: str, current: str | None = None) -> None:
        super().__init__(f"The {resource} changed since the page showed it")
        self.resource, self.current = resource, current


class PayloadTooLarge(ComptoirError):
    status = 413
    error_type = "payload_too_large"

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(f"The request body must not exceed {limit} bytes")


class UnsupportedMediaType(ComptoirError):
    status = 415
    error_type = "unsupported_media_type"
    default_message = "Request bodies must be JSON (Content-Type: application/json)"


class Unprocessable(ComptoirError):
    status = 422
    error_type = "unprocessable_entity"

    def __init__(self, errors: Sequence[FieldError] | FieldError, message: str | None = None, *, more: int = 0) -> None:
        """`errors` in order (only the first MAX_ERRORS are kept), and `more` not listed."""
        listed = [errors] if isinstance(errors, FieldError) else list(errors)
        self.errors = listed[:MAX_ERRORS]
        self.more = more + len(listed) - len(self.errors)  # errors counted, not named
        if message is None:
            first = self.errors[0] if self.errors else None
            message = f"{first.field}: {first.message}" if first and first.field else (first.message if first else "")
            if len(self.errors) + self.more > 1:
                message += f" (and {len(self.errors) + self.more - 1} more)"
        super().__init__(_cut(message) if message else "The request cannot be processed")

    def body(self) -> dict[str, Any]:
        return {
            "error_type": self.error_type,
            "message": self.message,
            "errors": [{"field": _cut(e.field), "message": _cut(e.message)} for e in self.errors],
        }


class RateLimited(ComptoirError):
    status = 429
    error_type = "too_many_requests"

    def __init__(self, retry_after: int, window: str) -> None:
        self.retry_after = retry_after
        self.window = window
        super().__init__(f"Rate limit reached ({window}); retry in {retry_after} seconds")

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.retry_after)}


class InternalError(ComptoirError):
    pass


class ServiceUnavailable(ComptoirError):
    """Answered by the HTTP protocol to a connection past the cap (http/protocol.py)."""

    status = 503
    error_type = "service_unavailable"
    default_message = "Too many connections; retry shortly"

    def headers(self) -> dict[str, str]:
        return {"Retry-After": "1"}


class NotReady(ServiceUnavailable):
    """`GET /v1/ready` when a check fails (docs/operations.md "Health and readiness"): the
    message names the failing checks, nothing more (no address, no driver error)."""

    default_message = "Not ready"


class DependencyUnavailable(ServiceUnavailable):
    """A dependency (`database`, `redis`) did not answer in time, or refused: raised by the
    layer that talks to it (`db/`), whatever asked, and answered 503 with `Retry-After`
    (docs/operations.md "When a dependency fails"). Nothing the request did is kept: its
    transaction is rolled back. The message names the dependency, never its address."""

    RETRY_AFTER = 2  # seconds: long enough not to hammer a recovering server

    def __init__(self, dependency: str) -> None:
        self.dependency = dependency
        super().__init__(f"The {dependency} is unavailable; retry in a few seconds")

    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(self.RETRY_AFTER)}


class FieldErrors:
    """Collects the field errors of a request so the 422 names them all, not just the first:
    the first MAX_ERRORS, in order, and how many more there were (`more`)."""

    def __init__(self) -> None:
        self.errors: list[FieldError] = []
        self.more = 0

    def add(self, field: str, message: str) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(FieldError(field, message))
        else:
            self.more += 1

    def extend(self, other: FieldErrors) -> None:
        """`other`'s errors after these: those it names (named here while there is room),
        then those it counts."""
        for error in other.errors:
            self.add(error.field, error.message)
        self.more += other.more

    @property
    def total(self) -> int:
        return len(self.errors) + self.more

    @property
    def full(self) -> bool:
        """MAX_ERRORS are named: any further error is only counted."""
        return len(self.errors) >= MAX_ERRORS

    def __bool__(self) -> bool:
        return bool(self.errors)

    def refusal(self) -> Unprocessable:
        return Unprocessable(self.errors, more=self.more)

    def raise_if_any(self) -> None:
        if self.errors:
            raise self.refusal()


def check_text(errors: FieldErrors, field: str, value: str | None, max_length: int, *, required: bool = False) -> None:
    """Length rules of free-text fields, the same on every database."""
    if value is None or not value.strip():
        if required:
            errors.add(field, "must not be empty")
        return
    if problem := too_long(value, max_length):
        errors.add(field, problem)


def check_code(errors: FieldErrors, field: str, value: str, parse: Callable[[str], object]) -> None:
    """A required code (a currency, a country, a timezone): "must not be empty" when none was
    given, else `parse`'s own refusal (a `ValueError`, such as kit.wire's WireError)."""
    if not value.strip():
        errors.add(field, "must not be empty")
        return
    try:
        parse(value)
    except ValueError as exc:
        errors.add(field, str(exc))


def field_path(loc: Iterable[str | int]) -> str:
    """`("opening_hours", "monday", 1, "to")` -> `opening_hours.monday[1].to`."""
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += ("." if path else "") + str(part)
    return path


_MESSAGES = {
    "missing": "is required",
    "model_type": "must be a JSON object",
    "model_attributes_type": "must be a JSON object",
    "dict_type": "must be a JSON object",
    "list_type": "must be an array",
    "string_type": "must be a string",
    "int_type": "must be an integer",
    "int_parsing": "must be an integer",
    "int_from_float": "must be an integer",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
}


def validation_message(error: Mapping[str, Any]) -> str:
    """A pydantic error's message, as integrators read it."""
    if error["type"] == "string_too_long":  # kit.text.Text
        return too_long(error["input"], error["ctx"]["max_length"]) or str(error["msg"])
    return _MESSAGES.get(error["type"]) or str(error["msg"]).replace("Input should be", "must be")


def validation_error(errors: Iterable[dict[str, Any]]) -> ComptoirError:
    """Request validation errors (pydantic's, located as FastAPI locates them: `("body",
    ...)`, `("query", name)`) in the spec's shape: body fields are a 422 naming each field
    path; a missing or non-object body, or a bad query parameter, is a 400."""
    fields = FieldErrors()
    for error in errors:
        loc = tuple(error.get("loc", ()))
        where = loc[0] if loc else "body"
        if where != "body":
            name = loc[-1] if len(loc) > 1 else where
            return BadRequest(f"Invalid {where} parameter {shown(name)}: {validation_message(error)}")
        if len(loc) == 1 or error["type"] == "json_invalid":
            return BadRequest("The request body must be a JSON object")
        fields.add(field_path(loc[1:]), validation_message(error))
    return fields.refusal()
