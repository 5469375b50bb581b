"""Every statement about customers: one customer of a list, pages of them under the filters
of spec 4.5 or the back office's search, their loyalty cards as a customer shows them, and
their private refs' uniqueness in their list. The rules are `customers.service`'s."""

from __future__ import annotations

from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from comptoir.core import levels
from comptoir.core.repository import delete_private_ref, private_ref_filter, upsert_private_ref
from comptoir.customers.schemas import CustomerFilters
from comptoir.db.keyset import Key, paginate
from comptoir.kit.pagination import Page, PageRequest
from comptoir.kit.patterns import is_range, matches
from comptoir.models import Customer, CustomerList, LoyaltyCard

KIND = "customer"


async def cards_of(session: AsyncSession, customer_ids: list[int]) -> dict[int, list[LoyaltyCard]]:
    """The loyalty cards of these customers, oldest first."""
    found: dict[int, list[LoyaltyCard]] = {pk: [] for pk in customer_ids}
    if customer_ids:
        stmt = select(LoyaltyCard).where(LoyaltyCard.customer_id.in_(customer_ids)).order_by(LoyaltyCard.id)
        for card in await session.scalars(stmt):
            found[card.customer_id].append(card)
    return found


async def find_customer(session: AsyncSession, list_id: int, pk: int, *, for_update: bool = False) -> Customer | None:
    """Customer `pk` of list `list_id`, locked for the transaction with `for_update`."""
    stmt = select(Customer).where(Customer.id == pk, Customer.customer_list_id == list_id)
    if for_update:
        stmt = stmt.with_for_update().execution_options(populate_existing=True)
    return await session.scalar(stmt)


async def locked(session: AsyncSession, pk: int) -> Customer | None:
    """Customer `pk`, whichever its list, locked for the transaction (an order's update
    locks its customer first: `orders.repository.OrderRepository.for_update`)."""
    return await session.scalar(select(Customer).where(Customer.id == pk).with_for_update())


async def locked_with_list(
    session: AsyncSession, pk: int, account_id: int, location_id: int
) -> tuple[Customer, CustomerList] | None:
    """Customer `pk` of a list of the account (at account level) or of the location, with its
    list, locked: the customer an order of that location attaches by id."""
    stmt = (
        select(Customer, CustomerList)
        .join(CustomerList, CustomerList.id == Customer.customer_list_id)
        .where(Customer.id == pk, levels.holds_sql(CustomerList, account_id, location_id))
        .with_for_update(of=Customer)
    )
    row = (await session.execute(stmt)).first()
    return (row[0], row[1]) if row is not None else None


async def locked_by_ref(session: AsyncSession, list_id: int, client_id: int, ref: str) -> Customer | None:
    """The customer of list `list_id` that `client_id` calls `ref` (its private ref), locked."""
    stmt = (
        select(Customer)
        .where(Customer.customer_list_id == list_id)
        .where(private_ref_filter(KIND, Customer.id, client_id, ref))
        .with_for_update()
    )
    return await session.scalar(stmt)


async def customer_exists(session: AsyncSession, list_id: int, pk: int) -> bool:
    """Whether customer `pk` is one of list `list_id`'s."""
    found = await session.scalar(select(Customer.id).where(Customer.id == pk, Customer.customer_list_id == list_id))
    return bool(found)


def _order(filters: CustomerFilters) -> list[Key]:
    """Oldest first; but with an `email` (else `phone`) filter that is a value or a prefix,
    by that value, then oldest first: each page is then one range of the (list, value, id)
    index, however many customers match and wherever they are in the list (oldest first
    would scan the list's customers until a page of matches is found: 130 ms when they
    are the newest 2% of a million). For an exact value it is oldest first too."""
    if filters.email is not None and is_range(filters.email):
        return [Key(Customer.email_lower, str), Key(Customer.id, int)]
    if filters.phone is not None and is_range(filters.phone):
        return [Key(Customer.phone, str), Key(Customer.id, int)]
    return [Key(Customer.id, int)]


async def customers_page(
    session: AsyncSession, list_id: int, client_id: int, filters: CustomerFilters, page: PageRequest
) -> tuple[list[Customer], Page]:
    """A page of the list's customers matching `filters` (`private_ref`: `client_id`'s own;
    `email` case-insensitively, `phone` exactly; `*` wildcards), in the order of `_order`."""
    stmt = select(Customer).where(Customer.customer_list_id == list_id)
    if filters.private_ref is not None:
        stmt = stmt.where(private_ref_filter(KIND, Customer.id, client_id, filters.private_ref))
    if filters.email is not None:
        stmt = stmt.where(matches(Customer.email_lower, filters.email.lower()))
    if filters.phone is not None:
        stmt = stmt.where(matches(Customer.phone, filters.phone))
    result = await paginate(session, stmt, _order(filters), page)
    return [row[0] for row in result.rows], result


def _name_contains(name: str) -> ColumnElement[bool]:
    """Customers whose "first last" name or company contains `name`, in any case."""
    full = func.coalesce(Customer.first_name, "") + " " + func.coalesce(Customer.last_name, "")
    text = name.lower()
    return or_(
        func.lower(full).contains(text, autoescape=True),
        func.lower(Customer.company_name).contains(text, autoescape=True),
    )


async def search_page(
    session: AsyncSession, list_id: int, name: str, filters: CustomerFilters, page: PageRequest
) -> tuple[list[Customer], Page]:
    """The back office's list: a page of the list's customers whose name contains `name`
    (when given) and matching the API's `email` and `phone` patterns (`customers_page`).
    Newest first; by email (else phone) when that filter is a value or a prefix, each page
    then one range of its index, as in `_order`."""
    stmt = select(Customer).where(Customer.customer_list_id == list_id)
    if name:
        stmt = stmt.where(_name_contains(name))
    if filters.email is not None:
        stmt = stmt.where(matches(Customer.email_lower, filters.email.lower()))
    if filters.phone is not None:
        stmt = stmt.where(matches(Customer.phone, filters.phone))
    keys = _order(filters)
    result = await paginate(session, stmt, keys, page, descending=len(keys) == 1)
    return [row[0] for row in result.rows], result


async def insert_customer(session: AsyncSession, customer: Customer) -> None:
    """A new customer, flushed: it has its id."""
    session.add(customer)
    await session.flush()


async def set_private_ref(session: AsyncSession, customer: Customer, client_id: int, ref: str | None) -> bool:
    """Set (or clear, with None) `client_id`'s private ref on the customer, a ref the caller
    checked (`kit.refs.parse_private_ref`); False, with nothing changed, when another customer
    of its list holds it for that client (the database refuses it)."""
    try:
        async with session.begin_nested():
            if ref is None:
                await delete_private_ref(session, KIND, customer.id, client_id)
            else:
                await upsert_private_ref(session, KIND, customer.id, client_id, ref, customer.customer_list_id)
    except IntegrityError:
        return False
    return True
