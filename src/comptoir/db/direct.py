"""Single-statement reads for hot paths, without a session or a transaction.

Every API request first turns its token into a connection (with its client, account and
location). Through an `AsyncSession` that read costs about 1 ms on PostgreSQL and 2 ms on
SQLite (pool checkout, BEGIN, statement, COMMIT, each a driver round trip, and on SQLite each
a hop to aiosqlite's thread), several times the cost of the rest of the request. Measured on
the development machine, the same join costs 25 us with the standard `sqlite3` module and one
round trip (about 0.13 ms) with a raw asyncpg connection. So hot reads go here:

- SQLite: one `sqlite3` connection per process, read-only, in autocommit mode, used from the
  event loop thread. WAL readers never wait for writers, and a point lookup by a unique index
  is cheaper than handing the work to a thread.
- PostgreSQL: a small asyncpg pool; statements are prepared once per connection.

Queries are SQLAlchemy Core selects compiled once per dialect; values come back converted as
the models' column types say (aware UTC datetimes, parsed JSON, booleans). Writes and reads
that must see the request's own transaction keep using the session, but for one kind: a
`Write` is a single PostgreSQL statement (data-modifying CTEs chained in one `WITH`), atomic
by itself, so it needs no BEGIN and COMMIT round trips; its parameters are processed by the
columns' SQLAlchemy types, as the engine does (JSON written by `kit.jsonutil`).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sqlite3
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Collection
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, NamedTuple

from sqlalchemy import BigInteger, Boolean, Select, String, TypeDecorator, bindparam, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.dialects.postgresql.base import PGDialect
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import BindParameter, ClauseElement, ColumnElement
from sqlalchemy.sql.visitors import InternalTraversal
from sqlalchemy.types import TypeEngine

from comptoir.config import Settings
from comptoir.db.failures import asyncpg_options, connect, is_unavailable, unavailable
from comptoir.db.ids import NEXT_IDS_DIRECT
from comptoir.kit import metrics, tracing
from comptoir.kit.jsonutil import dumps_str, loads_stored
from comptoir.kit.outages import DATABASE
from comptoir.models.base import ExactDecimal, JSONValue, UTCDateTime

Converter = Callable[[Any], Any]


def _sqlite_datetime(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value).replace(tzinfo=UTC)


def _pg_datetime(value: datetime | None) -> datetime | None:
    return None if value is None else value.astimezone(UTC)


def _json(value: str | None) -> Any:
    return None if value is None else loads_stored(value)


def _bool(value: Any) -> bool | None:
    return None if value is None else bool(value)


def _decimal(value: Any) -> Decimal | None:
    return None if value is None else Decimal(value)


def _converter(column: ColumnElement[Any], is_sqlite: bool) -> Converter | None:
    kind = column.type
    if isinstance(kind, UTCDateTime):
        return _sqlite_datetime if is_sqlite else _pg_datetime
    if isinstance(kind, JSONValue):
        return _json
    if isinstance(kind, Boolean) and is_sqlite:
        return _bool
    if isinstance(kind, ExactDecimal) and is_sqlite:  # exact text on SQLite, NUMERIC on PostgreSQL
        return _decimal
    return None


class _Integers(TypeDecorator[Collection[int]]):
    """Integers as one parameter (`within`): an array on PostgreSQL, JSON text on SQLite."""

    impl = String
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(ARRAY(BigInteger()))
        return dialect.type_descriptor(String())

    def process_bind_param(self, value: Collection[int] | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        return list(value) if dialect.name == "postgresql" else dumps_str(list(value))


class within(ColumnElement[bool]):
    """`column` is one of the integers given as the parameter `name` (`~within(...)`: is
    none of them), for a `Query`, compiled once: one array parameter on PostgreSQL, one JSON
    text read by `json_each` on SQLite, so the statement is the same however many integers
    there are. `among(column, values)` is the same with the integers bound in the statement
    (a session's statements)."""

    inherit_cache = True
    type = Boolean()
    _traverse_internals = [  # noqa: RUF012 (declared so by SQLAlchemy: its cache key's parts)
        ("column", InternalTraversal.dp_clauseelement),
        ("values", InternalTraversal.dp_clauseelement),
        ("negated", InternalTraversal.dp_boolean),
    ]

    def __init__(
        self, column: ColumnElement[Any] | Any, name: str | BindParameter[Collection[int]], *, negated: bool = False
    ) -> None:
        self.column = column
        self.values = name if isinstance(name, BindParameter) else bindparam(name, type_=_Integers())
        self.negated = negated

    def self_group(self, against: Any = None) -> ColumnElement[bool]:
        return self  # a comparison of its own, not a boolean column compared to true

    def _negate(self) -> ColumnElement[bool]:
        return within(self.column, self.values, negated=not self.negated)


class likely(ColumnElement[bool]):
    """`condition`, which holds for most rows it is tested on: SQLite's planner is told so
    (`likely()`, a no-op when run), so that without statistics it does not take an index for
    that condition over one that gives the statement's order. PostgreSQL, which keeps
    statistics, is given the condition as it is."""

    inherit_cache = True
    type = Boolean()
    _traverse_internals = [("condition", InternalTraversal.dp_clauseelement)]  # noqa: RUF012 (as `within`'s)

    def __init__(self, condition: ColumnElement[bool]) -> None:
        self.condition = condition

    def self_group(self, against: Any = None) -> ColumnElement[bool]:
        return self


@compiles(likely, "sqlite")
def _likely_sqlite(element: likely, compiler: SQLCompiler, **kw: Any) -> str:
    return f"likely({compiler.process(element.condition, **kw)})"


@compiles(likely)
def _likely(element: likely, compiler: SQLCompiler, **kw: Any) -> str:
    return str(compiler.process(element.condition.self_group(), **kw))


def among(column: ColumnElement[Any] | Any, values: Collection[int]) -> ColumnElement[bool]:
    """`within` with the integers in the statement, for a session's statements: `column` is
    one of `values`, one parameter however many there are (an IN list would be compiled anew
    with each count, and costs that for hundreds of them)."""
    return within(column, bindparam("among", list(values), type_=_Integers(), unique=True))


@compiles(within, "postgresql")
def _within_postgresql(element: within, compiler: SQLCompiler, **kw: Any) -> str:
    test = f"{compiler.process(element.column, **kw)} = ANY({compiler.process(element.values, **kw)})"
    return f"NOT ({test})" if element.negated else test


@compiles(within)
def _within_sqlite(element: within, compiler: SQLCompiler, **kw: Any) -> str:
    column, values = compiler.process(element.column, **kw), compiler.process(element.values, **kw)
    test = "NOT IN" if element.negated else "IN"
    return f"{column} {test} (SELECT value FROM json_each({values}))"  # noqa: S608 (compiled clauses, no values)


class Query:
    """A Core select compiled for both dialects; parameters are passed by name, and processed
    by their SQLAlchemy types where a type has a bind processor (a datetime on SQLite). Each
    dialect's form is compiled when first used: a process compiles only its database's, and
    not while the application is imported."""

    def __init__(self, stmt: Select[*tuple[Any, ...]]) -> None:
        self.stmt = stmt  # the select itself, for a session (inside a transaction)
        self.names = tuple(str(column.key) for column in stmt.selected_columns)
        self._forms: list[_Form | None] = [None, None]  # by is_sqlite

    def _form(self, is_sqlite: bool) -> _Form:
        form = self._forms[is_sqlite]
        if form is None:
            form = self._forms[is_sqlite] = _Form.of(self.stmt, is_sqlite)
        return form

    def for_dialect(self, is_sqlite: bool) -> tuple[str, tuple[str, ...], list[tuple[int, Converter]]]:
        return self._form(is_sqlite).compiled

    def values(self, is_sqlite: bool, params: dict[str, Any]) -> list[Any]:
        """The positional values of the statement for `params`, processed by their types."""
        form = self._form(is_sqlite)
        if form.fixed:
            params = form.fixed | params
        values = [params[name] for name in form.compiled[1]]
        for i, process in form.processors:
            values[i] = process(values[i])
        return values


class _Form(NamedTuple):
    """A `Query` compiled for one dialect."""

    compiled: tuple[str, tuple[str, ...], list[tuple[int, Converter]]]  # SQL, parameter order, converters
    processors: list[tuple[int, Converter]]  # by parameter position
    fixed: dict[str, Any]  # the compiler's own parameters (SQLite's OFFSET 0)

    @classmethod
    def of(cls, stmt: Select[*tuple[Any, ...]], is_sqlite: bool) -> _Form:
        dialect = sqlite.dialect() if is_sqlite else postgresql.asyncpg.dialect()
        columns = list(stmt.selected_columns)
        result = stmt.compile(dialect=dialect)
        converters = [
            (i, convert) for i, column in enumerate(columns) if (convert := _converter(column, is_sqlite)) is not None
        ]
        order = tuple(result.positiontup or ())
        return cls(
            compiled=(result.string, order, converters),
            processors=[
                (i, process)
                for i, name in enumerate(order)
                if (process := result.binds[name].type._cached_bind_processor(dialect)) is not None
            ],
            fixed={name: result.binds[name].value for name in order if not result.binds[name].required},
        )


_PG = postgresql.asyncpg.dialect(json_serializer=dumps_str)
_PG_NAMED = PGDialect(paramstyle="named")  # compiles Core statements to `:name` placeholders
_PLACEHOLDER = re.compile(r"(?<![:\w]):(\w+)")
_JSON_CAST = re.compile(r"((?<![:\w]):\w+)::JSON\b")  # the compiler's own cast of a JSON parameter


class Write:
    """One PostgreSQL statement written with `:name` placeholders, each given its SQLAlchemy
    type: sent as `$n::TYPE`, its value processed as the engine would (JSON serialised, UTC
    datetimes checked, exact decimals)."""

    def __init__(self, sql: str, types: dict[str, TypeEngine[Any]], defaults: dict[str, Any] | None = None) -> None:
        self.defaults = defaults or {}  # the values of parameters the statement holds itself
        order: list[str] = []

        def number(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in order:
                order.append(name)
            return f"${order.index(name) + 1}::{types[name].compile(dialect=_PG)}"

        self.sql = _PLACEHOLDER.sub(number, sql)
        self.order = tuple(order)
        self.processors = tuple(types[name].dialect_impl(_PG).bind_processor(_PG) for name in order)
        # The same statement for a session, to run inside its transaction.
        self.clause = text(
            _PLACEHOLDER.sub(
                lambda match: f"CAST(:{match.group(1)} AS {types[match.group(1)].compile(dialect=_PG)})", sql
            )
        ).bindparams(
            *(
                bindparam(name, self.defaults[name], type_=types[name])
                if name in self.defaults
                else bindparam(name, type_=types[name])
                for name in order
            )
        )

    @classmethod
    def of(cls, stmt: ClauseElement) -> Write:
        """The statement built with SQLAlchemy Core (data-modifying CTEs of the statement
        builders that writes in a session run, `select(...).add_cte(...)`): its parameters
        are its bound parameters, typed by their columns; a value written into it (a
        literal) is its parameter's default."""
        compiled = stmt.compile(dialect=_PG_NAMED)
        assert isinstance(compiled, SQLCompiler)
        types = {name: bind.type for bind, name in compiled.bind_names.items()}
        defaults = {name: bind.value for bind, name in compiled.bind_names.items() if not bind.required}
        sql = _JSON_CAST.sub(r"\1", compiled.string)  # cast by `Write` itself, as every parameter
        return cls(sql, types, defaults)

    def values(self, params: dict[str, Any]) -> list[Any]:
        values = []
        for name, process in zip(self.order, self.processors, strict=True):
            value = params[name] if name in params else self.defaults[name]
            values.append(process(value) if process is not None and value is not None else value)
        return values


class FastReader:
    """`await reader.one(query, name=value, ...)`: the first row, converted, or None;
    `reader.all(...)`: every row. On PostgreSQL also `reader.write(write, ...)`, and blocks of
    sequence values for the id allocator (`db.ids`)."""

    def __init__(self, settings: Settings) -> None:
        self.is_sqlite = settings.is_sqlite
        self._settings = settings
        self._sqlite: sqlite3.Connection | None = None
        self._pool = StatementPool(
            asyncpg_options(settings),
            size=settings.database_direct_pool_size,
            timeout=settings.database_pool_timeout_seconds,
        )
        self.database_url = settings.database_url
        if tracing.enabled():  # a span per statement; nothing wrapped otherwise (docs/operations.md "Traces")
            system = "sqlite" if self.is_sqlite else "postgresql"
            self.one = tracing.traced_statements(system, self.one, self._sql_of)  # type: ignore[method-assign]
            self.all = tracing.traced_statements(system, self.all, self._sql_of)  # type: ignore[method-assign]
            self.write = tracing.traced_statements(system, self.write, self._sql_of)  # type: ignore[method-assign]

    def _sql_of(self, statement: Query | Write, **_params: Any) -> str:
        return statement.sql if isinstance(statement, Write) else statement.for_dialect(self.is_sqlite)[0]

    async def one(self, query: Query, **params: Any) -> dict[str, Any] | None:
        sql, _order, converters = query.for_dialect(self.is_sqlite)
        values = query.values(self.is_sqlite, params)
        if self.is_sqlite:
            row = _sqlite_read(self._sqlite_connection(), sql, values).fetchone()
        else:
            async with self._pool.connection() as connection:
                row = await connection.fetchrow(sql, *values)
        return None if row is None else _converted(query, converters, row)

    async def all(self, query: Query, **params: Any) -> list[dict[str, Any]]:
        sql, _order, converters = query.for_dialect(self.is_sqlite)
        values = query.values(self.is_sqlite, params)
        if self.is_sqlite:
            rows = _sqlite_read(self._sqlite_connection(), sql, values).fetchall()
        else:
            async with self._pool.connection() as connection:
                rows = await connection.fetch(sql, *values)
        return [_converted(query, converters, row) for row in rows]

    async def write(self, write: Write, **params: Any) -> Any:
        """Run one PostgreSQL statement on its own (autocommit): the first row it returns."""
        assert not self.is_sqlite
        async with self._pool.connection() as connection:
            return await connection.fetchrow(write.sql, *write.values(params))

    async def sequence_values(self, sequence: str, count: int) -> list[int]:
        """`count` values of a PostgreSQL sequence (`db.ids.allocate` keeps them in blocks)."""
        assert not self.is_sqlite
        async with self._pool.connection() as connection:
            return list(await connection.fetchval(NEXT_IDS_DIRECT, sequence, count))

    def commits_seen(self) -> int:
        """SQLite: a number that changes whenever another connection, of this process or of
        another, has committed since the last call (`PRAGMA data_version`; this connection
        never writes). For `db.connection_cache`."""
        return int(self._sqlite_connection().execute("PRAGMA data_version").fetchone()[0])

    def _sqlite_connection(self) -> sqlite3.Connection:
        if self._sqlite is None:
            path = self._settings.sqlite_path
            if path is None:
                raise RuntimeError("fast reads need a SQLite file, not an in-memory database")
            connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            connection.execute("PRAGMA query_only=ON")
            connection.execute("PRAGMA busy_timeout=200")  # WAL readers practically never wait
            self._sqlite = connection
        return self._sqlite

    async def close(self) -> None:
        if self._sqlite is not None:
            self._sqlite.close()
            self._sqlite = None
        await self._pool.close()


_ACQUIRED = metrics.DB_ACQUIRE_SECONDS.labels("direct")
_IN_USE = metrics.DB_IN_USE.labels("direct")


def _sqlite_read(connection: sqlite3.Connection, sql: str, values: list[Any]) -> sqlite3.Cursor:
    try:
        return connection.execute(sql, values)
    except sqlite3.OperationalError as error:
        if is_unavailable(error):
            raise unavailable(error) from error
        raise


class StatementPool:
    """Up to `size` asyncpg connections, each running one statement at a time outside any
    transaction, so they hold no session state: a connection goes back as it is (asyncpg's
    pool resets and times each one, several times this pool's cost per statement). One
    whose statement failed or was interrupted is closed instead of kept. Waiting for a free
    connection longer than `timeout`, and a connection or a statement that fails for want of
    the database, raise `DependencyUnavailable` (docs/operations.md "When a dependency
    fails")."""

    def __init__(self, options: dict[str, Any], size: int, timeout: float = 2.0) -> None:
        self._options = options
        self._size = size
        self._timeout = timeout
        self._idle: list[Any] = []
        self._open = 0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._closed = False

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[Any]:
        started = time.perf_counter()
        connection = await self._acquire()
        _ACQUIRED.observe(time.perf_counter() - started)  # docs/operations.md "Metrics"
        _IN_USE.inc()
        try:
            yield connection
        except BaseException as error:
            # Refused, cancelled, or the connection failed (a server shutting a connection
            # down sends an error first): whatever its state, it is not used again.
            _IN_USE.dec()
            self._open -= 1
            connection.terminate()
            self._wake()
            if isinstance(error, Exception) and is_unavailable(error):
                raise unavailable(error) from error
            raise
        _IN_USE.dec()
        self._release(connection)
        if DATABASE.down:
            DATABASE.ok()

    async def _acquire(self) -> Any:
        connection = None if self._closed else self._take_idle()
        if connection is not None:  # one at hand: nothing to wait for, no timer to arm
            return connection
        try:
            async with asyncio.timeout(self._timeout):
                return await self._acquire_waiting()
        except TimeoutError as error:  # no connection freed in time
            raise unavailable(error) from error

    def _take_idle(self) -> Any:
        """An idle connection still open, or None; those the server closed meanwhile go."""
        while self._idle:
            connection = self._idle.pop()
            if not connection.is_closed():
                return connection
            self._open -= 1
        return None

    async def _acquire_waiting(self) -> Any:
        while True:
            if self._closed:
                raise RuntimeError("the statement pool is closed")
            connection = self._take_idle()
            if connection is not None:
                return connection
            if self._open < self._size:
                self._open += 1
                try:
                    return await connect(self._options)
                except BaseException:
                    self._open -= 1
                    self._wake()
                    raise
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            except BaseException:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
                elif waiter.done() and not waiter.cancelled():
                    self._wake()  # woken, then cancelled: the turn passes to the next one
                raise

    def _release(self, connection: Any) -> None:
        if self._closed or connection.is_closed():
            self._open -= 1
            connection.terminate()
        else:
            self._idle.append(connection)
        self._wake()

    def _wake(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    async def close(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, []
        for connection in idle:
            self._open -= 1
            with contextlib.suppress(Exception):
                await connection.close(timeout=5)
        self._wake()


def _converted(query: Query, converters: list[tuple[int, Converter]], row: Any) -> dict[str, Any]:
    values = list(row)
    for i, convert in converters:
        values[i] = convert(values[i])
    return dict(zip(query.names, values, strict=True))
