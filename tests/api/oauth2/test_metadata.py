"""The authorisation server metadata (RFC 8414; docs/api/oauth.md "Metadata document"), built on
the public URL (docs/operations.md "Public URL"), and the granted scope in the token response."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from comptoir.config import Settings
from tests.api.conftest import LOCATION_SCOPE, Shop
from tests.api.oauth2.conftest import Flow

UNPUBLISHED = {
    "error_type": "not_found",
    "message": "No metadata document: set COMPTOIR_PUBLIC_URL to the address clients reach this server at",
}


def publish(app: FastAPI, public_url: str) -> None:
    """COMPTOIR_PUBLIC_URL for the running app, validated as at start."""
    state = app.state.comptoir
    state.settings = Settings.model_validate({**state.settings.model_dump(), "public_url": public_url})


async def test_the_metadata_document_names_the_endpoints_from_the_public_url(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    publish(app, "https://hub.example.com")
    response = await client.get("/.well-known/oauth-authorization-server")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {
        "issuer": "https://hub.example.com",
        "authorization_endpoint": "https://hub.example.com/oauth2/v1/authorize",
        "token_endpoint": "https://hub.example.com/oauth2/v1/token",
        "revocation_endpoint": "https://hub.example.com/oauth2/v1/revoke",
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "revocation_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "service_documentation": "https://hub.example.com/docs",
    }


async def test_without_a_public_url_the_metadata_follows_a_loopback_host(client: httpx.AsyncClient) -> None:
    response = await client.get("http://localhost:8000/.well-known/oauth-authorization-server")
    body = response.json()
    assert body["issuer"] == "http://localhost:8000"
    assert body["token_endpoint"] == "http://localhost:8000/oauth2/v1/token"


async def test_without_a_public_url_another_host_gets_no_metadata(client: httpx.AsyncClient) -> None:
    response = await client.get("https://auth.example:8443/.well-known/oauth-authorization-server")
    assert response.status_code == 404
    assert response.json() == UNPUBLISHED


async def test_the_token_response_holds_the_granted_scope(flow: Flow, shop: Shop) -> None:
    code = await flow.code(flow.authorize_url(LOCATION_SCOPE), "owner@example.com")
    body = (await flow.exchange(code)).json()
    assert body["scope"] == LOCATION_SCOPE
    assert body["token_type"] == "Bearer"
