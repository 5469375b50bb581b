"""A dependency's outages as this process sees them (docs/operations.md "When a dependency
fails"): the database and Redis.

While a dependency is up, `ok()` costs one attribute read. Its first failure starts an
outage: one warning line (`dependency_unavailable`, naming the error's kind, never its
text, which may hold an address), the metrics `comptoir_dependency_unavailable` set to 1. The
failures that follow are only counted. The first success afterwards ends it: one line
(`dependency_recovered`) with the failures counted and how long it lasted. So an outage
of any length writes two lines, whatever the traffic.
"""

from __future__ import annotations

import time

import structlog

from comptoir.kit import metrics

log = structlog.get_logger("comptoir.dependencies")


class Dependency:
    __slots__ = ("_failures", "_gauge", "_since", "down", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self.down = False
        self._since = 0.0
        self._failures = 0
        self._gauge = metrics.DEPENDENCY_UNAVAILABLE.labels(name)

    def failed(self, error: BaseException) -> None:
        """One operation failed because the dependency is unreachable or too slow."""
        metrics.DEPENDENCY_FAILURES.labels(self.name).inc()
        self._failures += 1
        if self.down:
            return
        self.down = True
        self._since = time.monotonic()
        self._gauge.set(1)
        log.warning("dependency_unavailable", dependency=self.name, error=error_kind(error))

    def ok(self) -> None:
        """An operation on the dependency succeeded."""
        if not self.down:
            return
        self.down = False
        self._gauge.set(0)
        log.info(
            "dependency_recovered",
            dependency=self.name,
            failures=self._failures,
            seconds=round(time.monotonic() - self._since, 1),
        )
        self._failures = 0


def error_kind(error: BaseException) -> str:
    """The error's class, and its cause's when it wraps one (`TimeoutError`, `DBAPIError <-
    ConnectionRefusedError`): what an operator needs, without an address or a query."""
    kind = type(error).__name__
    cause = error.__cause__
    return f"{kind} <- {type(cause).__name__}" if cause is not None else kind


DATABASE = Dependency("database")
REDIS = Dependency("redis")
