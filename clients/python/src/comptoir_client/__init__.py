"""A typed client for Comptoir's API (clients/python/README.md)."""

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
