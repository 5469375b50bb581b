"""The client's exceptions, one per `error_type` of Comptoir's error bodies
(docs/api/conventions.md "Errors"), plus what can fail before or after an answer:

    ComptoirError                      everything this package raises
    ├── APIError                       an error answer: .status, .error_type, .message, .request_id, .body
    │   ├── BadRequest                 400 bad_request
    │   ├── Unauthorized               401 unauthorized
    │   ├── Forbidden                  403 forbidden
    │   ├── NotFound                   404 not_found
    │   │   └── RoutingError           404 routing_error (an unknown URL or method)
    │   ├── RequestTimeout             408 request_timeout
    │   ├── Conflict                   409 conflict
    │   ├── PayloadTooLarge            413 payload_too_large
    │   ├── UnsupportedMediaType       415 unsupported_media_type
    │   ├── UnprocessableEntity        422 unprocessable_entity: .errors, a list of FieldError(field, message)
    │   ├── RateLimited                429 too_many_requests: .retry_after (seconds)
    │   ├── InternalError              500 internal_error
    │   ├── ServiceUnavailable         503 service_unavailable
    │   └── OAuthError                 an error of /oauth2/v1/token or /revoke: .error (invalid_grant, ...)
    ├── TransportError                 no answer: the connection failed, after the retries allowed
    └── WebhookVerificationError       a callback delivery whose signature or timestamp is refused

An error answer whose `error_type` this package does not know raises the class of its status,
or APIError itself. Each class is named after its `error_type`; the 422's was `ValidationError`
until 0.2, a name pydantic's own exception has (`errors.ValidationError` still works in 0.2,
with a DeprecationWarning).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx


class ComptoirError(Exception):
    """Everything this package raises."""


@dataclass(frozen=True)
class FieldError:
    """One problem of a 422: the field by its path (`items[0].price`) and what is wrong."""

    field: str
    message: str


class APIError(ComptoirError):
    """An error answer from Comptoir."""

    error_type: str = ""

    def __init__(self, status: int, error_type: str, message: str, request_id: str | None, body: Any) -> None:
        super().__init__(f"{status} {error_type}: {message}" if error_type else f"{status}: {message}")
        self.status, self.error_type, self.message = status, error_type, message
        self.request_id, self.body = request_id, body


class BadRequest(APIError):
    error_type = "bad_request"


class Unauthorized(APIError):
    error_type = "unauthorized"


class Forbidden(APIError):
    error_type = "forbidden"


class NotFound(APIError):
    error_type = "not_found"


class RoutingError(NotFound):
    error_type = "routing_error"


class RequestTimeout(APIError):
    error_type = "request_timeout"


class Conflict(APIError):
    error_type = "conflict"


class PayloadTooLarge(APIError):
    error_type = "payload_too_large"


class UnsupportedMediaType(APIError):
    error_type = "unsupported_media_type"


class UnprocessableEntity(APIError):
    """A body or query refused field by field: `.errors` names each field and what is wrong."""

    error_type = "unprocessable_entity"

    def __init__(self, status: int, error_type: str, message: str, request_id: str | None, body: Any) -> None:
        super().__init__(status, error_type, message, request_id, body)
        listed = body.get("errors") if isinstance(body, dict) else None
        self.errors = [
            FieldError(str(item.get("field", "")), str(item.get("message", "")))
            for item in (listed if isinstance(listed, list) else [])
            if isinstance(item, dict)
        ]


class RateLimited(APIError):
    error_type = "too_many_requests"

    def __init__(self, status: int, error_type: str, message: str, request_id: str | None, body: Any) -> None:
        super().__init__(status, error_type, message, request_id, body)
        self.retry_after: float | None = None


class InternalError(APIError):
    error_type = "internal_error"


class ServiceUnavailable(APIError):
    error_type = "service_unavailable"


class OAuthError(APIError):
    """An error of the authorisation server; `.error` is the OAuth code (`invalid_grant`)."""

    def __init__(self, status: int, error_type: str, message: str, request_id: str | None, body: Any) -> None:
        super().__init__(status, error_type, message, request_id, body)
        self.error = str(body.get("error", "")) if isinstance(body, dict) else ""


class TransportError(ComptoirError):
    """No answer: the connection failed or timed out, after the retries allowed."""


class WebhookVerificationError(ComptoirError):
    """A callback delivery whose signature or timestamp is refused."""


_BY_TYPE: dict[str, type[APIError]] = {
    cls.error_type: cls
    for cls in (
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        RoutingError,
        RequestTimeout,
        Conflict,
        PayloadTooLarge,
        UnsupportedMediaType,
        UnprocessableEntity,
        RateLimited,
        InternalError,
        ServiceUnavailable,
    )
}
_BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    408: RequestTimeout,
    409: Conflict,
    413: PayloadTooLarge,
    415: UnsupportedMediaType,
    422: UnprocessableEntity,
    429: RateLimited,
    500: InternalError,
    503: ServiceUnavailable,
}


def error_of(response: httpx.Response, *, oauth: bool = False) -> APIError:
    """The typed exception for an error answer (its body already read)."""
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text
    error_type = str(body.get("error_type", "")) if isinstance(body, dict) else ""
    message = str(body.get("message", "")) if isinstance(body, dict) else str(body)[:200]
    cls = OAuthError if oauth else _BY_TYPE.get(error_type) or _BY_STATUS.get(response.status_code, APIError)
    error = cls(response.status_code, error_type, message, response.headers.get("X-Request-Id"), body)
    if isinstance(error, RateLimited):
        error.retry_after = retry_after(response)
    return error


def retry_after(response: httpx.Response) -> float | None:
    """`Retry-After` in seconds (docs/api/conventions.md "Rate limits"), when it is a number."""
    value = response.headers.get("Retry-After", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        if name == "ValidationError":  # 0.1's name, kept for 0.2 only
            message = "comptoir_client.errors.ValidationError is UnprocessableEntity since 0.2; it goes in 0.3"
            warnings.warn(message, DeprecationWarning, stacklevel=2)
            return UnprocessableEntity
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
