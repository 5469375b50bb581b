"""The one source of "now". Code asks `clock.now()`, never `datetime.now()`, so tests can
move time (resume_at reversions, code expiry, retry schedules)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

_offset = timedelta(0)
_frozen: datetime | None = None


def now() -> datetime:
    """Aware UTC now, shifted or frozen by tests."""
    if _frozen is not None:
        return _frozen
    return datetime.now(UTC) + _offset


def real_now() -> datetime:
    """Aware UTC now as the system tells it, whatever a test or the sandbox moved: for a bound
    on how far the clock may be moved (docs/sandbox.md "The clock")."""
    return datetime.now(UTC)


def travel(delta: timedelta) -> None:
    """Move time forward (or back) by `delta`: tests, and the sandbox's clock (forward only,
    docs/sandbox.md "The clock")."""
    global _offset, _frozen
    if _frozen is not None:
        _frozen += delta
    else:
        _offset += delta


def freeze(at: datetime | None = None) -> None:
    """Stop time at `at` (default: now): tests only."""
    global _frozen
    _frozen = (at or now()).astimezone(UTC)


def moved() -> bool:
    """Whether a test moved or froze the time: tests only."""
    return _frozen is not None or _offset != timedelta(0)


def reset() -> None:
    global _offset, _frozen
    _offset = timedelta(0)
    _frozen = None
