"""The authorisation server's rules (spec 5.2-5.5, docs/api/oauth.md "Authorisation"):
authorisation codes, client authentication and the scope in plain words (failed attempts are
throttled by users/logins.py).

Codes are single use and valid 10 minutes, bound to their client and redirect URI, and may
carry a PKCE challenge (RFC 7636, S256) that the exchange must then answer; a verifier sent
for a code issued without a challenge is refused (RFC 9700 2.1.1). A code is spent by one
atomic UPDATE, so two concurrent exchanges of one code cannot both succeed, and a used code
presented again revokes the token it gave (RFC 6749 4.1.2).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, ClassVar

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.applications.service import OOB_REDIRECT_URI, check_redirect_uri, client_secret, find_client
from comptoir.auth.scopes import Scope, parse_scope
from comptoir.connections.service import authorise, find_connection_by_token, find_connection_by_token_hash
from comptoir.connections.service import revoke as revoke_connection
from comptoir.errors import ComptoirError, Unprocessable
from comptoir.kit import clock, crypto
from comptoir.models import AuthorizationCode, OAuthClient
from comptoir.oauth2 import repository

CODE_LIFETIME = timedelta(minutes=10)  # spec 5.2 item 4
CODE_RETENTION = timedelta(days=1)  # how long a code stays past its expiry (a replay is still recognised)
_PKCE = re.compile(r"[A-Za-z0-9\-._~]{43,128}")  # RFC 7636 4.1 verifier / S256 challenge


class OAuthError(ComptoirError):
    """An error of the token or revoke endpoint: the spec's body plus the OAuth `error`
    (docs/api/oauth.md "Token endpoint")."""

    error_type: ClassVar[str] = "bad_request"

    def __init__(self, status: int, error: str, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status  # type: ignore[misc]
        self.error = error
        self.retry_after = retry_after
        self.error_type = {400: "bad_request", 401: "unauthorized", 429: "too_many_requests"}[status]  # type: ignore[misc]

    def body(self) -> dict[str, Any]:
        return {**super().body(), "error": self.error}

    def headers(self) -> dict[str, str]:
        headers = {"Cache-Control": "no-store"}
        if self.status == 401:
            headers["WWW-Authenticate"] = 'Basic realm="comptoir"'
        if self.retry_after is not None:
            headers["Retry-After"] = str(self.retry_after)
        return headers


# --- redirect URIs ----------------------------------------------------------------------


def redirect_refused(client: OAuthClient, redirect_uri: str) -> str | None:
    """Why `/authorize` may not send the browser to `redirect_uri`, or None
    (docs/api/oauth.md "Redirect URIs"): the oob URI for every client; any other registered,
    matched exactly (RFC 9700 2.1: no prefix or pattern matching), and still allowed by the
    registration rule, so that a row written before it (or by hand) sends no one to a
    `javascript:` address."""
    if redirect_uri == OOB_REDIRECT_URI:
        return None
    if redirect_uri not in client.redirect_uris:
        return f"The redirect_uri {redirect_uri!r} is not registered for {client.name}."
    problem = check_redirect_uri(redirect_uri)
    return None if problem is None else f"The redirect_uri of {client.name} cannot be used: {problem}."


def valid_challenge(challenge: str) -> bool:
    return _PKCE.fullmatch(challenge) is not None


# --- codes ------------------------------------------------------------------------------


async def issue_code(session: AsyncSession, key: bytes, **values: Any) -> str:
    """A new code for the approved request (`values`: the AuthorizationCode columns)."""
    code = secrets.token_urlsafe(32)
    now = clock.now()
    await repository.add_code(
        session,
        AuthorizationCode(
            code_hash=crypto.lookup_hash(key, code), expires_at=now + CODE_LIFETIME, created_at=now, **values
        ),
    )
    return code


def _s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


async def redeem_code(
    session: AsyncSession,
    key: bytes,
    *,
    client: OAuthClient,
    code: str,
    redirect_uri: str | None,
    code_verifier: str | None,
) -> AuthorizationCode:
    """Spend `code` for `client` (spec 5.3 item 4: 400 when unknown, expired or used;
    CodeReplayed when used, for the caller to revoke what the first exchange gave)."""
    found = await repository.code_by_hash(session, crypto.lookup_hash(key, code))
    now = clock.now()
    if found is None or found.client_id != client.id:
        raise OAuthError(400, "invalid_grant", "The authorization code is unknown")
    if found.used_at is not None:
        raise CodeReplayed(found.token_hash)
    if found.expires_at <= now:
        raise OAuthError(400, "invalid_grant", "The authorization code has expired")
    if redirect_uri is not None and redirect_uri != found.redirect_uri:
        raise OAuthError(400, "invalid_grant", "redirect_uri differs from the one of the authorization request")
    if found.code_challenge is None and code_verifier is not None:
        # RFC 9700 2.1.1: a verifier for a code issued without a challenge is a downgrade
        raise OAuthError(
            400, "invalid_grant", "code_verifier was sent but the authorization request had no code_challenge"
        )
    if found.code_challenge is not None:
        if code_verifier is None:
            raise OAuthError(400, "invalid_grant", "code_verifier is required: the authorization used PKCE")
        if not hmac.compare_digest(_s256(code_verifier), found.code_challenge):
            raise OAuthError(400, "invalid_grant", "code_verifier does not match the code_challenge")
    if not await repository.spend_code(session, found.id, now):
        # a concurrent exchange spent it first: what it gave, once committed
        raise CodeReplayed(await repository.token_hash_of_code(session, found.id))
    return found


class CodeReplayed(OAuthError):
    """A used code presented again: refused, and the token its first exchange gave is to be
    revoked (RFC 6749 4.1.2, RFC 9700 4.1). `token_hash`: that token's lookup hash, or None
    when it is unknown (the first exchange has not committed)."""

    def __init__(self, token_hash: str | None) -> None:
        super().__init__(400, "invalid_grant", "The authorization code has already been used")
        self.token_hash = token_hash


async def record_token(session: AsyncSession, code: AuthorizationCode, token_hash: str) -> None:
    """Remember the token `code` gave, for `revoke_replayed`."""
    await repository.record_token(session, code.id, token_hash)


async def revoke_replayed(session: AsyncSession, replayed: CodeReplayed) -> None:
    """Revoke the token the replayed code gave, if the connection still has it (a token
    issued to it later, after a revocation, was not that code's)."""
    if replayed.token_hash is None:
        return
    connection = await find_connection_by_token_hash(session, replayed.token_hash)
    if connection is not None:
        await revoke_connection(session, connection)


async def grant(
    session: AsyncSession,
    key: bytes,
    *,
    client: OAuthClient,
    code: str,
    redirect_uri: str | None,
    code_verifier: str | None,
) -> dict[str, Any]:
    """spec 5.3: spend `code` (`redeem_code`) and create or update the connection it
    approved; the token response (the same token on re-authorisation). 400 invalid_grant
    when what was approved no longer applies."""
    found = await redeem_code(
        session, key, client=client, code=code, redirect_uri=redirect_uri, code_verifier=code_verifier
    )
    rows = await repository.approved(session, found)
    assert rows.user is not None  # a user's codes go with the user
    try:
        body = await authorise(
            session,
            key,
            client=client,
            user=rows.user,
            scope=parse_scope(found.scope),
            location=rows.location,
            account=rows.account,
            catalog=rows.catalog,
            customer_list=rows.customer_list,
            name=found.name,
        )
    except Unprocessable as exc:  # what was approved changed meanwhile
        raise OAuthError(400, "invalid_grant", f"The authorization no longer applies: {exc.message}") from None
    await record_token(session, found, crypto.lookup_hash(key, body["access_token"]))
    return body


async def revoke_token(session: AsyncSession, key: bytes, client: OAuthClient, token: str) -> None:
    """spec 5.4 item 2: the client's own token only; an unknown token is already unusable."""
    connection = await find_connection_by_token(session, key, token)
    if connection is not None:
        if connection.client_id != client.id:
            raise OAuthError(400, "unauthorized_client", "The token was not issued to this client")
        await revoke_connection(session, connection)


# --- client authentication --------------------------------------------------------------


def basic_credentials(header: str | None) -> tuple[str, str] | None:
    """(client id, secret) of an HTTP Basic `Authorization` header (RFC 6749 2.3.1)."""
    if not header or header[:6].lower() != "basic ":
        return None
    try:
        decoded = base64.b64decode(header[6:].strip(), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None
    client_id, sep, secret = decoded.partition(":")
    return (client_id, secret) if sep else None


@dataclass(frozen=True, slots=True)
class Presented:
    """The client credentials of a `/token` or `/revoke` request: the id and secret it
    authenticates with, and whether what else it sent agrees with them."""

    client_id: str
    secret: str
    agree: bool


def presented_credentials(authorization: str | None, fields: Mapping[str, str]) -> Presented | None:
    """docs/api/oauth.md "Token endpoint": HTTP Basic (RFC 6749 2.3.1), else (compatible) the
    `client_id` and `client_secret` fields; None when neither is sent. A request that sends
    both ways authenticates with Basic, and every field it also sends must be the same (a
    `client_id` naming another client, a `client_secret` differing from Basic's: `agree` is
    False, and the client authentication fails)."""
    basic = basic_credentials(authorization)
    if basic is None:
        if "client_id" not in fields:
            return None
        return Presented(fields["client_id"], fields.get("client_secret", ""), agree=True)
    client_id, secret = basic
    agree = fields.get("client_id", client_id) == client_id
    other = fields.get("client_secret")
    if other is not None and not hmac.compare_digest(other.encode(), secret.encode()):
        agree = False
    return Presented(client_id, secret, agree)


async def authenticate_client(session: AsyncSession, key: bytes, client_id: str, secret: str) -> OAuthClient | None:
    client = await find_client(session, client_id)
    expected = client_secret(key, client) if client is not None else crypto.derive(key, "no-client", client_id)
    # compared even for an unknown client: the answer takes the same time either way
    if not hmac.compare_digest(expected.encode(), secret.encode()) or client is None:
        return None
    return client


# --- the scope in plain words -----------------------------------------------------------

_WHAT = {
    "orders": ("see the orders of {target}", "see, create and update the orders of {target}"),
    "inventory": ("see the stock of {target}", "see and update the stock of {target}"),
    "catalog": ("read the catalog you choose below", "read and update the catalog you choose below"),
    "customer_list": (
        "read the customers and loyalty cards of the customer list you choose below",
        "read and update the customers and loyalty cards of the customer list you choose below",
    ),
    "all_catalogs": (
        "read every catalog of {target}",
        "read every catalog of {target}, and create, update and delete {own} catalogs",
    ),
    "all_customer_lists": (
        "read every customer list of {target}",
        "read every customer list of {target}, and create, update and delete {own} customer lists",
    ),
}


def describe(scope: Scope) -> list[str]:
    """What the application will be able to do, one sentence per permission (spec 5.1)."""
    target = "this location" if scope.level == "location" else "this account and all its locations"
    own = "this location's" if scope.level == "location" else "its"
    lines = []
    for permission in scope.permissions:
        resource, _, right = permission.partition(".")
        text = _WHAT[resource][right == "write"].format(target=target, own=own)
        if resource == "catalog" and scope.level == "location":
            text += " (and the stock of this location)"  # spec 5.1: deprecated inventory grant
        lines.append(text[0].upper() + text[1:] + ".")
    if scope.profile_with_email:
        lines.append("See your name, email address, time zone and languages.")
    elif scope.profile:
        lines.append("See your name, time zone and languages.")
    return lines
