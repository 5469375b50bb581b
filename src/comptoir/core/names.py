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

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.core import repository
from comptoir.models import Catalog, CustomerList


class NameTaken(Exception):
    """The name is used by another holder the rule conflicts with."""


async def claim(session: AsyncSession, kind: str, account_id: int, name: str, *, account_level: bool) -> None:
    """Claim `name` for a new holder; NameTaken when the rule forbids it."""
    if not await repository.claim_name(session, kind, account_id, name, account_level=account_level):
        raise NameTaken(name)


async def release(session: AsyncSession, kind: str, account_id: int, name: str) -> None:
    """A holder gives `name` up (deleted or renamed)."""
    await repository.release_name(session, kind, account_id, name)


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
    if not await repository.insert_unique(session, row):  # the name exists in this location
        raise taken()


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
    if not await repository.rename_unique(session, row, name):
        raise taken()
