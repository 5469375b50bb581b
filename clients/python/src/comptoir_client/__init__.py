"""A typed client for Comptoir's API (clients/python/README.md).

Its names are imported when first used (as pydantic does): `import comptoir_client`, and so
loading its pytest plugin in every pytest process, costs next to nothing until a name is used.
`_LAZY` says where each name is; the imports below say the same to type checkers, and a test
checks the two agree."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from comptoir_client import models
    from comptoir_client._async import AsyncEventStream, AsyncPaginator
    from comptoir_client._core import Retries, __version__
    from comptoir_client._sync import EventStream, Page, Paginator
    from comptoir_client.client import AsyncComptoir, Comptoir
    from comptoir_client.errors import (
        APIError,
        BadRequest,
        ComptoirError,
        Conflict,
        FieldError,
        Forbidden,
        InternalError,
        NotFound,
        OAuthError,
        PayloadTooLarge,
        RateLimited,
        RequestTimeout,
        RoutingError,
        ServiceUnavailable,
        TransportError,
        Unauthorized,
        UnprocessableEntity,
        UnsupportedMediaType,
        WebhookVerificationError,
    )
    from comptoir_client.models import SigningSecret
    from comptoir_client.oauth import AuthorizationRequest, OAuthClient, TokenResponse, authorization_request
    from comptoir_client.sse import ServerSentEvent
    from comptoir_client.webhooks import Delivery, signed_headers, verify, verify_hmac, verify_standard

__all__ = [
    "APIError",
    "AsyncComptoir",
    "AsyncEventStream",
    "AsyncPaginator",
    "AuthorizationRequest",
    "BadRequest",
    "Comptoir",
    "ComptoirError",
    "Conflict",
    "Delivery",
    "EventStream",
    "FieldError",
    "Forbidden",
    "InternalError",
    "NotFound",
    "OAuthClient",
    "OAuthError",
    "Page",
    "Paginator",
    "PayloadTooLarge",
    "RateLimited",
    "RequestTimeout",
    "Retries",
    "RoutingError",
    "ServerSentEvent",
    "ServiceUnavailable",
    "SigningSecret",
    "TokenResponse",
    "TransportError",
    "Unauthorized",
    "UnprocessableEntity",
    "UnsupportedMediaType",
    "WebhookVerificationError",
    "__version__",
    "authorization_request",
    "models",
    "signed_headers",
    "verify",
    "verify_hmac",
    "verify_standard",
]

_LAZY: dict[str, str] = {
    "__version__": "comptoir_client._core",
    "APIError": "comptoir_client.errors",
    "AsyncComptoir": "comptoir_client.client",
    "AsyncEventStream": "comptoir_client._async",
    "AsyncPaginator": "comptoir_client._async",
    "authorization_request": "comptoir_client.oauth",
    "AuthorizationRequest": "comptoir_client.oauth",
    "BadRequest": "comptoir_client.errors",
    "Comptoir": "comptoir_client.client",
    "ComptoirError": "comptoir_client.errors",
    "Conflict": "comptoir_client.errors",
    "Delivery": "comptoir_client.webhooks",
    "EventStream": "comptoir_client._sync",
    "FieldError": "comptoir_client.errors",
    "Forbidden": "comptoir_client.errors",
    "InternalError": "comptoir_client.errors",
    "models": "comptoir_client.models",
    "NotFound": "comptoir_client.errors",
    "OAuthClient": "comptoir_client.oauth",
    "OAuthError": "comptoir_client.errors",
    "Page": "comptoir_client._sync",
    "Paginator": "comptoir_client._sync",
    "PayloadTooLarge": "comptoir_client.errors",
    "RateLimited": "comptoir_client.errors",
    "RequestTimeout": "comptoir_client.errors",
    "Retries": "comptoir_client._core",
    "RoutingError": "comptoir_client.errors",
    "ServerSentEvent": "comptoir_client.sse",
    "ServiceUnavailable": "comptoir_client.errors",
    "signed_headers": "comptoir_client.webhooks",
    "SigningSecret": "comptoir_client.models",
    "TokenResponse": "comptoir_client.oauth",
    "TransportError": "comptoir_client.errors",
    "Unauthorized": "comptoir_client.errors",
    "UnprocessableEntity": "comptoir_client.errors",
    "UnsupportedMediaType": "comptoir_client.errors",
    "verify": "comptoir_client.webhooks",
    "verify_hmac": "comptoir_client.webhooks",
    "verify_standard": "comptoir_client.webhooks",
    "WebhookVerificationError": "comptoir_client.errors",
}


def __getattr__(name: str) -> Any:
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module 'comptoir_client' has no attribute {name!r}")
    module = importlib.import_module(where)
    value = module if where == f"{__name__}.{name}" else getattr(module, name)
    globals()[name] = value  # found once: the next use is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
