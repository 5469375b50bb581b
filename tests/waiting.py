"""Waiting for what a test expects (docs/architecture.md "Tests"): a test never counts how
much work fits in a time, nor sleeps in place of a condition. It polls for the condition
until PATIENCE has passed, which only a real failure reaches: the suite runs three xdist
workers and the end-to-end processes on two cores, where a server takes seconds to start and
a request hundreds of milliseconds."""

from __future__ import annotations

import asyncio
import sys
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


# Started through this, a program gets SIGINT's default action back before it runs, then
# `exec`s in the same process: Ctrl-C stops it as it would from a terminal.
_DEFAULT_SIGINT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])"
)


def as_in_a_terminal(argv: list[str]) -> list[str]:
    """`argv` of a program a test stops with Ctrl-C (SIGINT), started with SIGINT's default
    action whatever this process inherited: a suite started as a background job (`pytest &`,
    `nohup`) ignores SIGINT, every process it starts inherits that, and Python then never
    turns SIGINT into KeyboardInterrupt. (Through `exec`, not `preexec_fn`, which is unsafe in
    a process with threads, as a test with a receiver is.)"""
    return [sys.executable, "-c", _DEFAULT_SIGINT, *argv]
