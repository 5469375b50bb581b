"""Every statement about loyalty cards and operations, among them the atomic balance update
(`add_to_balance`). The rules are `loyalty.service`'s."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlalchemy import Numeric, literal, select, type_coerce, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.db.engine import dialect_name
from comptoir.db.keyset import Key, paginate
from comptoir.kit.decimals import exact_add
from comptoir.kit.pagination import Page, PageRequest
from comptoir.models import Location, LoyaltyCard, LoyaltyOperation

# --- cards --------------------------------------------------------------------------------


async def find_card(session: AsyncSession, list_id: int, pk: int) -> LoyaltyCard | None:
    """Card `pk` of list `list_id`, read afresh (a balance may have moved)."""
    stmt = select(LoyaltyCard).where(LoyaltyCard.id == pk, LoyaltyCard.customer_list_id == list_id)
    return await session.scalar(stmt.execution_options(populate_existing=True))


async def cards_page(
    session: AsyncSession,
    list_id: int,
    page: PageRequest,
    *,
    customer_id: int | None,
    name: str | None,
    ref: str | None,
) -> tuple[list[LoyaltyCard], Page]:
    """A page of the list's cards, oldest first, with each given filter equal."""
    stmt = select(LoyaltyCard).where(LoyaltyCard.customer_list_id == list_id)
    if customer_id is not None:
        stmt = stmt.where(LoyaltyCard.customer_id == customer_id)
    if name is not None:
        stmt = stmt.where(LoyaltyCard.name == name)
    if ref is not None:
        stmt = stmt.where(LoyaltyCard.ref == ref)
    result = await paginate(session, stmt, [Key(LoyaltyCard.id, int)], page)
    return [row[0] for row in result.rows], result


async def card_of_customer(session: AsyncSession, customer_id: int, ref: str | None) -> LoyaltyCard | None:
    """The customer's card with that ref (None: its card without ref)."""
    condition = LoyaltyCard.ref.is_(None) if ref is None else LoyaltyCard.ref == ref
    stmt = select(LoyaltyCard).where(LoyaltyCard.customer_id == customer_id, condition)
    return await session.scalar(stmt)


async def insert(session: AsyncSession, *rows: LoyaltyCard | LoyaltyOperation) -> None:
    """New cards or operations, flushed: they have their ids."""
    session.add_all(rows)
    await session.flush()


async def save_card(session: AsyncSession, card: LoyaltyCard, changes: dict[str, Any]) -> bool:
    """Save a new card, or `changes` to one, inside a savepoint; False, with nothing saved,
    when the database refuses a second card with the same ref (or a second without ref) for
    the customer. A refused savepoint expires the card."""
    try:
        async with session.begin_nested():
            for name, value in changes.items():
                setattr(card, name, value)
            session.add(card)
            await session.flush()
    except IntegrityError:
        return False
    return True


async def add_to_balance(session: AsyncSession, card_id: int, delta: Decimal) -> Decimal:
    """The card's balance after adding `delta`, atomically (`loyalty.service`'s docstring):
    one UPDATE ... RETURNING on PostgreSQL, read-add-write under SQLite's write lock."""
    if dialect_name(session) == "postgresql":
        stmt = (
            update(LoyaltyCard)
            .where(LoyaltyCard.id == card_id)
            .values(balance=type_coerce(LoyaltyCard.balance, Numeric()) + literal(delta, Numeric()))
            .returning(LoyaltyCard.balance)
            .execution_options(synchronize_session=False)
        )
        return (await session.execute(stmt)).scalar_one()
    current = (await session.execute(select(LoyaltyCard.balance).where(LoyaltyCard.id == card_id))).scalar_one()
    new = exact_add(current, delta)
    write = update(LoyaltyCard).where(LoyaltyCard.id == card_id).values(balance=new)
    await session.execute(write.execution_options(synchronize_session=False))
    return new


# --- operations ---------------------------------------------------------------------------


async def insert_operation(session: AsyncSession, op: LoyaltyOperation) -> None:
    """A new operation, flushed: it has its id."""
    session.add(op)
    await session.flush()


async def find_operation(session: AsyncSession, card_id: int, pk: int) -> LoyaltyOperation | None:
    stmt = select(LoyaltyOperation).where(LoyaltyOperation.id == pk, LoyaltyOperation.loyalty_card_id == card_id)
    return await session.scalar(stmt)


async def operations_page(
    session: AsyncSession, card_id: int, page: PageRequest
) -> tuple[list[LoyaltyOperation], Page]:
    """A page of the card's operations, newest first."""
    stmt = select(LoyaltyOperation).where(LoyaltyOperation.loyalty_card_id == card_id)
    result = await paginate(session, stmt, [Key(LoyaltyOperation.id, int)], page, descending=True)
    return [row[0] for row in result.rows], result


async def latest_operations(session: AsyncSession, card_id: int, limit: int) -> list[LoyaltyOperation]:
    """The card's `limit` newest operations, newest first (the back office's customer page)."""
    stmt = (
        select(LoyaltyOperation)
        .where(LoyaltyOperation.loyalty_card_id == card_id)
        .order_by(LoyaltyOperation.id.desc())
        .limit(limit)
    )
    return list(await session.scalars(stmt))


async def location_ids(session: AsyncSession, operations: list[LoyaltyOperation]) -> dict[int, str]:
    """{location pk: public id} of the locations of the operations' orders."""
    wanted = {op.order_location_id for op in operations if op.order_location_id is not None}
    if not wanted:
        return {}
    rows = await session.scalars(select(Location).where(Location.id.in_(wanted)))
    return {location.id: location.public_id for location in rows}
