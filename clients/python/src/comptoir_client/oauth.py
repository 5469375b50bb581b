"""Connecting an application with OAuth 2.0 (docs/api/oauth.md): the authorisation URL with a
state and a PKCE S256 challenge, the code exchange, and revocation.

    request = authorization_request(base_url, client_id, redirect_uri, "location[orders.read]")
    # keep request.state and request.code_verifier (e.g. in the user's session), send the
    # browser to request.url; on its return with ?code=...&state=..., check the state, then:
    token = OAuthClient(client_id, client_secret, base_url).exchange(code, request.code_verifier, redirect_uri)
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass
from urllib.parse import urlencode

import httpx
from pydantic import BaseModel, ConfigDict

from comptoir_client._core import DEFAULT_BASE_URL, root_of
from comptoir_client.errors import error_of


class TokenResponse(BaseModel):
    """The answer of `POST /oauth2/v1/token`: the token and what it is bound to."""

    model_config = ConfigDict(extra="ignore")
    access_token: str
    token_type: str
    account_id: str | None = None
    location_id: str | None = None
    catalog_id: str | None = None
    customer_list_id: str | None = None
    account_name: str | None = None
    location_name: str | None = None
    catalog_name: str | None = None
    customer_list_name: str | None = None


@dataclass(frozen=True)
class AuthorizationRequest:
    """Where to send the browser, and what to keep until it comes back."""

    url: str
    state: str
    code_verifier: str


def code_challenge(code_verifier: str) -> str:
    """PKCE S256: base64url (no padding) of the verifier's SHA-256 (RFC 7636 4.2)."""
    digest = hashlib.sha256(code_verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def authorization_request(
    base_url: str,
    client_id: str,
    redirect_uri: str,
    scope: str,
    *,
    state: str | None = None,
    code_verifier: str | None = None,
    name: str | None = None,
) -> AuthorizationRequest:
    """The `GET /oauth2/v1/authorize` URL with a fresh state (against CSRF) and PKCE challenge."""
    state = state or secrets.token_urlsafe(16)
    code_verifier = code_verifier or secrets.token_urlsafe(48)  # 64 characters, within 43..128
    query = {"client_id": client_id, "redirect_uri": redirect_uri, "response_type": "code", "scope": scope}
    query |= {"state": state, "code_challenge": code_challenge(code_verifier), "code_challenge_method": "S256"}
    if name is not None:
        query["name"] = name
    return AuthorizationRequest(f"{root_of(base_url)}/oauth2/v1/authorize?{urlencode(query)}", state, code_verifier)


class OAuthClient:
    """The token and revoke endpoints, with the client credentials in HTTP Basic."""

    def __init__(
        self,
        client_id: str,
        client_secret: str,
        base_url: str = DEFAULT_BASE_URL,
        *,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._http = httpx.Client(
            base_url=root_of(base_url), auth=(client_id, client_secret), timeout=timeout, transport=transport
        )

    def exchange(self, code: str, code_verifier: str | None = None, redirect_uri: str | None = None) -> TokenResponse:
        """The token for an authorisation code (valid 10 minutes, usable once)."""
        form = {"grant_type": "authorization_code", "code": code}
        form |= {"code_verifier": code_verifier} if code_verifier else {}
        form |= {"redirect_uri": redirect_uri} if redirect_uri else {}
        response = self._http.post("/oauth2/v1/token", data=form)
        if response.status_code != 200:
            raise error_of(response, oauth=True)
        return TokenResponse.model_validate_json(response.content)

    def revoke(self, token: str) -> None:
        """Revoke `token`: from the next request on, it is refused."""
        response = self._http.post("/oauth2/v1/revoke", data={"token": token})
        if response.status_code != 200:
            raise error_of(response, oauth=True)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> OAuthClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
