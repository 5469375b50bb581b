"""Loyalty cards and operations (spec 2.6, 4.7).

A card's balance changes only through an operation, and each operation's `new_balance` is
the balance right after it: on PostgreSQL one `UPDATE ... SET balance = balance + :delta
RETURNING balance` (NUMERIC, exact, under the row lock the UPDATE takes); on SQLite the
write transaction holds the database lock from its first statement (`BEGIN IMMEDIATE`), so
read-add-write cannot interleave, across processes too. Either way concurrent operations on
one card serialise, and their new balances are consecutive.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlalchemy import Numeric, literal, select, type_coerce, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.auth.context import Ctx
from comptoir.customer_lists.service import ListInReach, list_in_reach
from comptoir.customers import hooks
from comptoir.errors import FieldError, FieldErrors, NotFound, Unprocessable
from comptoir.kit import clock, ids
from comptoir.kit.decimals import exact_add, render_decimal
from comptoir.kit.pagination import Key, Page, PageRequest, paginate
from comptoir.kit.times import render_datetime
from comptoir.loyalty.schemas import LoyaltyCardCreate, LoyaltyCardUpdate, LoyaltyOperationCreate
from comptoir.models import Customer, Location, LoyaltyCard, LoyaltyOperation

INITIAL_BALANCE = Decimal("0.0")  # spec 2.6


# --- cards --------------------------------------------------------------------------------


def render_card(card: LoyaltyCard) -> dict[str, Any]:
    return {
        "id": card.public_id,
        "customer_id": ids.encode(Customer.KIND, card.customer_id),
        "name": card.name,
        "ref": card.ref,
        "balance": render_decimal(card.balance),
    }


async def card_in_list(session: AsyncSession, found: ListInReach, public_id: str) -> LoyaltyCard:
    pk = ids.decode(LoyaltyCard.KIND, public_id)
    card = None
    if pk is not None:
        stmt = select(LoyaltyCard).where(LoyaltyCard.id == pk, LoyaltyCard.customer_list_id == found.id)
        card = await session.scalar(stmt.execution_options(populate_existing=True))
    if card is None:
        raise NotFound("loyalty_card", public_id)
    return card


def _ref_taken(ref: str | None) -> Unprocessable:
    # spec 2.6: a ref is unique per customer; at most one card of a customer has no ref
    if ref is None:
        return Unprocessable(FieldError("ref", "the customer already has a loyalty card without ref"))
    return Unprocessable(FieldError("ref", f"the customer already has a loyalty card with ref {ref!r}"))


async def _flush_card(session: AsyncSession, card: LoyaltyCard, **changes: Any) -> None:
    """Save a new card, or `changes` to one, inside a savepoint: the database refuses a
    second card with the same ref (or a second without ref) for the customer."""
    ref = changes.get("ref", card.ref)  # read now: a refused savepoint expires the card
    try:
        async with session.begin_nested():
            for name, value in changes.items():
                setattr(card, name, value)
            session.add(card)
            await session.flush()
    except IntegrityError:
        raise _ref_taken(ref) from None


async def get_card(session: AsyncSession, ctx: Ctx, list_id: str, card_id: str) -> dict[str, Any]:
    found = await list_in_reach(session, ctx, list_id)
    return render_card(await card_in_list(session, found, card_id))


async def list_cards(
    session: AsyncSession,
    ctx: Ctx,
    list_id: str,
    page: PageRequest,
    *,
    customer_id: str | None,
    name: str | None,
    ref: str | None,
) -> tuple[list[dict[str, Any]], Page]:
    """spec 4.7: filters `customer_id`, `name`, `ref` (exact)."""
    found = await list_in_reach(session, ctx, list_id)
    stmt = select(LoyaltyCard).where(LoyaltyCard.customer_list_id == found.id)
    if customer_id is not None:
        stmt = stmt.where(LoyaltyCard.customer_id == (ids.decode(Customer.KIND, customer_id) or 0))
    if name is not None:
        stmt = stmt.where(LoyaltyCard.name == name)
    if ref is not None:
        stmt = stmt.where(LoyaltyCard.ref == ref)
    result = await paginate(session, stmt, [Key(LoyaltyCard.id, int)], page)
    return [render_card(row[0]) for row in result.rows], result


async def create_card(session: AsyncSession, ctx: Ctx, list_id: str, body: LoyaltyCardCreate) -> dict[str, Any]:
    """POST .../loyalty_cards (spec 4.7): the customer must be one of the list's (422
    otherwise, decisions.md); balance "0.0"."""
    found = await list_in_reach(session, ctx, list_id, right="write")
    pk = ids.decode(Customer.KIND, body.customer_id)
    exists = pk is not None and await session.scalar(
        select(Customer.id).where(Customer.id == pk, Customer.customer_list_id == found.id)
    )
    if not exists:
        raise Unprocessable(
            FieldError("customer_id", f"no customer with id {body.customer_id!r} in customer list {found.public_id!r}")
        )
    card = LoyaltyCard(
        customer_list_id=found.id,
        customer_id=pk,
        name=body.name,
        ref=body.ref,
        balance=INITIAL_BALANCE,
        created_at=clock.now(),
    )
    await _flush_card(session, card)
    return render_card(card)


async def update_card(
    session: AsyncSession, ctx: Ctx, list_id: str, card_id: str, body: LoyaltyCardUpdate
) -> dict[str, Any]:
    """PATCH/PUT (spec 4.7): `name` and `ref` only."""
    found = await list_in_reach(session, ctx, list_id, right="write")
    card = await card_in_list(session, found, card_id)
    changes = {name: getattr(body, name) for name in body.model_fields_set & {"name", "ref"}}
    await _flush_card(session, card, **changes)
    return render_card(card)


# --- operations ---------------------------------------------------------------------------


async def _locations(session: AsyncSession, operations: list[LoyaltyOperation]) -> dict[int, str]:
    wanted = {op.order_location_id for op in operations if op.order_location_id is not None}
    if not wanted:
        return {}
    rows = await session.scalars(select(Location).where(Location.id.in_(wanted)))
    return {location.id: location.public_id for location in rows}


def render_operation(op: LoyaltyOperation, timezone: str, locations: dict[int, str]) -> dict[str, Any]:
    return {
        "id": op.public_id,
        "customer_id": ids.encode(Customer.KIND, op.customer_id),
        "created_at": render_datetime(op.created_at, timezone),
        "order_location_id": locations.get(op.order_location_id) if op.order_location_id else None,
        "order_id": ids.encode("order", op.order_id) if op.order_id is not None else None,
        "reason": op.reason,
        "delta": render_decimal(op.delta),
        "new_balance": render_decimal(op.new_balance),
    }


async def add_to_balance(session: AsyncSession, card_id: int, delta: Decimal) -> Decimal:
    """The card's balance after adding `delta`, atomically (see the module docstring)."""
    if session.bind.dialect.name == "postgresql":
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
    stmt = update(LoyaltyCard).where(LoyaltyCard.id == card_id).values(balance=new)
    await session.execute(stmt.execution_options(synchronize_session=False))
    return new


async def create_operation(
    session: AsyncSession, ctx: Ctx, list_id: str, card_id: str, body: LoyaltyOperationCreate
) -> dict[str, Any]:
    """POST .../operations (spec 4.7): `new_balance` computed atomically; an `order_id`
    must name an existing order (422 otherwise, decisions.md)."""
    found = await list_in_reach(session, ctx, list_id, right="write")
    card = await card_in_list(session, found, card_id)
    errors = FieldErrors()
    order = None
    if body.order_id is not None:
        order = await hooks.find_order(session, found.id, body.order_id)
        if order is None:
            errors.add("order_id", f"no order with id {body.order_id!r}")
    errors.raise_if_any()
    new_balance = await add_to_balance(session, card.id, body.delta)
    op = LoyaltyOperation(
        loyalty_card_id=card.id,
        customer_id=card.customer_id,
        delta=body.delta,
        new_balance=new_balance,
        reason=body.reason,
        order_id=order[0] if order else None,
        order_location_id=order[1] if order else None,
        created_at=clock.now(),
    )
    session.add(op)
    await session.flush()
    return render_operation(op, found.timezone, await _locations(session, [op]))


async def get_operation(
    session: AsyncSession, ctx: Ctx, list_id: str, card_id: str, operation_id: str
) -> dict[str, Any]:
    found = await list_in_reach(session, ctx, list_id)
    card = await card_in_list(session, found, card_id)
    pk = ids.decode(LoyaltyOperation.KIND, operation_id)
    op = None
    if pk is not None:
        stmt = select(LoyaltyOperation).where(LoyaltyOperation.id == pk, LoyaltyOperation.loyalty_card_id == card.id)
        op = await session.scalar(stmt)
    if op is None:
        raise NotFound("loyalty_operation", operation_id)
    return render_operation(op, found.timezone, await _locations(session, [op]))


async def list_operations(
    session: AsyncSession, ctx: Ctx, list_id: str, card_id: str, page: PageRequest
) -> tuple[list[dict[str, Any]], Page]:
    """spec 4.7: newest first."""
    found = await list_in_reach(session, ctx, list_id)
    card = await card_in_list(session, found, card_id)
    stmt = select(LoyaltyOperation).where(LoyaltyOperation.loyalty_card_id == card.id)
    result = await paginate(session, stmt, [Key(LoyaltyOperation.id, int)], page, descending=True)
    operations = [row[0] for row in result.rows]
    locations = await _locations(session, operations)
    return [render_operation(op, found.timezone, locations) for op in operations], result
