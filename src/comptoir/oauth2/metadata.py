"""The authorisation server metadata at `/.well-known/oauth-authorization-server` (RFC 8414;
docs/api/oauth.md "Metadata document"): what the endpoints of `oauth2.endpoints` accept,
with their addresses built on Comptoir's public URL (`http.public_url.public_base`), never on
the request's Host; a 404 when that URL cannot be known."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from comptoir.errors import ComptoirError
from comptoir.http.public_url import public_base
from comptoir.kit.jsonutil import dumps

router = APIRouter(include_in_schema=False)

PREFIX = "/oauth2/v1"  # where app.py mounts oauth2.endpoints
CLIENT_AUTH = ["client_secret_basic", "client_secret_post"]  # oauth2.endpoints._Credentials


def metadata(base: str) -> dict[str, Any]:
    """The document for the service at `base` (scheme, host, port and path, no slash)."""
    return {
        "issuer": base,
        "authorization_endpoint": f"{base}{PREFIX}/authorize",
        "token_endpoint": f"{base}{PREFIX}/token",
        "revocation_endpoint": f"{base}{PREFIX}/revoke",
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": CLIENT_AUTH,
        "revocation_endpoint_auth_methods_supported": CLIENT_AUTH,
        # the scope grammar (docs/api/oauth.md "Scopes") is no list of values: its page instead
        "service_documentation": f"{base}/docs",
    }


class Unpublished(ComptoirError):
    """No public URL to build the document on (docs/operations.md "Public URL")."""

    status = 404
    error_type = "not_found"
    default_message = "No metadata document: set COMPTOIR_PUBLIC_URL to the address clients reach this server at"


@router.get("/.well-known/oauth-authorization-server")
async def authorization_server_metadata(request: Request) -> Response:
    base = public_base(request)
    if base is None:
        raise Unpublished()
    return Response(dumps(metadata(base)), media_type="application/json")
