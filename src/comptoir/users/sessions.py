"""Browser sessions of the server-rendered pages (the OAuth pages and the back office).

A session is a signed cookie: `base64url(JSON {sid, uid, iat}) "." HMAC` under the server
key. `sid` is random per session and renewed at login (no session fixation); the CSRF token
of every form is an HMAC of it, checked on every POST. A signed-in session also has a row
in `browser_sessions` (`sign_in`), which logging out deletes (`sign_out`): a copied cookie
then stops working at once. Pages are never framed (`X-Frame-Options: DENY`, CSP
`frame-ancestors 'none'`) and never cached.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Annotated

import orjson
from fastapi import Depends
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request
from starlette.responses import Response

from comptoir.http.state import app_state
from comptoir.kit import clock, crypto
from comptoir.models import BrowserSession, User
from comptoir.users import repository as users

COOKIE = "comptoir_session"
LIFETIME = 14 * 86400  # seconds


@dataclass(frozen=True, slots=True)
class WebSession:
    sid: str
    user_id: int | None
    issued_at: int

    @classmethod
    def new(cls, user_id: int | None = None) -> WebSession:
        return cls(sid=secrets.token_urlsafe(18), user_id=user_id, issued_at=int(time.time()))


def _sign(key: bytes, payload: bytes) -> str:
    return hmac.new(key, b"session\x1f" + payload, hashlib.sha256).hexdigest()


def encode(key: bytes, session: WebSession) -> str:
    payload = base64.urlsafe_b64encode(
        orjson.dumps({"sid": session.sid, "uid": session.user_id, "iat": session.issued_at})
    )
    return f"{payload.decode()}.{_sign(key, payload)}"


def decode(key: bytes, value: str | None) -> WebSession | None:
    """The session a cookie holds, or None when it is absent, forged or too old."""
    if not value or value.count(".") != 1:
        return None
    payload, signature = value.split(".")
    if not hmac.compare_digest(signature, _sign(key, payload.encode())):
        return None
    try:
        data = orjson.loads(base64.urlsafe_b64decode(payload.encode()))
        session = WebSession(sid=str(data["sid"]), user_id=data["uid"], issued_at=int(data["iat"]))
    except (ValueError, KeyError, TypeError):
        return None
    if session.issued_at + LIFETIME < time.time():
        return None
    return session


def current(request: Request, key: bytes) -> WebSession | None:
    return decode(key, request.cookies.get(COOKIE))


def client_ip(request: Request) -> str:
    """The address login and client-authentication failures are counted against."""
    return request.client.host if request.client else "unknown"


def csrf_token(key: bytes, session: WebSession) -> str:
    return crypto.derive(key, "csrf", session.sid)


def csrf_ok(key: bytes, session: WebSession | None, given: str | None) -> bool:
    return session is not None and given is not None and hmac.compare_digest(csrf_token(key, session), given)


def set_cookie(response: Response, request: Request, key: bytes, session: WebSession) -> None:
    response.set_cookie(
        COOKIE,
        encode(key, session),
        max_age=LIFETIME,
        path="/",
        httponly=True,
        samesite="lax",
        secure=secure_cookies(request),
    )


def secure_cookies(request: Request) -> bool:
    """Whether cookies get `Secure`: always with COMPTOIR_SECURE_COOKIES=always, else on an
    https request (behind a trusted proxy, the scheme it forwards: docs/operations.md
    "Behind a proxy")."""
    return app_state(request).settings.secure_cookies == "always" or request.url.scheme == "https"


async def flash(db: AsyncSession, session: WebSession, value: str) -> None:
    """What the browser's next page shows once (`take_flash`), held in its session's row."""
    await users.set_flash(db, _sid_hash(session), value)


async def take_flash(db: AsyncSession, session: WebSession, value: str) -> bool:
    """True once after `flash(value)`, then False: a reload no longer shows it."""
    return await users.take_flash(db, _sid_hash(session), value)


def _sid_hash(session: WebSession) -> str:
    return hashlib.sha256(session.sid.encode()).hexdigest()


async def sign_in(db: AsyncSession, user: User) -> WebSession:
    """A new session for `user` (a new sid: no fixation), valid until it expires or `sign_out`."""
    session = WebSession.new(user.id)
    now = clock.now()
    await users.add_browser_session(
        db,
        BrowserSession(
            sid_hash=_sid_hash(session), user_id=user.id, created_at=now, expires_at=now + timedelta(seconds=LIFETIME)
        ),
    )
    return session


async def user_of(db: AsyncSession, session: WebSession | None) -> User | None:
    """The signed-in user of a browser session, or None (anonymous, logged out, expired)."""
    if session is None or session.user_id is None:
        return None
    row = await users.browser_session(db, _sid_hash(session))
    if row is None or row.user_id != session.user_id or row.expires_at <= clock.now():
        return None
    return await users.get(db, session.user_id)


async def sign_out(db: AsyncSession, session: WebSession) -> None:
    await users.delete_browser_session(db, _sid_hash(session))


@dataclass(frozen=True, slots=True)
class Browser:
    """Who a page open to any browser serves (the consent page, which shows its login form when
    nobody is signed in): the browser's session, or a new anonymous one (`fresh`: its cookie is
    still to be set), and the person signed in on it, if any."""

    session: WebSession
    fresh: bool
    user: User | None


async def browser(request: Request) -> Browser:
    """The dependency behind `AnyBrowser`: the session from the cookie, and its user read in a
    transaction of its own before the page runs (none for an anonymous session)."""
    state = app_state(request)
    found = current(request, state.key)
    if found is None:
        return Browser(WebSession.new(), True, None)
    if found.user_id is None:
        return Browser(found, False, None)
    async with state.db.transaction(write=False) as db:
        return Browser(found, False, await user_of(db, found))


# Declared on the route of a page open to any browser, as a back-office page declares
# `web.render.Person` (docs/architecture.md "Permissions").
AnyBrowser = Annotated[Browser, Depends(browser)]
