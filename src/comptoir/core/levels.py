"""The statements catalogs and customer lists share as resources held at location level or
account level (spec 2.4, 2.6; `models.levels.AtLevel`): one found with what rendering it
needs, which of them a location or an account holds (spec 4.3, 4.4), and the level of one
as the permission check reads it (`held`, for `auth.access.WriteOn`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, NamedTuple, TypeVar

from sqlalchemy import ColumnElement, Row, Select, and_, bindparam, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.db.direct import FastReader, Query
from comptoir.models import Account, Catalog, CustomerList, Location
from comptoir.models.accounts import AccountRef
from comptoir.models.levels import AtLevel
from comptoir.models.locations import LocationRef

M = TypeVar("M", bound=AtLevel)


# --- what a location or an account holds: the one rule, in memory and in SQL ------------------


def holds(account_id: int, location_id: int | None, row_account_id: int, row_location_id: int | None) -> bool:
    """Whether location `location_id` of account `account_id` (or, with None, the account
    itself) holds a row of `row_account_id` at `row_location_id` (None: account level): a
    location holds its own rows and its account's account-level ones; an account holds its
    account-level ones (spec 2.4, 2.6). `holds_sql` is the same rule as a condition."""
    return row_account_id == account_id and row_location_id in (None, location_id)


def holds_sql(model: type[AtLevel], account_id: int, location_id: int | None) -> ColumnElement[bool]:
    """`holds` as a SQL condition on `model`'s rows (catalogs, customer lists)."""
    if location_id is None:
        return and_(model.account_id == account_id, model.location_id.is_(None))
    return and_(model.account_id == account_id, or_(model.location_id.is_(None), model.location_id == location_id))


@dataclass(frozen=True)  # not slots: `InReach[Catalog](...)` sets `__orig_class__`, refused as frozen
class InReach(Generic[M]):
    """A catalog or customer list with what rendering it and its resources needs."""

    row: M
    timezone: str  # its location's, or UTC at account level (docs/api/conventions.md "Fields")
    currency: str  # its account's: the currency of every price in it
    location_number: int | None = None  # its location's number (its public id); None at account level

    @property
    def id(self) -> int:
        return self.row.id

    @property
    def public_id(self) -> str:
        return self.row.public_id


def written(row: M, account: AccountRef, location: LocationRef | None) -> InReach[M]:
    """`row`, just written at `location` (None: at account level) of `account`."""
    if location is None:
        return InReach(row, "UTC", account.currency)
    return InReach(row, location.timezone, account.currency, location.number)


def select_found(model: type[M]) -> Select[M, str, str, int]:
    """`model`'s rows with their location's timezone and number and their account's currency."""
    return (
        select(model, Location.timezone, Account.currency, Location.number)
        .join(Account, Account.id == model.account_id)
        .outerjoin(Location, Location.id == model.location_id)
    )


def found(row: Row[M, str, str, int]) -> InReach[M]:
    return InReach(row[0], row[1] or "UTC", row[2], row[3])


async def find(session: AsyncSession, model: type[M], pk: int, *, for_update: bool) -> InReach[M] | None:
    """`model` `pk`, locked for the transaction with `for_update`; None when there is none."""
    stmt = select_found(model).where(model.id == pk)
    if for_update:
        stmt = stmt.with_for_update(of=model).execution_options(populate_existing=True)
    row = (await session.execute(stmt)).first()
    return found(row) if row is not None else None


def held_by(
    model: type[M], *, account_id: int, location_id: int | None, every: bool, bound_id: int | None
) -> Select[M, str, str, int]:
    """What a location holds (its own and its account's account-level ones) or, with no
    `location_id`, what an account holds at account level. Only `bound_id` unless `every`."""
    stmt = select_found(model).where(holds_sql(model, account_id, location_id))
    if not every:
        stmt = stmt.where(model.id == bound_id)
    return stmt


async def by_name(session: AsyncSession, model: type[M], account_id: int, location_id: int | None) -> list[M]:
    """The `model` rows of location `location_id` (or, with None, the account's account-level
    ones), by name: what the back office lists and the demo looks its own up in."""
    where = model.location_id.is_(None) if location_id is None else model.location_id == location_id
    stmt = select(model).where(model.account_id == account_id, where).order_by(model.name)
    return list(await session.scalars(stmt))


class Held(NamedTuple):
    """A catalog's or customer list's binding as access rules read it (`auth.context.Bound`)."""

    id: int
    account_id: int
    location_id: int | None


def _held_read(model: type[AtLevel]) -> Query:
    return Query(select(model.id, model.account_id, model.location_id).where(model.id == bindparam("pk")))


_HELD = {Catalog.KIND: _held_read(Catalog), CustomerList.KIND: _held_read(CustomerList)}


async def held(reader: FastReader, kind: str, pk: int) -> Held | None:
    """The catalog or customer list (`kind`) `pk`: its id, account and location (None at
    account level), in one statement without a session; None when there is none."""
    row = await reader.one(_HELD[kind], pk=pk)
    return None if row is None else Held(row["id"], row["account_id"], row["location_id"])
