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

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.auth.context import Ctx
from comptoir.customer_lists.service import ListInReach, list_in_reach
from comptoir.customers import hooks
from comptoir.customers.service import customer_exists
from comptoir.errors import FieldError, FieldErrors, NotFound, Unprocessable
from comptoir.kit import clock, ids
from comptoir.kit.decimals import render_decimal
from comptoir.kit.pagination import Page, PageRequest
from comptoir.kit.times import render_datetime
from comptoir.kit.wire import shown
from comptoir.loyalty import repository
from comptoir.loyalty.schemas import LoyaltyCardCreate, LoyaltyCardUpdate, LoyaltyOperationCreate
from comptoir.models import Customer, LoyaltyCard, LoyaltyOperation

INITIAL_BALANCE = Decimal("0.0")  # spec 2.6


async def add_to_balance(session: AsyncSession, card_id: int, delta: Decimal) -> Decimal:
    """The card's balance after adding `delta`, atomically: two operations on one card at
    once both count (an operation here, an order's loyalty payment in `orders.service`)."""
    return await repository.add_to_balance(session, card_id, delta)


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
    card = await repository.find_card(session, found.id, pk) if pk is not None else None
    if card is None:
        raise NotFound("loyalty_card", public_id)
    return card


def _ref_taken(ref: str | None) -> Unprocessable:
    # spec 2.6: a ref is unique per customer; at most one card of a customer has no ref
    if ref is None:
        return Unprocessable(FieldError("ref", "the customer already has a loyalty card without ref"))
    return Unprocessable(FieldError("ref", f"the customer already has a loyalty card with ref {shown(ref)}"))


async def _flush_card(session: AsyncSession, card: LoyaltyCard, **changes: Any) -> None:
    """Save a new card, or `changes` to one: the database refuses a second card with the
    same ref (or a second without ref) for the customer."""
    ref = changes.get("ref", card.ref)  # read now: a refused savepoint expires the card
    if not await repository.save_card(session, card, changes):
        raise _ref_taken(ref)


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
    customer_pk = (ids.decode(Customer.KIND, customer_id) or 0) if customer_id is not None else None
    cards, result = await repository.cards_page(session, found.id, page, customer_id=customer_pk, name=name, ref=ref)
    return [render_card(card) for card in cards], result


async def create_card(session: AsyncSession, ctx: Ctx, list_id: str, body: LoyaltyCardCreate) -> dict[str, Any]:
    """POST .../loyalty_cards (spec 4.7): the customer must be one of the list's (422
    otherwise, docs/api/loyalty.md "Cards"); balance "0.0"."""
    found = await list_in_reach(session, ctx, list_id)
    pk = ids.decode(Customer.KIND, body.customer_id)
    if pk is None or not await customer_exists(session, found, pk):
        raise Unprocessable(
            FieldError(
                "customer_id",
                f"no customer with id {shown(body.customer_id)} in customer list {shown(found.public_id)}",
            )
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
    found = await list_in_reach(session, ctx, list_id)
    card = await card_in_list(session, found, card_id)
    changes = {name: getattr(body, name) for name in body.model_fields_set & {"name", "ref"}}
    await _flush_card(session, card, **changes)
    return render_card(card)


# --- operations ---------------------------------------------------------------------------


async def move_balance(
    session: AsyncSession, customer: Customer, ref: str | None, name: str | None, delta: Decimal
) -> tuple[LoyaltyCard, Decimal]:
    """docs/api/orders.md "Loyalty operations": the customer's card with that ref (null
    allowed), created with `name` when the customer has none, moved by `delta` atomically;
    the card and its new balance. The caller holds the customer's row lock."""
    card = await repository.card_of_customer(session, customer.id, ref)
    if card is None:
        card = LoyaltyCard(
            customer_list_id=customer.customer_list_id,
            customer_id=customer.id,
            name=name,
            ref=ref,
            balance=INITIAL_BALANCE,
            created_at=clock.now(),
        )
        await repository.insert(session, card)
    return card, await add_to_balance(session, card.id, delta)


async def record_operations(session: AsyncSession, operations: list[LoyaltyOperation]) -> None:
    """Operations done elsewhere (an order's, `move_balance`), written with their ids."""
    if operations:
        await repository.insert(session, *operations)


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


async def create_operation(
    session: AsyncSession, ctx: Ctx, list_id: str, card_id: str, body: LoyaltyOperationCreate
) -> dict[str, Any]:
    """POST .../operations (spec 4.7): `new_balance` computed atomically; an `order_id`
    must name an existing order (422 otherwise, docs/api/loyalty.md "Operations")."""
    found = await list_in_reach(session, ctx, list_id)
    card = await card_in_list(session, found, card_id)
    errors = FieldErrors()
    order = None
    if body.order_id is not None:
        order = await hooks.find_order(session, found.id, body.order_id)
        if order is None:
            errors.add("order_id", f"no order with id {shown(body.order_id)}")
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
    await repository.insert_operation(session, op)
    return render_operation(op, found.timezone, await repository.location_ids(session, [op]))


async def get_operation(
    session: AsyncSession, ctx: Ctx, list_id: str, card_id: str, operation_id: str
) -> dict[str, Any]:
    found = await list_in_reach(session, ctx, list_id)
    card = await card_in_list(session, found, card_id)
    pk = ids.decode(LoyaltyOperation.KIND, operation_id)
    op = await repository.find_operation(session, card.id, pk) if pk is not None else None
    if op is None:
        raise NotFound("loyalty_operation", operation_id)
    return render_operation(op, found.timezone, await repository.location_ids(session, [op]))


async def list_operations(
    session: AsyncSession, ctx: Ctx, list_id: str, card_id: str, page: PageRequest
) -> tuple[list[dict[str, Any]], Page]:
    """spec 4.7: newest first."""
    found = await list_in_reach(session, ctx, list_id)
    card = await card_in_list(session, found, card_id)
    operations, result = await repository.operations_page(session, card.id, page)
    locations = await repository.location_ids(session, operations)
    return [render_operation(op, found.timezone, locations) for op in operations], result
