"""The naming rule of catalogs and customer lists (spec 2.4 rule 2, spec 2.6), enforced by
the database so that two concurrent creations or renames cannot both win.

Within a location, names are unique (each kind's own unique constraint on (location_id,
name)). Across the account, a name held by an account-level list is held by nothing else,
and a name held by location-level lists is not available at account level. One
`name_claims` row per (kind, account, name) records this:

- an account-level holder inserts the row: its primary key refuses a second claimant;
- a location-level holder inserts it or, atomically, adds itself to the existing row's
  holders, but only while that row is not an account-level claim.

Both are single statements whose conflicts the database resolves (PostgreSQL's unique index
waits for the other transaction; SQLite serialises writers), never a read-then-write.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import delete, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.models import Catalog, CustomerList, NameClaim


class NameTaken(Exception):
    """The name is used by another holder the rule conflicts with."""


async def claim(session: AsyncSession, kind: str, account_id: int, name: str, *, account_level: bool) -> None:
    """Claim `name` for a new holder; NameTaken when the rule forbids it."""
    bind = session.bind
    assert bind is not None  # sessions come from Database.transaction(), bound to its engine
    insert = pg_insert if bind.dialect.name == "postgresql" else sqlite_insert
    values = {"kind": kind, "account_id": account_id, "name": name, "account_level": account_level, "holders": 1}
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
    if (await session.execute(stmt.returning(NameClaim.holders))).first() is None:
        raise NameTaken(name)


async def release(session: AsyncSession, kind: str, account_id: int, name: str) -> None:
    """A holder gives `name` up (deleted or renamed)."""
    key = (NameClaim.kind == kind, NameClaim.account_id == account_id, NameClaim.name == name)
    await session.execute(update(NameClaim).where(*key).values(holders=NameClaim.holders - 1))
    await session.execute(delete(NameClaim).where(*key, NameClaim.holders <= 0))


async def insert_named(
    session: AsyncSession, kind: str, row: Catalog | CustomerList, taken: Callable[[], Exception]
) -> None:
    """Insert a new catalog or customer list `row` (with `name`, `account_id`, `location_id`)
    under the rule: its name claimed, then the row itself, whose unique constraint guards the
    location; `taken()` is raised when either refuses."""
    try:
        await claim(session, kind, row.account_id, row.name, account_level=row.location_id is None)
    except NameTaken:
        raise taken() from None
    try:
        async with session.begin_nested():
            session.add(row)
            await session.flush()
    except IntegrityError:  # the name exists in this location
        raise taken() from None


async def rename(
    session: AsyncSession, kind: str, row: Catalog | CustomerList, name: str, taken: Callable[[], Exception]
) -> None:
    """Give `row` the name `name` under the rule (the old one released); `taken()` raised
    when the new one is held. The caller holds the row lock and has checked the name."""
    await release(session, kind, row.account_id, row.name)
    try:
        await claim(session, kind, row.account_id, name, account_level=row.location_id is None)
    except NameTaken:
        raise taken() from None
    try:
        async with session.begin_nested():
            row.name = name
            await session.flush()
    except IntegrityError:
        raise taken() from None
