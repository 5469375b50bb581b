"""Users (spec 2.3 User): people who own accounts and authorise applications."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.errors import FieldError, FieldErrors, Unprocessable, check_text
from comptoir.kit import clock, crypto
from comptoir.kit.emails import EmailRefused, lookup_key, normalise
from comptoir.kit.times import parse_timezone_name, render_timezone
from comptoir.kit.wire import WireError, shown
from comptoir.models import User
from comptoir.users import repository

_LOCALE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})*")
MIN_PASSWORD = 8


def render_user(user: User, *, with_email: bool) -> dict[str, Any]:
    """spec 2.3 User; `email` present only with the profile_with_email scope."""
    body: dict[str, Any] = {
        "id": user.public_id,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "timezone": render_timezone(user.timezone),
        "locales": list(user.locales),
    }
    if with_email:
        body["email"] = user.email
    return body


# docs/api/oauth.md "Emails": what a signup for an address in use is told, whichever
# spelling of it was typed
EMAIL_TAKEN = "an account already uses this address: log in with it, or sign up with another address"


class EmailTaken(Unprocessable):
    """A new user's email is another's (with every other error of the request): a signup
    counts it as a failed attempt (users/signup.py)."""


def _lookup_spelling(email: str) -> str:
    """The stored spelling of `email`; for one the rules refuse, the spelling stored before
    them (stripped, lower case), which only a user kept by migration 0022 can have."""
    return lookup_key(email) or email.strip().lower()


def throttle_subject(email: str) -> str:
    """What failed logins and signups for `email` are counted under: its stored spelling,
    so that every spelling of an address counts as that address."""
    return _lookup_spelling(email)


async def find_user_by_email(session: AsyncSession, email: str) -> User | None:
    """The user of any spelling of their address (docs/api/oauth.md "Emails")."""
    return await repository.by_email(session, _lookup_spelling(email))


async def authenticate(session: AsyncSession, email: str, password: str) -> User | None:
    """The user with this email and password, else None (the password is checked off the
    event loop: argon2 is slow on purpose)."""
    user = await find_user_by_email(session, email) if email else None
    # checked even for an unknown email (against a stand-in): the answer takes as long
    if not await asyncio.to_thread(crypto.verify_password, user.password_hash if user else None, password):
        return None
    return user


async def create_user(
    session: AsyncSession,
    *,
    email: str,
    password: str,
    first_name: str | None = None,
    last_name: str | None = None,
    timezone: str = "UTC",
    locales: list[str] | None = None,
) -> User:
    """Create a user; raises Unprocessable naming every invalid field."""
    errors = FieldErrors()
    taken = False
    try:
        email = normalise(email)
    except EmailRefused as refused:
        errors.add("email", str(refused))
    else:
        taken = await repository.email_taken(session, email)
        if taken:
            errors.add("email", EMAIL_TAKEN)
    if len(password) < MIN_PASSWORD:
        errors.add("password", f"must have at least {MIN_PASSWORD} characters")
    check_text(errors, "first_name", first_name, 255)
    check_text(errors, "last_name", last_name, 255)
    try:
        parse_timezone_name(timezone)
    except WireError as exc:
        errors.add("timezone", str(exc))
    locales = list(locales) if locales else ["en-GB"]
    for i, locale in enumerate(locales):
        if not _LOCALE.fullmatch(locale):
            errors.add(f"locales[{i}]", f"{shown(locale)} is not a language tag such as 'en-GB'")
    if taken:
        raise EmailTaken(errors.errors)
    errors.raise_if_any()
    password_hash = await asyncio.to_thread(crypto.hash_password, password)  # argon2 is slow on purpose
    user = User(
        email=email,
        password_hash=password_hash,
        first_name=first_name,
        last_name=last_name,
        timezone=timezone,
        locales=locales,
        created_at=clock.now(),
    )
    if not await repository.add(session, user):  # taken since it was checked
        raise EmailTaken([FieldError("email", EMAIL_TAKEN)])
    return user


async def find_user(session: AsyncSession, user_id: int) -> User | None:
    return await repository.get(session, user_id)
