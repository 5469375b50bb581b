"""The PostgreSQL databases the tests create (docs/operations.md "Development").

Each is named `comptoir_test_<host>_<pid>_<random>`: a short hash of the host's name, the
creating process's id, and 8 random hex digits. The process registers a name before it
creates the database, and drops what it registered at its end: when the session finishes
(pytest calls that hook on Ctrl-C and after `-x` too), at exit, and on SIGTERM (turned into a
KeyboardInterrupt, so the same path runs). What a process killed outright (SIGKILL, a lost
machine) leaves behind goes at the next session's start: a database of this host named by a
process that no longer runs is dropped. A database whose name does not follow this form, or
made on another host, is never dropped that way.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import hashlib
import os
import re
import signal
import socket
import threading
import uuid
from collections.abc import Coroutine
from types import FrameType
from typing import Any, TypeVar

import asyncpg
from sqlalchemy.engine import make_url

TEST_POSTGRES_URL = os.environ.get("COMPTOIR_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")
HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:6]
NAME = re.compile(r"^comptoir_test_([0-9a-f]{6})_([0-9]+)_([0-9a-f]{8})$")

_registered: set[str] = set()
T = TypeVar("T")


def new_name() -> str:
    """A name of this process's, for a database it is about to create."""
    return f"comptoir_test_{HOST}_{os.getpid()}_{uuid.uuid4().hex[:8]}"


async def _connect(url: str) -> asyncpg.Connection:
    parsed = make_url(url)
    return await asyncpg.connect(
        host=parsed.host or "127.0.0.1",
        port=parsed.port or 5432,
        user=parsed.username or "postgres",
        password=parsed.password,
        database=parsed.database or "postgres",
    )


async def execute(sql: str, url: str = TEST_POSTGRES_URL) -> None:
    connection = await _connect(url)
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


_kept: dict[str, asyncpg.Connection] = {}
_kept_loop: list[asyncio.AbstractEventLoop] = []
_kept_lock = threading.Lock()


def execute_kept(sql: str, url: str) -> None:
    """`execute` on a connection this process keeps open for `url`, on an event loop of its own
    (a thread), so that it serves every test whatever the test's own loop. A new connection is
    a new PostgreSQL backend, which reads the catalog again for each table it touches: emptying
    every table (`tests/conftest.py` `EMPTY_TABLES`) took 7.2 ms through a new one, 0.7 ms
    through a kept one (medians of 30 on a quiet 2-core machine)."""
    with _kept_lock:
        if not _kept_loop:
            _kept_loop.append(asyncio.new_event_loop())
            threading.Thread(target=_kept_loop[0].run_forever, name="kept-connections", daemon=True).start()

    async def run() -> None:
        for attempt in (1, 2):
            connection = _kept.get(url)
            if connection is None or connection.is_closed():
                connection = _kept[url] = await _connect(url)
            try:
                await connection.execute(sql)
                return
            except (asyncpg.InterfaceError, asyncpg.InternalClientError, asyncpg.PostgresConnectionError, OSError):
                # A test ended the backends of the database: once more, on a new connection. If
                # the server's goodbye is still on its way, asyncpg refuses the query with
                # InternalClientError ("another operation is in progress") rather than
                # InterfaceError.
                _kept.pop(url, None)
                connection.terminate()
                if attempt == 2:
                    raise

    asyncio.run_coroutine_threadsafe(run(), _kept_loop[0]).result()


async def create(name: str, template: str | None = None) -> None:
    """Create the empty database `name` (from `new_name`: a name of another form is dropped
    at this process's end too, but never as stale), or a copy of the database `template`;
    registered first: an interruption between the two leaves nothing unknown."""
    _registered.add(name)
    await execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))


async def drop(name: str) -> None:
    await execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    _registered.discard(name)


def drop_registered() -> list[str]:
    """Drop every database this process registered and has not dropped; their names."""
    names = sorted(_registered)

    async def run() -> None:
        for name in names:
            with contextlib.suppress(Exception):  # the server may be away: the next start drops it
                await drop(name)

    if names:
        _run(run())
    return names


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


async def _stale() -> list[str]:
    connection = await _connect(TEST_POSTGRES_URL)
    try:
        names = [row["datname"] for row in await connection.fetch("SELECT datname FROM pg_database")]
    finally:
        await connection.close()
    return stale_among(names)


def stale_among(names: list[str]) -> list[str]:
    """Those of `names` that are test databases of this host whose creating process is gone."""
    stale = []
    for name in names:
        match = NAME.match(name)
        if match and match.group(1) == HOST and not _alive(int(match.group(2))):
            stale.append(name)
    return stale


def drop_stale() -> list[str]:
    """Drop the test databases of this host whose creating process is gone; their names."""

    async def run() -> list[str]:
        dropped = []
        for name in await _stale():
            try:  # another process of this run may be dropping it too
                await execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            except asyncpg.PostgresError:
                continue
            dropped.append(name)
        return dropped

    return _run(run())


def _run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` to its end, also from inside a running event loop (in a thread)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    result: list[T] = []
    thread = threading.Thread(target=lambda: result.append(asyncio.run(coroutine)))
    thread.start()
    thread.join()
    return result[0]


def _on_sigterm(_signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt("SIGTERM")


def install() -> None:
    """Drop the registered databases at exit and on SIGTERM (unless someone else handles it)."""
    atexit.register(drop_registered)
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        with contextlib.suppress(ValueError):  # not the main thread
            signal.signal(signal.SIGTERM, _on_sigterm)
