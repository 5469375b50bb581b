"""Factories: real rows through the real services, each in its own transaction."""

from __future__ import annotations

import functools
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.accounts.service import create_account
from comptoir.applications.service import create_client
from comptoir.auth.scopes import parse_scope
from comptoir.connections.service import authorise
from comptoir.db.engine import Database
from comptoir.locations.service import create_location
from comptoir.models import Account, Base, Catalog, Change, CustomerList, Location, OAuthClient, User
from comptoir.users.service import create_user

_seq = itertools.count(1)


class World:
    def __init__(self, db: Database, key: bytes) -> None:
        self.db = db
        self.key = key
        self._changes_after = 0  # `settle`
        self._session: AsyncSession | None = None  # `together`

    @asynccontextmanager
    async def _tx(self, *, write: bool = True) -> AsyncIterator[AsyncSession]:
        """The transaction of `together()` when one is open, else one of its own."""
        if self._session is not None:
            yield self._session
            return
        async with self.db.transaction(write=write) as session:
            yield session

    @asynccontextmanager
    async def together(self) -> AsyncIterator[None]:
        """The factory calls inside make their rows in one transaction (a fixture's shop)."""
        async with self.db.transaction() as session:
            self._session = session
            try:
                yield
            finally:
                self._session = None

    async def user(self, email: str | None = None, **fields: Any) -> User:
        async with self._tx() as session:
            return await create_user(
                session,
                email=email or f"user{next(_seq)}@example.com",
                password=fields.pop("password", "password123"),
                **fields,
            )

    async def account(self, owner: User | None = None, name: str = "Acme", currency: str = "EUR") -> Account:
        owner = owner or await self.user()
        async with self._tx() as session:
            return await create_account(session, owner=owner, name=name, currency=currency)

    async def location(self, account: Account | None = None, name: str = "Acme Central", **fields: Any) -> Location:
        account = account or await self.account()
        fields.setdefault("timezone", "Europe/Paris")
        fields.setdefault("country", "FR")
        async with self._tx() as session:
            return await create_location(session, account=account, name=name, **fields)

    async def account_of(self, location: Location) -> Account:
        async with self._tx(write=False) as session:
            account = await session.get(Account, location.account_id)
            assert account is not None
            return account

    async def client(self, name: str = "Test app", redirect_uris: list[str] | None = None) -> OAuthClient:
        async with self._tx() as session:
            return await create_client(session, name=name, redirect_uris=redirect_uris or ["https://app.example/cb"])

    async def catalog(
        self, *, location: Location | None = None, account: Account | None = None, name: str = "Menu"
    ) -> Catalog:
        """Through the service, as the API, the back office and the demo make one."""
        from comptoir.catalogs.service import create_catalog

        async with self._tx() as session:
            owner, where = await self._owner(session, location, account)
            return (await create_catalog(session, None, account=owner, location=where, name=name)).row

    async def customer_list(
        self, *, location: Location | None = None, account: Account | None = None, name: str = "Customers"
    ) -> CustomerList:
        """Through the service, as the API, the back office and the demo make one."""
        from comptoir.customer_lists.service import create_list

        async with self._tx() as session:
            owner, where = await self._owner(session, location, account)
            return (await create_list(session, None, account=owner, location=where, name=name)).row

    @staticmethod
    async def _owner(
        session: AsyncSession, location: Location | None, account: Account | None
    ) -> tuple[Account, Location | None]:
        """The account (and location) a catalog or customer list is created in, this session's rows."""
        owner = await session.get(Account, location.account_id if location else account.id)  # type: ignore[union-attr]
        assert owner is not None
        return owner, await session.get(Location, location.id) if location else None

    async def grant(
        self,
        scope: str,
        *,
        location: Location | None = None,
        account: Account | None = None,
        catalog: Catalog | None = None,
        customer_list: CustomerList | None = None,
        client: OAuthClient | None = None,
        user: User | None = None,
        name: str = "",
    ) -> dict[str, Any]:
        client = client or await self.client()
        async with self._tx() as session:
            if user is None:
                owning = (
                    await session.get(Account, location.account_id if location else account.id)
                    if (location or account)
                    else None
                )  # type: ignore[union-attr]
                user = await session.get(User, owning.owner_id) if owning else await self._any_user(session)
            return await authorise(
                session,
                self.key,
                client=client,
                user=user,  # type: ignore[arg-type]
                scope=parse_scope(scope),
                location=location,
                account=account,
                catalog=catalog,
                customer_list=customer_list,
                name=name,
            )

    async def token(self, scope: str, **kwargs: Any) -> str:
        return (await self.grant(scope, **kwargs))["access_token"]

    async def _any_user(self, session: Any) -> User:
        user = await session.scalar(select(User).limit(1))
        if user is None:
            raise AssertionError("create a user first")
        return user

    async def subscribe(self, token: str, url: str | None, events: dict[str, list[str]]) -> int:
        """Set the callback of the token's connection directly (as POST /callback does, even
        for a blocked connection); returns the connection id."""
        from comptoir.auth.context import Ctx
        from comptoir.callbacks.service import set_callback
        from comptoir.config import parse_networks
        from comptoir.connections.service import find_connection_by_token
        from tests.conftest import TEST_ALLOWED_NETWORKS

        async with self.db.transaction() as session:
            connection = await find_connection_by_token(session, self.key, token)
            assert connection is not None
            ctx = Ctx(
                connection.id, connection.name, connection.client_id, "", connection.user_id, connection.level,
                connection.account_id, connection.location_id, None, None, parse_scope(connection.scope),
            )  # fmt: skip
            await set_callback(session, self.key, ctx, url, events, parse_networks(TEST_ALLOWED_NETWORKS))
            return connection.id

    async def settle(self) -> None:
        """From now on `changes()` shows only what comes next: a fixture that made rows through
        the services (a shop's catalog and list record their `create`) settles before its test."""
        async with self.db.transaction(write=False) as session:
            self._changes_after = await session.scalar(select(func.coalesce(func.max(Change.id), 0))) or 0

    async def changes(self) -> list[Change]:
        """The changes recorded since the last `settle()` (all of them without one), oldest first."""
        async with self.db.transaction(write=False) as session:
            stmt = select(Change).where(Change.id > self._changes_after).order_by(Change.id)
            return list((await session.scalars(stmt)).all())

    async def snapshot(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of every table: a refused request must leave this unchanged."""
        async with self.db.transaction(write=False) as session:
            connection = await session.connection()  # the rows as they are: no ORM on the way
            return {
                name: [tuple(row) for row in await connection.execute(statement)]
                for name, statement in _snapshot_statements()
            }

    async def customer_list_row(self, public_id: str) -> CustomerList:
        from comptoir.db.engine import get_by_public_id

        async with self.db.transaction(write=False) as session:
            row = await get_by_public_id(session, CustomerList, public_id)
            assert row is not None
            return row

    async def location_row(self, location: Location) -> Location:
        async with self.db.transaction(write=False) as session:
            row = await session.get(Location, location.id)
            assert row is not None
            return row


@functools.cache
def _snapshot_statements() -> list[tuple[str, Select[Any]]]:
    """The statements of `World.snapshot`, one a table, made once."""
    statements = []
    for table in Base.metadata.sorted_tables:
        if table.name == "request_logs":  # a log of the request, not a change it made
            continue
        if table.name == "cache_stamps":  # moved by SQLite's triggers with the rows compared here
            continue
        # a delivery worker's lease of a lane: its own bookkeeping, which a running worker
        # renews on its schedule, never a change a request made
        columns = [c for c in table.columns if c.name not in ("lease_owner", "leased_until")]
        statements.append((table.name, select(*columns).order_by(*table.primary_key.columns)))
    return statements
