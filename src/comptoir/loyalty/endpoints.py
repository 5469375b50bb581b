"""Loyalty cards and operations of a customer list (docs/api/loyalty.md)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query
from starlette.requests import Request
from starlette.responses import Response

from comptoir.auth.access import require
from comptoir.auth.context import Ctx
from comptoir.customer_lists.service import READ_NEED, WRITE_NEED, WRITES_CUSTOMERS
from comptoir.http.cursors import Pagination
from comptoir.http.dependencies import Session
from comptoir.http.openapi import IDEMPOTENT, PAGE_RESPONSES, READ_ERRORS, WRITE_ERRORS, answer_example, body_example
from comptoir.http.routing import JSON, UPDATE, ComptoirRoute, route
from comptoir.idempotency.service import idempotent
from comptoir.loyalty import service
from comptoir.loyalty.schemas import (
    LoyaltyCard,
    LoyaltyCardCreate,
    LoyaltyCardUpdate,
    LoyaltyOperation,
    LoyaltyOperationCreate,
)

router = APIRouter(route_class=ComptoirRoute, tags=["Loyalty"])

Reader = Annotated[Ctx, Depends(require("location,account", READ_NEED))]
Writer = Annotated[Ctx, Depends(require("location,account", WRITE_NEED, on=WRITES_CUSTOMERS))]
CARDS = "/customer_lists/{customer_list_id}/loyalty_cards"
CARD = CARDS + "/{loyalty_card_id}"
OPERATIONS = CARD + "/operations"
CARD_EXAMPLE = {"id": "y7d2hs", "customer_id": "c4n8vd", "name": "Points", "ref": "CARD-0042", "balance": "42.5"}
OPERATION_EXAMPLE = {
    "id": "z3m9ka",
    "customer_id": "c4n8vd",
    "created_at": "2026-06-24T19:05:00+02:00",
    "order_location_id": "4k3jxr-1",
    "order_id": "a7d9kp",
    "reason": None,
    "delta": "-10.5",
    "new_balance": "32.0",
}


@router.get(
    CARDS,
    response_model=list[LoyaltyCard],
    responses=answer_example(PAGE_RESPONSES, [CARD_EXAMPLE]),
    summary="List loyalty cards",
)
async def list_cards(
    customer_list_id: str,
    session: Session,
    ctx: Reader,
    page: Pagination,
    customer_id: Annotated[str | None, Query(description="Cards of this customer.")] = None,
    name: Annotated[str | None, Query(description="Cards with this name (exact).")] = None,
    ref: Annotated[str | None, Query(description="Cards with this ref (exact).")] = None,
) -> JSON:
    """The list's loyalty cards, oldest first, a page at a time, filtered by `customer_id`,
    `name` or `ref`."""
    body, result = await service.list_cards(
        session, ctx, customer_list_id, page, customer_id=customer_id, name=name, ref=ref
    )
    return JSON(body, headers=result.headers())


@router.get(CARD, response_model=LoyaltyCard, responses=READ_ERRORS, summary="Get a loyalty card")
async def get_card(customer_list_id: str, loyalty_card_id: str, session: Session, ctx: Reader) -> JSON:
    """The card with its customer, name, ref and current balance (an exact decimal)."""
    return JSON(await service.get_card(session, ctx, customer_list_id, loyalty_card_id))


@router.post(
    CARDS,
    response_model=LoyaltyCard,
    responses=WRITE_ERRORS,
    summary="Create a loyalty card",
    openapi_extra=body_example({"customer_id": "c4n8vd", "name": "Points", "ref": "CARD-0042"}),
)
async def create_card(customer_list_id: str, body: LoyaltyCardCreate, session: Session, ctx: Writer) -> JSON:
    """Gives a customer of the list a card, whose balance starts at `"0.0"`. `customer_id`
    is required; a card's `ref` is unique per customer, and one card of a customer may have
    none. Records no event."""
    return JSON(await service.create_card(session, ctx, customer_list_id, body))


@route(
    router,
    UPDATE,
    CARD,
    response_model=LoyaltyCard,
    responses=WRITE_ERRORS,
    summary="Update a loyalty card's name or ref",
    openapi_extra=body_example({"name": "Gold points"}),
)
async def update_card(
    customer_list_id: str, loyalty_card_id: str, body: LoyaltyCardUpdate, session: Session, ctx: Writer
) -> JSON:
    """Changes the card's `name` or `ref`; `customer_id` and `balance` cannot be written
    (only operations move the balance)."""
    return JSON(await service.update_card(session, ctx, customer_list_id, loyalty_card_id, body))


@router.get(
    OPERATIONS,
    response_model=list[LoyaltyOperation],
    responses=answer_example(PAGE_RESPONSES, [OPERATION_EXAMPLE]),
    summary="List a card's operations, newest first",
)
async def list_operations(
    customer_list_id: str, loyalty_card_id: str, session: Session, ctx: Reader, page: Pagination
) -> JSON:
    """The card's operations, newest first, a page at a time."""
    body, result = await service.list_operations(session, ctx, customer_list_id, loyalty_card_id, page)
    return JSON(body, headers=result.headers())


@router.get(
    OPERATIONS + "/{operation_id}", response_model=LoyaltyOperation, responses=READ_ERRORS, summary="Get an operation"
)
async def get_operation(
    customer_list_id: str, loyalty_card_id: str, operation_id: str, session: Session, ctx: Reader
) -> JSON:
    """One operation of the card, with the balance it left (`new_balance`)."""
    return JSON(await service.get_operation(session, ctx, customer_list_id, loyalty_card_id, operation_id))


@router.post(
    OPERATIONS,
    response_model=LoyaltyOperation,
    responses=WRITE_ERRORS,
    summary="Add an operation to a card: its balance moves by delta",
    openapi_extra={**IDEMPOTENT, **body_example({"delta": "-10.5", "order_id": "a7d9kp"})},
)
async def create_operation(
    request: Request,
    customer_list_id: str,
    loyalty_card_id: str,
    body: LoyaltyOperationCreate,
    session: Session,
    ctx: Writer,
) -> Response:
    """Moves the card's balance by `delta`, an exact decimal that may be negative (the balance
    may go below zero). Concurrent operations apply one after another, none lost; the answer
    carries `new_balance`. Operations are never changed: reverse one with its opposite. An
    `order_id` must name an order of the list's account. Send an `Idempotency-Key` to retry
    safely."""
    return await idempotent(
        request,
        session,
        ctx,
        lambda: service.create_operation(session, ctx, customer_list_id, loyalty_card_id, body),
    )
