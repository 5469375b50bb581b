"""How Comptoir reaches PostgreSQL, and which driver errors mean "the database is
unavailable" (docs/operations.md "When a dependency fails"), for every connection it opens:
SQLAlchemy's pool (`db/engine.py`), the direct driver's (`db/direct.py`), and the LISTEN
connections of the connection cache and the delivery worker.

Each place that talks to the driver turns such an error into `DependencyUnavailable`, so
whatever asked (an endpoint, a page, the worker, a timed job) sees one error, answered 503
with `Retry-After`, and the outage is logged once (`kit.outages`).

Unavailable means the server could not be reached or did not answer in time:
- a connection refused, reset or cut (`OSError`), or not made within the connect timeout,
  and a statement that got no answer within its time (`TimeoutError`): the connection is
  then `broken` and given up;
- PostgreSQL's connection errors (SQLSTATE class 08), refusals for lack of resources (53:
  too many connections, out of memory or disk), and operator intervention (57: a statement
  cancelled by `statement_timeout`, the server shutting down or starting up);
- on SQLite, the write lock not obtained within the statement timeout ("database is locked").

Every other error (a constraint, a bad statement, a serialisation failure) is a bug or a
rule and goes on as it was.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from sqlalchemy.engine import make_url

from comptoir.config import Settings
from comptoir.errors import DependencyUnavailable
from comptoir.kit.outages import DATABASE

_UNAVAILABLE_CLASSES = ("08", "53", "57")
_SERVER_GONE = ("57P01", "57P02", "57P03")  # admin shutdown, crash shutdown, cannot connect now
_SQLITE_BUSY = ("database is locked", "database table is locked", "database is busy")
# asyncpg's errors for a connection that is gone, which carry no SQLSTATE
_ASYNCPG_GONE = ("ConnectionDoesNotExistError", "ConnectionFailureError", "ClientCannotConnectError")


def _sqlstate(error: BaseException) -> str:
    sqlstate = getattr(error, "sqlstate", None)
    return sqlstate if isinstance(sqlstate, str) else ""


def is_broken(error: BaseException) -> bool:
    """Whether the connection the error came from can no longer be used."""
    if isinstance(error, TimeoutError | OSError) or type(error).__name__ in _ASYNCPG_GONE:
        return True
    sqlstate = _sqlstate(error)
    return sqlstate.startswith("08") or sqlstate in _SERVER_GONE


def is_unavailable(error: BaseException) -> bool:
    """Whether a driver error (asyncpg's, sqlite3's, or SQLAlchemy's adaptation of one: the
    same SQLSTATE, the same message) says the database is unreachable, too slow or refusing
    work."""
    if is_broken(error):
        return True
    if _sqlstate(error)[:2] in _UNAVAILABLE_CLASSES:
        return True
    return isinstance(error, sqlite3.OperationalError) and str(error).startswith(_SQLITE_BUSY)


def is_deadlock(error: BaseException) -> bool:
    """Whether PostgreSQL ended the statement to break a deadlock (SQLSTATE 40P01): the
    transaction was rolled back and may simply be run again. (SQLAlchemy's error carries the
    driver's in `orig`.)"""
    return _sqlstate(getattr(error, "orig", None) or error) == "40P01"


def unavailable(error: BaseException) -> DependencyUnavailable:
    """The error to raise instead of `error`, with the outage noted (logged once)."""
    DATABASE.failed(error)
    return DependencyUnavailable("database")


# --- connecting to PostgreSQL ---------------------------------------------------------------


def asyncpg_options(settings: Settings, *, statement_timeout: bool = True) -> dict[str, Any]:
    """asyncpg.connect() arguments for COMPTOIR_DATABASE_URL, with the URL query options
    asyncpg understands (e.g. `?ssl=disable`, `?host=/run/postgresql`) and the bounds of
    docs/operations.md "When a dependency fails": the connect timeout and, unless
    `statement_timeout` is False (migrations may take long), each statement's time, enforced
    twice: by the server (`statement_timeout`, which also frees the locks a slow statement
    holds) and, a second later, by the client, for a server or a network that no longer
    answers at all."""
    url = make_url(settings.database_url)
    query = url.query
    options: dict[str, Any] = {
        "host": url.host,
        "port": url.port,
        "user": url.username,
        "password": url.password,
        "database": url.database,
        "timeout": settings.database_connect_timeout_seconds,
    }
    if "ssl" in query:
        options["ssl"] = query["ssl"]
    elif "sslmode" in query:
        options["ssl"] = query["sslmode"]
    if "host" in query:
        options["host"] = query["host"]
    if statement_timeout:
        seconds = settings.database_statement_timeout_seconds
        options["command_timeout"] = seconds + 1
        options["server_settings"] = {"statement_timeout": str(round(seconds * 1000))}
    return options


async def connect(options: dict[str, Any]) -> Any:
    """A new asyncpg connection; `DependencyUnavailable` when the server cannot be reached
    in time or refuses it."""
    import asyncpg

    try:
        return await asyncpg.connect(**options)
    except Exception as error:
        if is_unavailable(error):
            raise unavailable(error) from error
        raise
