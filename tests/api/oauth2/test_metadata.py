"""The authorisation server metadata (RFC 8414; docs/api/oauth.md "Metadata document") and
the granted scope in the token response."""

from __future__ import annotations

import httpx

from tests.api.conftest import LOCATION_SCOPE, Shop
from tests.api.oauth2.conftest import Flow


async def test_the_metadata_document_names_the_endpoints_from_the_requests_base_url(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/.well-known/oauth-authorization-server")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json() == {
        "issuer": "http://testserver",
        "authorization_endpoint": "http://testserver/oauth2/v1/authorize",
        "token_endpoint": "http://testserver/oauth2/v1/token",
        "revocation_endpoint": "http://testserver/oauth2/v1/revoke",
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "revocation_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "service_documentation": "http://testserver/docs",
    }


async def test_the_metadata_follows_the_host_the_client_used(client: httpx.AsyncClient) -> None:
    response = await client.get(
        "https://auth.example:8443/.well-known/oauth-authorization-server", headers={"Host": "auth.example:8443"}
    )
    body = response.json()
    assert body["issuer"] == "https://auth.example:8443"
    assert body["token_endpoint"] == "https://auth.example:8443/oauth2/v1/token"


async def test_the_token_response_holds_the_granted_scope(flow: Flow, shop: Shop) -> None:
    code = await flow.code(flow.authorize_url(LOCATION_SCOPE), "owner@example.com")
    body = (await flow.exchange(code)).json()
    assert body["scope"] == LOCATION_SCOPE
    assert body["token_type"] == "Bearer"
