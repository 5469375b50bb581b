"""Failed logins and client authentications: refused per address and per (subject,
address) until the 15-minute window ends, the subject only slowed down; on the in-process
backend and on a real Redis shared by every process."""

from __future__ import annotations

from datetime import timedelta

import pytest

from comptoir.kit import clock
from comptoir.ratelimit import RateLimiter
from comptoir.users import logins
from comptoir.users.logins import Throttle
from tests.unit.test_ratelimit import START, limiter  # noqa: F401 - fixture


@pytest.fixture
def pauses(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []

    async def pause(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(logins, "_pause", pause)
    return slept


async def fail(throttle: Throttle, n: int) -> None:
    for _ in range(n):
        assert await throttle.admit() is None
        await throttle.failed()


async def test_ten_failures_refuse_that_address_for_that_subject_until_the_window_ends(
    limiter: RateLimiter,  # noqa: F811
    pauses: list[float],
) -> None:
    clock.freeze(START + timedelta(minutes=3, seconds=20))
    await fail(Throttle(limiter, "login", "ada@example.com", "203.0.113.1"), 10)
    assert await Throttle(limiter, "login", "ada@example.com", "203.0.113.1").admit() == 700  # to 10:15:00
    assert await Throttle(limiter, "login", "ada@example.com", "203.0.113.2").admit() is None
    assert await Throttle(limiter, "login", "bob@example.com", "203.0.113.1").admit() is None
    assert await Throttle(limiter, "client", "ada@example.com", "203.0.113.1").admit() is None  # another kind
    clock.freeze(START + timedelta(minutes=15))
    assert await Throttle(limiter, "login", "ada@example.com", "203.0.113.1").admit() is None


async def test_failures_for_many_subjects_refuse_the_address(limiter: RateLimiter, pauses: list[float]) -> None:  # noqa: F811
    clock.freeze(START)
    for i in range(Throttle.ADDRESS_LIMIT):
        await fail(Throttle(limiter, "login", f"guess{i}@example.com", "203.0.113.1"), 1)
    assert await Throttle(limiter, "login", "ada@example.com", "203.0.113.1").admit() == 900
    assert await Throttle(limiter, "login", "ada@example.com", "203.0.113.2").admit() is None
    assert pauses == []


async def test_failures_from_many_addresses_only_slow_the_subject(limiter: RateLimiter, pauses: list[float]) -> None:  # noqa: F811
    clock.freeze(START)
    for i in range(20):
        await fail(Throttle(limiter, "client", "client-1", f"192.0.2.{i}"), 1)
    assert pauses == [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.0, 2.0]  # from the 11th, at most 2 s
    assert await Throttle(limiter, "client", "client-1", "198.51.100.1").admit() is None  # slowed, let in
    assert len(pauses) == 11
    assert await Throttle(limiter, "client", "client-2", "198.51.100.1").admit() is None
    assert len(pauses) == 11  # another client is not slowed


async def test_a_long_subject_costs_the_counters_a_short_key(limiter: RateLimiter, pauses: list[float]) -> None:  # noqa: F811
    clock.freeze(START)
    keys, _ = Throttle(limiter, "login", "x" * 100_000 + "@example.com", "203.0.113.1")._keys()
    assert all(len(key) < len(limiter.prefix) + 80 for key in keys)
