"""Pausing the cyclic garbage collector while a request builds a large structure.

Reading a 6 MB catalog creates about a million objects; the collector, triggered every 700
allocations, then walks them over and over: 40% of the time of reading one (measured with
benchmarks/catalog.py). Such work runs inside `paused()`; the collector resumes when the
last pause ends (pauses nest and may overlap across coroutines). Reference counting still
frees everything that is not a cycle meanwhile.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

_pauses = 0
_was_enabled = True

# The first generation's threshold for a serving process (Python's default is 700). A 2 KB
# order creates about 2,000 containers, so at 700 the collector ran every few requests and
# its full passes walked every in-flight request: 0.06 ms of an order creation's 0.8 ms of
# CPU; at 20,000, 0.006 ms (benchmarks/orders.py, in-process). Cycles simply live a few
# requests longer.
SERVING_THRESHOLD = 20_000


def tune_for_serving() -> None:
    """Once a process has loaded everything it keeps (modules, routes, compiled statements):
    move that out of the collector's sight, and collect the young generation less often."""
    gc.freeze()
    _, second, third = gc.get_threshold()
    gc.set_threshold(SERVING_THRESHOLD, second, third)


@contextmanager
def starting() -> Iterator[None]:
    """A serving process's start: its modules imported and its application built, paused
    (about 200,000 objects, which the collector otherwise walked again and again: 0.17 s of
    a 1.3 s import on a 2-core machine), then all of it frozen before the collector
    resumes: it lives as long as the process, so no collection walks it again, not even the
    one a resumed collector would start at once (docs/performance.md "Start-up")."""
    with paused():
        yield
        gc.freeze()


@contextmanager
def paused() -> Iterator[None]:
    global _pauses, _was_enabled
    if _pauses == 0:
        _was_enabled = gc.isenabled()
        gc.disable()
    _pauses += 1
    try:
        yield
    finally:
        _pauses -= 1
        if _pauses == 0 and _was_enabled:
            gc.enable()


def pausing(function: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """A coroutine function that runs `paused()` from start to end."""

    @functools.wraps(function)
    async def paused_function(*args: P.args, **kwargs: P.kwargs) -> R:
        with paused():
            return await function(*args, **kwargs)

    return paused_function
