"""Logins and their throttle (docs/api/oauth.md "Failed logins"): a user's login by email and
password, and the counting of failed attempts (logins, signups for an address in use, client
authentications) per address, for the authorisation pages, the back office and the token
endpoint alike. A person logs in one way on both pages: `attempt` (admitted or refused
before any transaction), then `log_in` (the password, then a new browser session);
`users.signup.sign_up` is the same for a signup."""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import math
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import ClassVar

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.kit import clock
from comptoir.models import User
from comptoir.ratelimit.limiter import RateLimiter
from comptoir.users import sessions
from comptoir.users.service import authenticate, throttle_subject


def _pause(seconds: float) -> Awaitable[None]:
    return asyncio.sleep(seconds)


@dataclass(frozen=True, slots=True)
class Throttle:
    """Failed logins (`kind` "login", `subject` the email) and failed client authentications
    ("client", the client id) from one address, counted in aligned 15-minute windows where
    the rate limits are (in process, or in Redis shared by every process):

    - after PAIR_LIMIT failures for the subject from the address, that address's attempts
      for that subject are refused until the window ends;
    - after ADDRESS_LIMIT failures from the address, for any subjects, every attempt from it;
    - the subject itself is never locked, or anyone could lock its owner out: after
      SLOW_AFTER failures for it from all addresses, each attempt for it waits SLOW_STEP
      seconds more per failure, SLOW_MAX at most, whichever address it comes from.

    An IPv6 address counts as its /64 network (what one host or site is usually given).
    Counters are keyed by a digest of the subject and address, so a long made-up email
    costs the counters no more than a short one."""

    limiter: RateLimiter
    kind: str
    subject: str
    address: str
    PAIR_LIMIT: ClassVar[int] = 10
    ADDRESS_LIMIT: ClassVar[int] = 30
    SLOW_AFTER: ClassVar[int] = 10
    SLOW_STEP: ClassVar[float] = 0.25
    SLOW_MAX: ClassVar[float] = 2.0
    WINDOW: ClassVar[int] = 900

    def _keys(self) -> tuple[list[str], int]:
        """The (subject, address), address and subject counters, and the window's seconds left."""
        now = clock.now().timestamp()
        start = int(now // self.WINDOW) * self.WINDOW
        address = _network(self.address)
        parts = [("pair", self.subject, address), ("address", address), ("subject", self.subject)]
        keys = [f"{self.limiter.prefix}authfail:{self.kind}:{part[0]}:{_digest(*part[1:])}:{start}" for part in parts]
        return keys, max(1, math.ceil(start + self.WINDOW - now))

    async def admit(self) -> int | None:
        """Seconds to wait when this address is refused, else None once the subject's
        slowing down has passed. Called before a database transaction is opened: a slowed
        attempt holds no connection."""
        keys, remaining = self._keys()
        pair, address, subject = await self.limiter.backend.peek(keys)
        if pair >= self.PAIR_LIMIT or address >= self.ADDRESS_LIMIT:
            return remaining
        if subject >= self.SLOW_AFTER:
            await _pause(min(self.SLOW_MAX, self.SLOW_STEP * (subject - self.SLOW_AFTER + 1)))
        return None

    async def failed(self) -> None:
        keys, _remaining = self._keys()
        big = 10**9  # always counted
        await self.limiter.backend.take(keys, [big] * len(keys), [self.WINDOW + 60] * len(keys))


def _network(address: str) -> str:
    """The address failures are counted against: an IPv6 address's /64, an IPv4 address
    (mapped into IPv6 or not) itself."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


class LoginRefused(Exception):
    """A refused login, in page words, with the status of the page that says it."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def login_throttle(limiter: RateLimiter, email: str, ip: str) -> Throttle:
    """The throttle of logins and signups for `email` (any spelling of it: docs/api/oauth.md
    "Emails") from `ip`."""
    return Throttle(limiter, "login", throttle_subject(email), ip)


async def admit_login(throttle: Throttle) -> LoginRefused | None:
    """The refusal of a login (or a signup) from an address that failed too often, else None
    (once the email's slowing down has passed): before the login's transaction."""
    wait = await throttle.admit()
    if wait is None:
        return None
    return LoginRefused(f"Too many failed attempts. Try again in {max(1, wait // 60)} minute(s).", 429)


async def check_login(db: AsyncSession, throttle: Throttle, email: str, password: str) -> User:
    """The user of a login form (the authorisation page's and the back office's), admitted by
    `admit_login`; a failure is counted. LoginRefused says why not."""
    user = await authenticate(db, email, password)
    if user is None:
        await throttle.failed()
        raise LoginRefused("Wrong email or password.", 400)
    return user


@dataclass(frozen=True, slots=True)
class Attempt:
    """A login or a signup posted by a form: its throttle, and its refusal when the address
    failed too often (decided before the transaction, so a slowed attempt holds no database
    connection)."""

    throttle: Throttle
    refused: LoginRefused | None


async def attempt(limiter: RateLimiter, email: str, ip: str) -> Attempt:
    """A login or signup attempt for `email` from `ip`, admitted or not."""
    throttle = login_throttle(limiter, email, ip)
    return Attempt(throttle, await admit_login(throttle))


async def log_in(db: AsyncSession, attempt: Attempt, email: str, password: str) -> sessions.WebSession:
    """The one login of a person, on the back office's page and the authorisation page alike:
    the attempt's refusal, or the password checked (a failure counted), then a new browser
    session (a new sid: no fixation). LoginRefused says why not."""
    if attempt.refused is not None:
        raise attempt.refused
    return await sessions.sign_in(db, await check_login(db, attempt.throttle, email, password))
