"""Engine and session factory.

SQLite is the embedded default (WAL, foreign keys on, a busy timeout); PostgreSQL, through
asyncpg, is how Comptoir scales to many processes. On SQLite the driver's own transaction
handling is turned off and Comptoir emits BEGIN itself: write requests start with
`BEGIN IMMEDIATE`, so two writers queue on the database lock instead of failing when a read
snapshot goes stale (STYLE "Concurrency is normal").
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TypeVar

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from comptoir.config import Settings
from comptoir.kit.jsonutil import dumps_str, loads_stored

M = TypeVar("M")
WRITE = {"comptoir_write": True}  # execution option: this transaction will write


async def get_by_public_id(session: AsyncSession, model: type[M], public_id: str) -> M | None:
    """The row of `model` (which names its id KIND) behind a public id, or None."""
    from comptoir.kit import ids

    pk = ids.decode(model.KIND, public_id)  # type: ignore[attr-defined]
    return await session.get(model, pk) if pk is not None else None


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

    async def dispose(self) -> None:
        await self.engine.dispose()

    @asynccontextmanager
    async def transaction(self, *, write: bool = True) -> AsyncIterator[AsyncSession]:
        """A session in one transaction: committed on success, rolled back on error."""
        async with self.sessions() as session:
            if write and self.is_sqlite:
                await session.connection(execution_options=WRITE)  # BEGIN IMMEDIATE
            try:
                yield session
            except BaseException:
                await session.rollback()
                raise
            await session.commit()


def create_database(settings: Settings, *, pool_size: int = 10) -> Database:
    url = async_url(settings.database_url)
    is_sqlite = url.startswith("sqlite")
    options: dict = {"json_serializer": dumps_str, "json_deserializer": loads_stored}
    if is_sqlite:
        path = settings.sqlite_path
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        options["connect_args"] = {"timeout": 30}
    else:
        options.update(pool_size=pool_size, max_overflow=pool_size, pool_pre_ping=False)
    engine = create_async_engine(url, **options)
    if is_sqlite:
        _configure_sqlite(engine)
    sessions = async_sessionmaker(engine, expire_on_commit=False, autoflush=False)
    return Database(engine=engine, sessions=sessions, is_sqlite=is_sqlite)


def _configure_sqlite(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        dbapi_connection.isolation_level = None  # Comptoir emits BEGIN itself (below)
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection) -> None:  # type: ignore[no-untyped-def]
        immediate = connection.get_execution_options().get("comptoir_write")
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
