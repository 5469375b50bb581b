"""A unit of work: where one request's reads and writes go. It holds the direct driver
(`db.direct`) and opens one transaction on first need, committed when the unit ends without
an error and rolled back otherwise (docs/architecture.md "Storage"). So a repository can write
a statement that is atomic on its own without any transaction, and the same call joins the
transaction when the request has one."""

from __future__ import annotations

from contextlib import AsyncExitStack
from types import TracebackType
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.db.direct import FastReader, Query
from comptoir.db.engine import Database, dialect_name


class Unit:
    def __init__(
        self,
        db: Database | None = None,
        direct: FastReader | None = None,
        *,
        session: AsyncSession | None = None,
        write: bool = True,
    ) -> None:
        self._db = db
        self._write = write  # False: the transaction, if one opens, only reads
        self.direct = direct
        self._session = session
        self._stack: AsyncExitStack | None = None  # made with the transaction it closes
        self.is_sqlite = db.is_sqlite if db is not None else session is not None and _is_sqlite(session)

    @classmethod
    def of(cls, session: AsyncSession, direct: FastReader | None = None) -> Unit:
        """A unit inside a transaction its caller holds (and commits)."""
        return cls(direct=direct, session=session)

    @property
    def open_session(self) -> AsyncSession | None:
        """The unit's transaction, if one is open."""
        return self._session

    async def session(self) -> AsyncSession:
        """The unit's transaction, opened on first use."""
        if self._session is None:
            assert self._db is not None, "a unit without a database holds its caller's session"
            self._stack = AsyncExitStack()
            self._session = await self._stack.enter_async_context(self._db.transaction(write=self._write))
        return self._session

    async def one(self, query: Query, **params: Any) -> dict[str, Any] | None:
        """The first row of a read: on the direct driver, without a transaction, when the unit
        has it and no transaction is open; else in the unit's transaction."""
        if self.direct is not None and self._session is None:
            return await self.direct.one(query, **params)
        row = (await (await self.session()).execute(query.stmt, params)).mappings().first()
        return dict(row) if row is not None else None

    async def all(self, query: Query, **params: Any) -> list[dict[str, Any]]:
        """Every row of a read, where `one` reads it."""
        if self.direct is not None and self._session is None:
            return await self.direct.all(query, **params)
        return [dict(row) for row in (await (await self.session()).execute(query.stmt, params)).mappings()]

    async def __aenter__(self) -> Unit:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._stack is not None:
            await self._stack.__aexit__(kind, error, trace)


def _is_sqlite(session: AsyncSession) -> bool:
    return dialect_name(session) == "sqlite"
