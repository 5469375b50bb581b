"""Every statement about customer lists: a list with what rendering it needs (its location's
timezone, its account's currency), pages of lists, and the name rule's writes
(`comptoir.core.names`). The rules, and who may see what, are `customer_lists.service`'s."""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.core import levels
from comptoir.core.levels import InReach
from comptoir.core.repository import release_name
from comptoir.db.engine import get_by_public_id
from comptoir.db.keyset import Key, paginate
from comptoir.kit.pagination import Page, PageRequest
from comptoir.models import Customer, CustomerList, PrivateRef

KIND = "customer_list"


async def find_list(session: AsyncSession, pk: int, *, for_update: bool = False) -> InReach[CustomerList] | None:
    """The list `pk`, locked for the transaction with `for_update`; None when there is none."""
    return await levels.find(session, CustomerList, pk, for_update=for_update)


async def by_public_id(session: AsyncSession, public_id: str) -> CustomerList | None:
    """The list whose public id is `public_id`, or None."""
    return await get_by_public_id(session, CustomerList, public_id)


async def lists_page(
    session: AsyncSession,
    page: PageRequest,
    *,
    account_id: int,
    location_id: int | None,
    every: bool,
    bound_id: int | None,
) -> tuple[list[InReach[CustomerList]], Page]:
    """A page of the lists of a location (its own and its account's account-level lists)
    or, with no `location_id`, of an account's account-level lists; oldest first. Only
    `bound_id` unless `every`."""
    stmt = levels.held_by(CustomerList, account_id=account_id, location_id=location_id, every=every, bound_id=bound_id)
    result = await paginate(session, stmt, [Key(CustomerList.id, int)], page)
    return [levels.found(row) for row in result.rows], result


async def delete_list(session: AsyncSession, row: CustomerList) -> None:
    """The list, with its customers, loyalty cards and operations (foreign keys cascade),
    the private refs set on its customers, and its name's claim."""
    customers = select(Customer.id).where(Customer.customer_list_id == row.id)
    await session.execute(
        delete(PrivateRef).where(PrivateRef.resource_type == Customer.KIND, PrivateRef.resource_id.in_(customers))
    )
    await release_name(session, KIND, row.account_id, row.name)
    await session.execute(delete(CustomerList).where(CustomerList.id == row.id))


async def lists_by_name(session: AsyncSession, account_id: int, location_id: int | None) -> list[CustomerList]:
    """The customer lists of location `location_id` (or, with None, the account's
    account-level ones), by name (the back office, the demo)."""
    return await levels.by_name(session, CustomerList, account_id, location_id)
