"""PostgreSQL connections shared by the tests that run at once (docs/operations.md "Development").

Under pytest-xdist several processes run tests side by side on one PostgreSQL, which refuses a
connection beyond its `max_connections` (100 by default). Before it starts, a test takes its
share: the most connections it may hold at once. It starts when the shares of the tests
running beside it leave room for its own within `BUDGET`, or when none runs beside it (a share
larger than the budget runs alone). The shares are lines `<pid> <connections>` of one file per
run, read and rewritten under an exclusive `flock`; the line of a process that no longer runs
(a worker killed outright) is not counted.
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
    pid = os.getpid()
    while not _take(path, pid, connections, budget):
        time.sleep(POLL_SECONDS)
    try:
        yield
    finally:
        with _shares(path) as held:
            held.pop(pid, None)


def _take(path: Path, pid: int, connections: int, budget: int) -> bool:
    with _shares(path) as held:
        others = [count for holder, count in held.items() if holder != pid]
        if others and sum(others) + connections > budget:
            return False
        held[pid] = connections
        return True


@contextlib.contextmanager
def _shares(path: Path) -> Iterator[dict[int, int]]:
    """The shares of the live processes, under the file's lock; written back as the block left them."""
    with path.open("a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        held = {}
        for line in handle.read().splitlines():
            pid, count = (int(field) for field in line.split())
            if _alive(pid):
                held[pid] = count
        yield held
        handle.seek(0)
        handle.truncate()
        handle.write("".join(f"{pid} {count}\n" for pid, count in held.items()))
        handle.flush()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process of that id: alive
        return True
    return True
