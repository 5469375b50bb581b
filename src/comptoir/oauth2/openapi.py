"""The authorisation server in the OpenAPI document (docs/api/oauth.md): its routes answer
HTML pages, forms and redirects rather than the API's JSON operations, so their operations are
written here by hand and added to the document by `http.openapi.install` (app.py)."""

from __future__ import annotations

from typing import Any

TAG = ["OAuth 2.0"]
_NULLABLE_STRING = {"type": ["string", "null"]}

TOKEN_RESPONSE: dict[str, Any] = {
    "type": "object",
    "required": ["access_token", "token_type"],
    "properties": {
        "access_token": {"type": "string", "description": "Send it in `X-Access-Token` (or as a Bearer token)."},
        "token_type": {"type": "string", "const": "Bearer"},
        "scope": {"type": "string", "description": "The scope the user granted, e.g. `location[orders.read],profile`."},
        "account_id": {**_NULLABLE_STRING, "description": "The account the token is bound to."},
        "location_id": {**_NULLABLE_STRING, "description": "The location the token is bound to (location level)."},
        "catalog_id": {**_NULLABLE_STRING, "description": "The catalog the token is bound to, if its scope names one."},
        "customer_list_id": {**_NULLABLE_STRING, "description": "The customer list the token is bound to, if any."},
        "account_name": _NULLABLE_STRING,
        "location_name": _NULLABLE_STRING,
        "catalog_name": _NULLABLE_STRING,
        "customer_list_name": _NULLABLE_STRING,
    },
}
TOKEN_EXAMPLE = {
    "access_token": "534cb1cdced6dc72cfbeca0991914358",
    "token_type": "Bearer",
    "scope": "location[orders.write,catalog.read],profile",
    "account_id": "4k3jxr",
    "location_id": "4k3jxr-1",
    "catalog_id": "r8dms9",
    "customer_list_id": None,
    "account_name": "Demo Bistro",
    "location_name": "Demo Bistro Paris",
    "catalog_name": "Carte",
    "customer_list_name": None,
}
OAUTH_ERROR: dict[str, Any] = {
    "type": "object",
    "required": ["error_type", "message"],
    "properties": {
        "error_type": {"type": "string", "examples": ["bad_request"]},
        "message": {"type": "string"},
        "error": {
            "type": "string",
            "description": "The OAuth error code, on every refusal under the OAuth rules; absent when the "
            "request could not be read at all (a form over its size limit)",
            "examples": ["invalid_grant", "invalid_client", "invalid_request", "unsupported_grant_type"],
        },
    },
}


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": OAUTH_ERROR}}}


def _form(properties: dict[str, Any], required: list[str], example: dict[str, str]) -> dict[str, Any]:
    schema = {"type": "object", "required": required, "properties": properties}
    return {
        "required": True,
        "content": {
            "application/x-www-form-urlencoded": {"schema": schema, "example": example},
            "application/json": {"schema": schema, "example": example},
        },
    }


def _query(name: str, description: str, example: str, *, required: bool = False) -> dict[str, Any]:
    return {
        "name": name,
        "in": "query",
        "required": required,
        "description": description,
        "schema": {"type": "string"},
        "example": example,
    }


_BODY_CREDENTIAL = "Accepted instead of HTTP Basic; discouraged. Sent beside HTTP Basic, it must be Basic's."
_CLIENT_FIELDS = {
    "client_id": {"type": "string", "description": _BODY_CREDENTIAL},
    "client_secret": {"type": "string", "description": _BODY_CREDENTIAL},
}
_THROTTLED = "Too many failed client authentications from this address or for this client id (`Retry-After`)"

AUTHORIZE = {
    "get": {
        "tags": TAG,
        "operationId": "oauth_authorize",
        "summary": "Ask a user to connect the application",
        "description": "Send the user's browser here. The user logs in (or signs up), chooses the location or "
        "account, and the catalog or customer list the scope names, then presses Allow or Deny. On Allow, the "
        "browser goes back to `redirect_uri` with `code` (valid 10 minutes, usable once) and `state`; on Deny, "
        "with `error=access_denied`; an invalid scope goes back with `error=invalid_scope`. With the redirect URI "
        "`urn:ietf:wg:oauth:2.0:oob` the page shows the code instead. An unknown client or an unregistered "
        "redirect URI is an error page, never a redirect.",
        "parameters": [
            _query("client_id", "The application's client id.", "csyn8x", required=True),
            _query(
                "redirect_uri",
                "One of the client's registered redirect URIs (exactly), or `urn:ietf:wg:oauth:2.0:oob`.",
                "https://app.example/callback",
                required=True,
            ),
            _query(
                "scope",
                "At most one level set (`location[...]` or `account[...]`) and `profile` or `profile_with_email`, "
                "comma-separated.",
                "location[orders.write,catalog.read],profile",
                required=True,
            ),
            _query("state", "Any value; given back unchanged with the code. Check it.", "xyz"),
            _query("name", "The connection's name: one token per name (`device_id` is an alias).", "till-1"),
            _query(
                "code_challenge",
                "PKCE: the S256 challenge of the `code_verifier` sent to the token endpoint.",
                "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
            ),
            _query("code_challenge_method", "PKCE: `S256`.", "S256"),
            _query("response_type", "`code` when sent.", "code"),
        ],
        "responses": {
            "200": {"description": "The login, signup or choice page", "content": {"text/html": {}}},
            "303": {
                "description": "Back to `redirect_uri`, with `code` and `state`, or with `error`",
                "headers": {
                    "Location": {
                        "schema": {"type": "string"},
                        "example": "https://app.example/callback?code=4f1c&state=xyz",
                    }
                },
            },
            "400": {
                "description": "An error page: unknown client, missing or unregistered redirect URI, or a "
                "registered one the registration rule refuses (`javascript:`, `user@`...)",
                "content": {"text/html": {}},
            },
        },
        "security": [],
    }
}

TOKEN = {
    "post": {
        "tags": TAG,
        "operationId": "oauth_token",
        "summary": "Exchange an authorization code for the connection's access token",
        "description": "From the application's server, with its client credentials in HTTP Basic. The code is "
        "spent: a code unknown, expired, already used, or with another `redirect_uri` than the authorisation "
        "request's is a 400 `invalid_grant`, and a code exchanged twice also revokes the token it gave. "
        "Re-authorising the same connection gives the same token. Tokens do not expire. No cross-origin "
        "browser request is allowed. The body may be form-encoded or JSON.",
        "requestBody": _form(
            {
                "code": {"type": "string", "description": "The code the authorisation gave."},
                "grant_type": {"type": "string", "const": "authorization_code"},
                "redirect_uri": {"type": "string", "description": "When sent, the authorisation request's."},
                "code_verifier": {"type": "string", "description": "PKCE: required when a challenge was sent."},
                **_CLIENT_FIELDS,
            },
            ["code"],
            {
                "grant_type": "authorization_code",
                "code": "9b2e71d0c4a8",
                "redirect_uri": "https://app.example/callback",
            },
        ),
        "responses": {
            "200": {
                "description": "The access token and what it is bound to (`null`: not bound)",
                "headers": {"Cache-Control": {"schema": {"type": "string", "const": "no-store"}}},
                "content": {
                    "application/json": {
                        "schema": {"$ref": "#/components/schemas/TokenResponse"},
                        "example": TOKEN_EXAMPLE,
                    }
                },
            },
            "400": _error("`invalid_request`, `invalid_grant` or `unsupported_grant_type`"),
            "401": _error("`invalid_client`: missing or wrong client credentials"),
            "429": _error(_THROTTLED),
        },
        "security": [{"ClientBasic": []}],
    }
}

REVOKE = {
    "post": {
        "tags": TAG,
        "operationId": "oauth_revoke",
        "summary": "Revoke an access token",
        "description": "From the application's server, with its client credentials in HTTP Basic: revokes one of "
        "the client's own tokens. A 200 means the token is unusable (an unknown token already is). The "
        "connection stays listed in the back office as revoked.",
        "requestBody": _form(
            {"token": {"type": "string", "description": "The access token to revoke."}, **_CLIENT_FIELDS},
            ["token"],
            {"token": "534cb1cdced6dc72cfbeca0991914358"},
        ),
        "responses": {
            "200": {
                "description": "The token is unusable",
                "content": {"application/json": {"schema": {"type": "object"}, "example": {}}},
            },
            "400": _error("`invalid_request`: the token field is missing"),
            "401": _error("`invalid_client`: missing or wrong client credentials"),
            "429": _error(_THROTTLED),
        },
        "security": [{"ClientBasic": []}],
    }
}

METADATA_EXAMPLE = {
    "issuer": "https://comptoir.example",
    "authorization_endpoint": "https://comptoir.example/oauth2/v1/authorize",
    "token_endpoint": "https://comptoir.example/oauth2/v1/token",
    "revocation_endpoint": "https://comptoir.example/oauth2/v1/revoke",
    "response_types_supported": ["code"],
    "grant_types_supported": ["authorization_code"],
    "code_challenge_methods_supported": ["S256"],
    "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
}
METADATA = {
    "get": {
        "tags": TAG,
        "operationId": "oauth_metadata",
        "summary": "Describe the authorisation server",
        "description": "The authorisation server's metadata in the standard OAuth 2.0 form (RFC 8414): its "
        "endpoints and what they support, for client libraries that discover them. The addresses are built on "
        "the server's configured public URL, never on the request's Host.",
        "responses": {
            "200": {
                "description": "The server's metadata",
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "required": ["issuer", "authorization_endpoint", "token_endpoint"],
                            "properties": {name: {"type": "string"} for name in list(METADATA_EXAMPLE)[:4]}
                            | {
                                name: {"type": "array", "items": {"type": "string"}}
                                for name in list(METADATA_EXAMPLE)[4:]
                            },
                        },
                        "example": METADATA_EXAMPLE,
                    }
                },
            },
            "404": {
                "description": "The server's public URL is not configured (and the request's Host is no loopback "
                "name): no addresses to give",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}},
            },
        },
        "security": [],
    }
}

PATHS: dict[str, Any] = {
    "/oauth2/v1/authorize": AUTHORIZE,
    "/oauth2/v1/token": TOKEN,
    "/oauth2/v1/revoke": REVOKE,
    "/.well-known/oauth-authorization-server": METADATA,
}
SCHEMAS: dict[str, Any] = {"TokenResponse": TOKEN_RESPONSE}
