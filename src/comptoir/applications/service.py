"""OAuth clients, which the back office calls applications (spec 1.2, 5.2; docs/api/oauth.md
"Clients"): their registration and edits, the one rule of a redirect URI, and their secrets,
derived from the server key and a per-row seed (only the seed is stored)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.applications import repository
from comptoir.errors import FieldErrors
from comptoir.kit import clock, crypto
from comptoir.models import OAuthClient, User

OOB_REDIRECT_URI = "urn:ietf:wg:oauth:2.0:oob"
MAX_NAME = 255  # characters of an application's name
# A scheme, then no space, control character, backslash or fragment (RFC 3986 has none of them).
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:[^\s#\\\x00-\x1f\x7f]+")
# docs/api/oauth.md "Redirect URIs": schemes whose address the browser runs or reads itself
# rather than hands to an application.
_BROWSER_SCHEMES = frozenset({"javascript", "vbscript", "data", "file", "blob", "filesystem", "about"})
_PURPOSE = "client-secret"  # the purpose of a client's secret seed (`kit.crypto.secret_of`)


def client_secret(key: bytes, client: OAuthClient) -> str:
    return secret_from_seed(key, client.secret_seed)


def secret_from_seed(key: bytes, seed: str) -> str:
    """A client's secret: it keys the HMAC of its callbacks (spec 6.4 item 1). Derived from
    its seed, or the one a sandbox's seed file gave (`given_secret_seed`)."""
    return crypto.secret_of(key, _PURPOSE, seed)


def given_secret_seed(key: bytes, secret: str) -> str:
    """The secret seed whose client secret is `secret` (docs/sandbox.md "Ids, tokens and
    secrets")."""
    return crypto.given_seed(key, _PURPOSE, secret)


def render_client(key: bytes, client: OAuthClient) -> dict[str, Any]:
    return {
        "client_id": client.public_id,
        "client_secret": client_secret(key, client),
        "name": client.name,
        "redirect_uris": list(client.redirect_uris),
    }


def check_redirect_uri(uri: str) -> str | None:
    """None when `uri` may be a client's redirect URI, else why not: the one rule of
    docs/api/oauth.md "Redirect URIs", applied at every registration and edit (the back
    office, `comptoir admin create-client`) and again before `/authorize` sends a browser
    anywhere (`oauth2.service.redirect_refused`)."""
    if uri == OOB_REDIRECT_URI:
        return None
    if not _URI.fullmatch(uri):  # RFC 6749 3.1.2: absolute, without a fragment
        return f"{uri!r} is not an absolute URI without fragment"
    scheme, _, rest = uri.partition(":")
    scheme = scheme.lower()
    if scheme in _BROWSER_SCHEMES:
        return (
            f"{uri!r} uses the {scheme}: scheme, whose address the browser runs or reads itself:"
            " register an https URL or your application's own scheme"
        )
    try:
        parts = urlsplit(uri)
    except ValueError:  # an unclosed [IPv6 address, a host that NFKC turns into another
        return f"{uri!r} is not an absolute URI without fragment"
    if "@" in parts.netloc:  # `https://app.example@evil.example/`: a host easy to misread
        return f"{uri!r} has user information (user@) before its host"
    if scheme in ("http", "https"):
        if not rest.startswith("//") or not parts.hostname:
            return f"{uri!r} has no host"
        try:
            parts.port  # noqa: B018 - raises for a port out of range or not a number
        except ValueError:
            return f"{uri!r} has an invalid port"
    return None


def _check_client(name: str, redirect_uris: list[str]) -> None:
    errors = FieldErrors()
    if not name.strip() or len(name) > MAX_NAME:
        errors.add("name", f"must be 1 to {MAX_NAME} characters")
    for i, uri in enumerate(redirect_uris):
        problem = check_redirect_uri(uri)
        if problem:
            errors.add(f"redirect_uris[{i}]", problem)
    errors.raise_if_any()


async def create_client(
    session: AsyncSession, *, name: str, redirect_uris: list[str], owner: User | None = None
) -> OAuthClient:
    _check_client(name, redirect_uris)
    client = OAuthClient(
        name=name,
        secret_seed=crypto.new_seed(),
        redirect_uris=list(dict.fromkeys(redirect_uris)),
        owner_id=owner.id if owner else None,
        created_at=clock.now(),
    )
    await repository.add_client(session, client)
    return client


async def edit_client(session: AsyncSession, client: OAuthClient, *, name: str, redirect_uris: list[str]) -> None:
    """The back office's edit: the same checks as at registration."""
    _check_client(name, redirect_uris)
    client.name = name
    client.redirect_uris = list(dict.fromkeys(redirect_uris))
    await session.flush()


async def regenerate_secret(session: AsyncSession, client: OAuthClient) -> None:
    """A new secret; the former one stops working at once, at the token endpoint and as the
    key of the callbacks' signatures (spec 6.4 item 1). Connections and their tokens stay."""
    client.secret_seed = crypto.new_seed()
    await session.flush()


async def find_client(session: AsyncSession, public_id: str) -> OAuthClient | None:
    return await repository.client_by_public_id(session, public_id)


async def client_by_id(session: AsyncSession, client_id: int) -> OAuthClient | None:
    return await repository.client(session, client_id)


async def clients_owned_by(session: AsyncSession, user: User) -> list[OAuthClient]:
    """The user's applications, oldest first."""
    return await repository.clients_owned_by(session, user.id)
