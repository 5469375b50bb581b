"""Every statement of the shared domain pieces: the name claims behind the naming rule of
catalogs and customer lists (`comptoir.core.names`) and the private refs of each client
(`comptoir.core.private_refs`). The rules are in those modules; this one only reads and
writes their tables, choosing the statement by database where the dialects differ."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Insert, delete, exists, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute
from sqlalchemy.sql.elements import BindParameter, ColumnElement

from comptoir.db.engine import dialect_name
from comptoir.models import Catalog, CustomerList, NameClaim, PrivateRef


def _on_postgresql(session: AsyncSession) -> bool:
    """Whether the session is on PostgreSQL (else SQLite), whose INSERT ... ON CONFLICT the
    upserts below use."""
    return dialect_name(session) == "postgresql"


# --- name claims --------------------------------------------------------------------------


async def claim_name(session: AsyncSession, kind: str, account_id: int, name: str, *, account_level: bool) -> bool:
    """One statement: an account-level claim inserts the row (its primary key refuses a second
    claimant); a location-level claim inserts it or adds itself to the row's holders while
    that row is not an account-level claim. False when the database refused the claim."""
    values = {"kind": kind, "account_id": account_id, "name": name, "account_level": account_level, "holders": 1}
    insert = pg_insert if _on_postgresql(session) else sqlite_insert
    stmt = insert(NameClaim).values(**values)
    if account_level:
        stmt = stmt.on_conflict_do_nothing()
    else:
        stmt = stmt.on_conflict_do_update(
            index_elements=["kind", "account_id", "name"],
            set_={"holders": NameClaim.holders + 1},
            where=NameClaim.account_level.is_(False),
        )
    # a conflict is never an error here: the claim just returns no row
    return (await session.execute(stmt.returning(NameClaim.holders))).first() is not None


async def release_name(session: AsyncSession, kind: str, account_id: int, name: str) -> None:
    """One holder fewer; the claim goes with its last holder."""
    key = (NameClaim.kind == kind, NameClaim.account_id == account_id, NameClaim.name == name)
    await session.execute(update(NameClaim).where(*key).values(holders=NameClaim.holders - 1))
    await session.execute(delete(NameClaim).where(*key, NameClaim.holders <= 0))


async def insert_unique(session: AsyncSession, row: Catalog | CustomerList) -> bool:
    """Insert the named row, flushed, in a savepoint: False (and nothing written) when its
    unique constraint on (location_id, name) refuses it."""
    try:
        async with session.begin_nested():
            session.add(row)
            await session.flush()
    except IntegrityError:
        return False
    return True


async def rename_unique(session: AsyncSession, row: Catalog | CustomerList, name: str) -> bool:
    """Give the named row `name`, flushed, in a savepoint: False when its unique constraint
    on (location_id, name) refuses it."""
    try:
        async with session.begin_nested():
            row.name = name
            await session.flush()
    except IntegrityError:
        return False
    return True


# --- private refs -------------------------------------------------------------------------


async def delete_private_ref(session: AsyncSession, resource_type: str, resource_id: int, client_id: int) -> None:
    await session.execute(
        delete(PrivateRef).where(
            PrivateRef.resource_type == resource_type,
            PrivateRef.resource_id == resource_id,
            PrivateRef.client_id == client_id,
        )
    )


def private_ref_upsert(
    dialect: str, resource_type: Any, resource_id: Any, client_id: Any, ref: Any, scope_id: Any = None
) -> Insert:
    """The statement setting a client's ref on an object, inserted or replaced, for the
    `dialect` ("postgresql" or "sqlite"). Its values are values or SQL expressions:
    `upsert_private_ref` runs it with values, and a one-statement write embeds it with its
    own parameters (the order insert, `orders.repository`)."""
    insert = pg_insert if dialect == "postgresql" else sqlite_insert
    stmt = insert(PrivateRef).values(
        resource_type=resource_type, resource_id=resource_id, client_id=client_id, ref=ref, scope_id=scope_id
    )
    return stmt.on_conflict_do_update(
        index_elements=["resource_type", "resource_id", "client_id"],
        set_={"ref": stmt.excluded.ref, "scope_id": stmt.excluded.scope_id},
    )


async def upsert_private_ref(
    session: AsyncSession, resource_type: str, resource_id: int, client_id: int, ref: str, scope_id: int | None
) -> None:
    """The client's ref on the object, inserted or replaced in one statement (IntegrityError
    when `scope_id` is given and another object of that scope has the ref)."""
    await session.execute(
        private_ref_upsert(dialect_name(session), resource_type, resource_id, client_id, ref, scope_id)
    )


async def private_refs_of(
    session: AsyncSession, resource_type: str, resource_ids: list[int], client_id: int
) -> dict[int, str]:
    """{object id: ref} of the client's refs on those objects (`resource_ids` not empty)."""
    rows = await session.execute(
        select(PrivateRef.resource_id, PrivateRef.ref).where(
            PrivateRef.client_id == client_id,
            PrivateRef.resource_type == resource_type,
            PrivateRef.resource_id.in_(resource_ids),
        )
    )
    return dict(rows.all())


def private_ref_filter(
    resource_type: str,
    id_column: InstrumentedAttribute[int],
    client_id: int | BindParameter[Any],
    ref: str | BindParameter[Any],
) -> ColumnElement[bool]:
    """Filter: objects on which the client set the ref (index-backed); the client and the
    ref as values, or as parameters of a statement compiled once."""
    return exists().where(
        PrivateRef.client_id == client_id,
        PrivateRef.resource_type == resource_type,
        PrivateRef.ref == ref,
        PrivateRef.resource_id == id_column,
    )
