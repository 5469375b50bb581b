"""The authorisation server metadata at `/.well-known/oauth-authorization-server` (RFC 8414;
docs/api/oauth.md "Metadata document"): what the endpoints of `oauth2.endpoints` accept,
with their addresses built from the request's base URL, so the document names the host the
client reached."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from comptoir.kit.jsonutil import dumps

router = APIRouter(include_in_schema=False)

PREFIX = "/oauth2/v1"  # where app.py mounts oauth2.endpoints
CLIENT_AUTH = ["client_secret_basic", "client_secret_post"]  # oauth2.endpoints._Credentials


def metadata(base: str) -> dict[str, Any]:
    """The document for the service reached at `base` (scheme, host and port, no slash)."""
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


@router.get("/.well-known/oauth-authorization-server")
async def authorization_server_metadata(request: Request) -> Response:
    base = str(request.base_url).rstrip("/")
    return Response(dumps(metadata(base)), media_type="application/json")
