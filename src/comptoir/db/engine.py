"""Engine and session factory.

SQLite is the embedded default (WAL, foreign keys on, a busy timeout); PostgreSQL, through
asyncpg, is how Comptoir scales to many processes. On SQLite the driver's own transaction
handling is turned off and Comptoir emits BEGIN itself: write requests start with
`BEGIN IMMEDIATE`, so two writers queue on the database lock instead of failing when a read
snapshot goes stale (docs/architecture.md "Concurrency").
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from sqlalchemy import CursorResult, Result, Select, event, text
from sqlalchemy.engine import ExceptionContext, make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.pool import AsyncAdaptedQueuePool, ConnectionPoolEntry, StaticPool

from comptoir.config import Settings
from comptoir.db.failures import asyncpg_options, connect, is_broken, is_unavailable, unavailable
from comptoir.kit import ids, metrics, tracing
from comptoir.kit.jsonutil import dumps_str, loads_stored
from comptoir.kit.outages import DATABASE

M = TypeVar("M")
WRITE = {"comptoir_write": True}  # execution option: this transaction will write


async def get_by_public_id(session: AsyncSession, model: type[M], public_id: str) -> M | None:
    """The row of `model` (which names its id KIND) behind a public id, or None."""
    pk = ids.decode(model.KIND, public_id)  # type: ignore[attr-defined]
    return await session.get(model, pk) if pk is not None else None


async def _read_id_key(session: AsyncSession, *, is_sqlite: bool) -> str | None:
    """The installation's id key; None in a database not migrated that far yet."""
    exists = (
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'installation'"
        if is_sqlite
        else "SELECT count(*) FROM pg_class WHERE oid = to_regclass('installation')"
    )
    if not await session.scalar(text(exists)):
        return None
    return await session.scalar(text("SELECT id_key FROM installation"))


def async_url(url: str) -> str:
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return parsed.set(drivername="sqlite+aiosqlite").render_as_string(hide_password=False)
    if backend in ("postgresql", "postgres"):
        return parsed.set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)
    raise ValueError(f"unsupported database URL scheme {parsed.drivername!r}")


@dataclass(slots=True)
class Database:
    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]
    is_sqlite: bool
    id_key: str | None = None  # the installation's id key (models.installation), once read

    async def dispose(self) -> None:
        await self.engine.dispose()

    async def load_id_key(self, session: AsyncSession | None = None) -> str:
        """Read this database's id key and key the process's public ids with it (kit.ids):
        every process does so before it makes an id (app startup, CLI commands). In the
        caller's transaction when given one."""
        if session is None:
            async with self.transaction(write=False) as own:
                return await self.load_id_key(own)
        key = await _read_id_key(session, is_sqlite=self.is_sqlite)
        if key is None:
            raise RuntimeError("the database has no installation row: run `comptoir migrate` first")
        self.id_key = key
        ids.use_key(key)
        return key

    @asynccontextmanager
    async def transaction(self, *, write: bool = True) -> AsyncIterator[AsyncSession]:
        """A session in one transaction: committed on success, rolled back on error."""
        async with self.sessions() as session:
            if write and self.is_sqlite:
                await session.connection(execution_options=WRITE)  # BEGIN IMMEDIATE
            if self.id_key is None:  # first use: ids are keyed before this transaction makes one
                self.id_key = await _read_id_key(session, is_sqlite=self.is_sqlite)
            if self.id_key is not None and ids.current_key() != self.id_key:
                ids.use_key(self.id_key)  # another database's key was in use (tests open several)
            try:
                yield session
            except BaseException:
                await session.rollback()
                raise
            await session.commit()
            DATABASE.ok()  # docs/operations.md "When a dependency fails": the outage, if any, is over


def create_database(settings: Settings, *, pool_size: int | None = None, statement_timeout: bool = True) -> Database:
    """The engine and its sessions. On PostgreSQL the pool keeps COMPTOIR_DATABASE_POOL_SIZE
    connections and opens up to COMPTOIR_DATABASE_MAX_OVERFLOW more when busy
    (docs/operations.md "Database pool"); a command or a test that needs few gives `pool_size`
    (then as many again when busy). Every wait on the database is bounded
    (docs/operations.md "When a dependency fails"): opening a connection, waiting for a free
    one, and, unless `statement_timeout` is False (commands, whose migrations may take
    long), each statement; a wait that runs out raises `DependencyUnavailable`."""
    url = async_url(settings.database_url)
    is_sqlite = url.startswith("sqlite")
    options: dict = {"json_serializer": dumps_str, "json_deserializer": loads_stored}
    if is_sqlite:
        path = settings.sqlite_path
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        # the wait for the write lock: sqlite3's own busy handler (`PRAGMA busy_timeout`)
        options["connect_args"] = {"timeout": settings.database_statement_timeout_seconds if statement_timeout else 30}
    else:
        size = settings.database_pool_size if pool_size is None else pool_size
        overflow = settings.database_max_overflow if pool_size is None else pool_size
        options.update(pool_size=size, max_overflow=overflow, pool_pre_ping=False)
        options["pool_timeout"] = settings.database_pool_timeout_seconds
        connect_with = asyncpg_options(settings, statement_timeout=statement_timeout)
        options["async_creator"] = lambda: connect(connect_with)
    if is_sqlite and settings.sqlite_path is None:
        options["poolclass"] = StaticPool  # one connection holds the database in memory
    else:
        options["poolclass"] = MeasuredPool
    engine = create_async_engine(url, **options)
    _count_connections(engine)
    _unavailable_is_one_error(engine)
    tracing.instrument_engine(engine.sync_engine)  # docs/operations.md "Traces"
    if is_sqlite:
        _configure_sqlite(engine)
    sessions = async_sessionmaker(engine, expire_on_commit=False, autoflush=False)
    return Database(engine=engine, sessions=sessions, is_sqlite=is_sqlite)


def _unavailable_is_one_error(engine: AsyncEngine) -> None:
    """A statement that failed for want of the database raises `DependencyUnavailable`, its
    connection given up at once (a graceful close would wait on a server that does not answer)."""

    @event.listens_for(engine.sync_engine, "handle_error")
    def _on_error(context: ExceptionContext) -> None:
        error = context.original_exception
        if not isinstance(error, Exception):  # a cancellation stays one: its task must end
            return
        if not (context.is_disconnect or is_unavailable(error)):
            return
        if context.is_disconnect or is_broken(error):
            context.is_disconnect = True  # the pool drops the connection
            driver = _driver_connection(context)
            if driver is not None and hasattr(driver, "terminate"):
                with contextlib.suppress(Exception):
                    driver.terminate()  # asyncpg: closed now, without a goodbye to a silent server
        raise unavailable(error) from error


def _driver_connection(context: ExceptionContext) -> Any:
    """The driver's own connection (asyncpg's) behind a failed statement, if any."""
    try:
        return context.connection.connection.driver_connection if context.connection is not None else None
    except Exception:  # already invalidated
        return None


def _open() -> bool:
    return False


_ACQUIRED = metrics.DB_ACQUIRE_SECONDS.labels("engine")
_IN_USE = metrics.DB_IN_USE.labels("engine")


class MeasuredPool(AsyncAdaptedQueuePool):
    """SQLAlchemy's pool for asyncio drivers, timing each checkout (docs/operations.md
    "Metrics"); no free connection within COMPTOIR_DATABASE_POOL_TIMEOUT_SECONDS is
    `DependencyUnavailable`."""

    def _do_get(self) -> ConnectionPoolEntry:
        started = time.perf_counter()
        try:
            return super()._do_get()
        except PoolTimeout as error:
            raise unavailable(error) from error
        finally:
            _ACQUIRED.observe(time.perf_counter() - started)


def _count_connections(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "checkout")
    def _out(_dbapi_connection: Any, record: ConnectionPoolEntry, *_args: Any) -> None:
        if getattr(record.driver_connection, "is_closed", _open)():
            # cut while it sat in the pool (the server restarted, the network dropped it):
            # the pool opens another instead (docs/operations.md "When a dependency fails")
            raise DisconnectionError("the connection was closed while idle")
        _IN_USE.inc()

    @event.listens_for(engine.sync_engine, "checkin")
    def _in(*_args: Any) -> None:
        _IN_USE.dec()


def _configure_sqlite(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        dbapi_connection.isolation_level = None  # Comptoir emits BEGIN itself (below)
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection) -> None:  # type: ignore[no-untyped-def]
        immediate = connection.get_execution_options().get("comptoir_write")
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def dialect_name(db: AsyncSession | AsyncConnection) -> str:
    """ "postgresql" or "sqlite": the database behind a session or connection (the one place
    that asks; sessions come from `Database.transaction()`, bound to its engine)."""
    if isinstance(db, AsyncConnection):
        return db.dialect.name
    bind = db.bind
    assert bind is not None
    return bind.dialect.name


AnySelect = Select[*tuple[Any, ...]]  # a select of any columns


async def advisory_lock(db: AsyncSession | AsyncConnection, key: int) -> None:
    """Wait for the transaction-scoped advisory lock `key` on PostgreSQL (released at commit
    or rollback); nothing on SQLite, where writers are serialised anyway."""
    if dialect_name(db) == "postgresql":
        await db.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": key})


def rowcount(result: Result[Any]) -> int:
    """The rows an UPDATE or DELETE matched (its result is a CursorResult)."""
    return cast("CursorResult[Any]", result).rowcount
