"""Waiting for what a test expects (docs/architecture.md "Tests"): a test never counts how
much work fits in a time, nor sleeps in place of a condition. It polls for the condition
until PATIENCE has passed, which only a real failure reaches: the suite runs two xdist
workers and the end-to-end processes on two cores, where a server takes seconds to start and
a request hundreds of milliseconds."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

PATIENCE = 60.0  # seconds
# What "answered quickly" allows one request: many times what it takes on a loaded machine,
# and far less than a server that stalls or whose work grows out of proportion with what it
# is sent (a regular expression backtracking, a parse in quadratic time).
QUICKLY = 5.0  # seconds


def wait_until(predicate: Callable[[], object], what: str, within: float = PATIENCE) -> None:
    """Until `predicate()` is true; fails naming `what` after `within` seconds."""
    deadline = time.monotonic() + within
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {within:.0f} s waiting for {what}")
        time.sleep(0.05)


async def eventually(predicate: Callable[[], Awaitable[object]], what: str, within: float = PATIENCE) -> None:
    """`wait_until` for an async predicate, in the test's event loop."""
    deadline = time.monotonic() + within
    while not await predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {within:.0f} s waiting for {what}")
        await asyncio.sleep(0.02)
