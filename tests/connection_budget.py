"""PostgreSQL connections shared by the tests that run at once (docs/operations.md "Development").

Under pytest-xdist several processes run tests side by side on one PostgreSQL, which refuses a
connection beyond its `max_connections` (100 by default). Before it starts, a test takes its
share: the most connections it may hold at once. It starts when the shares of the tests
running beside it leave room for its own within `BUDGET`, or when none runs beside it (a share
larger than the budget runs alone). Tests start in the order they asked: one that waits holds
back those that ask after it, even where they would fit, or a test that must run alone could
wait for as long as the tests beside it keep starting one after another. The shares are lines
`<pid> <connections>` of one file per run, and a waiting test's line
`<pid> <connections> <since>` (nanoseconds of the machine's monotonic clock), read and rewritten
under an exclusive `flock`; the line of a process that no longer runs (a worker killed
outright) is not counted.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

# PostgreSQL's default max_connections, less a margin for what runs beside the tests (psql,
# the run's own set-up of template databases).
BUDGET = 90
POLL_SECONDS = 0.05


@contextlib.contextmanager
def share(path: Path, connections: int, budget: int = BUDGET) -> Iterator[None]:
    """Hold `connections` of the run's budget (the run's file at `path`) while the block runs."""
    pid, since = os.getpid(), time.monotonic_ns()
    try:
        while not _take(path, pid, connections, budget, since):
            time.sleep(POLL_SECONDS)
        yield
    finally:
        with _shares(path) as (held, waiting):
            held.pop(pid, None)
            waiting.pop(pid, None)


def _take(path: Path, pid: int, connections: int, budget: int, since: int) -> bool:
    """Take the share if it fits and no other process has waited since before `since`; else
    wait in line (the process's waiting line)."""
    with _shares(path) as (held, waiting):
        others = [count for holder, count in held.items() if holder != pid]
        first = all(their_since > since for waiter, (_, their_since) in waiting.items() if waiter != pid)
        if first and not (others and sum(others) + connections > budget):
            held[pid] = connections
            waiting.pop(pid, None)
            return True
        waiting[pid] = (connections, since)
        return False


@contextlib.contextmanager
def _shares(path: Path) -> Iterator[tuple[dict[int, int], dict[int, tuple[int, int]]]]:
    """The shares held and the shares waited for of the live processes, under the file's
    lock; written back as the block left them."""
    with path.open("a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        held: dict[int, int] = {}
        waiting: dict[int, tuple[int, int]] = {}
        for line in handle.read().splitlines():
            pid, count, *since = (int(field) for field in line.split())
            if _alive(pid):
                if since:
                    waiting[pid] = (count, since[0])
                else:
                    held[pid] = count
        yield held, waiting
        handle.seek(0)
        handle.truncate()
        handle.write("".join(f"{pid} {count}\n" for pid, count in held.items()))
        handle.write("".join(f"{pid} {count} {since}\n" for pid, (count, since) in waiting.items()))
        handle.flush()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process of that id: alive
        return True
    return True
