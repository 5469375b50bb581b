"""spec 4.1: orders of a location (and the /location short forms), and of an account."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from starlette.requests import Request
from starlette.responses import Response

from comptoir.accounts.service import account_in_reach, connection_account
from comptoir.auth.access import require
from comptoir.auth.context import Ctx
from comptoir.db.unit import Unit
from comptoir.errors import BadRequest
from comptoir.http.dependencies import Session
from comptoir.http.idempotency import HEADER, idempotent
from comptoir.http.openapi import PAGE_RESPONSES, READ_ERRORS, WRITE_ERRORS
from comptoir.http.routing import JSON, ComptoirRoute, plus_literal, served_directly, update_route
from comptoir.http.state import app_state
from comptoir.kit.pagination import Pagination
from comptoir.kit.times import parse_datetime
from comptoir.kit.wire import WireError
from comptoir.locations.service import connection_location, location_in_reach, snapshot_in_reach
from comptoir.models.accounts import AccountRef
from comptoir.models.locations import LocationRef
from comptoir.orders import service
from comptoir.orders.repository import OrderRepository
from comptoir.orders.schemas import STATUSES, Order, OrderCreate, OrderUpdate
from comptoir.ratelimit import HEAVY

router = APIRouter(route_class=ComptoirRoute, tags=["Orders"])

Reader = Annotated[Ctx, Depends(require("location,account", "orders.read"))]
Writer = Annotated[Ctx, Depends(require("location,account", "orders.write"))]
LocationReader = Annotated[Ctx, Depends(require("location", "orders.read"))]
LocationWriter = Annotated[Ctx, Depends(require("location", "orders.write"))]
# decisions.md "Rate limits": order lists are heavy queries
HeavyReader = Annotated[Ctx, Depends(require("location,account", "orders.read", HEAVY))]
LocationHeavyReader = Annotated[Ctx, Depends(require("location", "orders.read", HEAVY))]
AccountHeavyReader = Annotated[Ctx, Depends(require("account", "orders.read", HEAVY))]


def _time(name: str, value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return parse_datetime(value)
    except WireError as exc:
        raise BadRequest(f"Invalid query parameter {name!r}: {exc}") from None


def order_filters(
    request: Request,
    private_ref: Annotated[str | None, Query(description="Your private ref of the order.")] = None,
    status: Annotated[str | None, Query(description="One of the order statuses (spec 3.1).")] = None,
    created_by: Annotated[str | None, Query(description="The creating client's name.")] = None,
    after: Annotated[str | None, Query(description="Created at or after this time (inclusive).")] = None,
    before: Annotated[str | None, Query(description="Created before this time (exclusive).")] = None,
    customer_id: Annotated[str | None, Query(description="Orders of this customer.")] = None,
) -> dict[str, Any]:
    if status is not None and status not in STATUSES:
        raise BadRequest(f"Invalid query parameter 'status': {status!r} is not an order status")
    return {
        "private_ref": private_ref,
        "status": status,
        "created_by": created_by,
        "after": _time("after", plus_literal(request, "after", after)),
        "before": _time("before", plus_literal(request, "before", before)),
        "customer_id": customer_id,
    }


Filters = Annotated[dict[str, Any], Depends(order_filters)]


LOCATION_ORDERS = "/locations/{location_id}/orders"


def _reads(request: Request) -> OrderRepository:
    """Reads of one order need no transaction: the direct driver."""
    state = app_state(request)
    return OrderRepository(Unit(state.db, state.fast))


OWN_ORDERS = "/location/orders"


async def _create(request: Request, ctx: Ctx, body: OrderCreate, location_id: str | None) -> Response:
    """The creation's unit of work opens a transaction only when the creation needs one (an
    Idempotency-Key to keep, a customer to lock, SQLite); it commits before the response is
    sent, as the `Session` dependency does."""
    state = app_state(request)
    async with Unit(state.db, state.fast) as unit:
        location: LocationRef
        account: AccountRef
        if ctx.level != "location":
            assert location_id is not None  # the short form is for location tokens
            location, account = await location_in_reach(await unit.session(), ctx, location_id)
        elif location_id is not None:
            location, account = snapshot_in_reach(ctx, location_id)
        else:
            assert ctx.location is not None
            assert ctx.account is not None
            location, account = ctx.location, ctx.account
        orders = OrderRepository(unit, state.cache)

        async def create() -> Any:
            return await service.create_order(orders, ctx, location, account, body)

        if request.headers.get(HEADER) is None:
            return JSON(await create())
        return await idempotent(request, await unit.session(), ctx, create)


@router.post(LOCATION_ORDERS, response_model=Order, responses=WRITE_ERRORS, summary="Create an order")
@served_directly(require("location,account", "orders.write"), OrderCreate)
async def create_order(request: Request, location_id: str, body: OrderCreate, ctx: Writer) -> Response:
    return await _create(request, ctx, body, location_id)


@router.post(
    OWN_ORDERS, response_model=Order, responses=WRITE_ERRORS, summary="Create an order in the connection's location"
)
@served_directly(require("location", "orders.write"), OrderCreate)
async def create_own_order(request: Request, body: OrderCreate, ctx: LocationWriter) -> Response:
    return await _create(request, ctx, body, None)


@router.get(LOCATION_ORDERS + "/{order_id}", response_model=Order, responses=READ_ERRORS, summary="Get an order")
async def get_order(request: Request, location_id: str, order_id: str, session: Session, ctx: Reader) -> JSON:
    location, _account = await location_in_reach(session, ctx, location_id)
    return JSON(await service.get_order(_reads(request), ctx, location, order_id))


@router.get(
    OWN_ORDERS + "/{order_id}",
    response_model=Order,
    responses=READ_ERRORS,
    summary="Get an order of the connection's location",
)
async def get_own_order(request: Request, order_id: str, ctx: LocationReader) -> JSON:
    # one statement, no session: the hot read of a point of sale (benchmarks/orders.py)
    assert ctx.location is not None
    return JSON(await service.get_order(_reads(request), ctx, ctx.location, order_id))


@router.get(
    LOCATION_ORDERS,
    response_model=list[Order],
    responses=PAGE_RESPONSES,
    summary="List a location's orders, newest first",
)
async def list_orders(location_id: str, session: Session, ctx: HeavyReader, page: Pagination, filters: Filters) -> JSON:
    location, _account = await location_in_reach(session, ctx, location_id)
    body, result = await service.list_orders(
        OrderRepository.of(session), ctx.client_id, page, filters, locations={location.id: location}
    )
    return JSON(body, headers=result.headers())


@router.get(
    OWN_ORDERS,
    response_model=list[Order],
    responses=PAGE_RESPONSES,
    summary="List the connection's location's orders, newest first",
)
async def list_own_orders(session: Session, ctx: LocationHeavyReader, page: Pagination, filters: Filters) -> JSON:
    location, _account = await connection_location(session, ctx)
    body, result = await service.list_orders(
        OrderRepository.of(session), ctx.client_id, page, filters, locations={location.id: location}
    )
    return JSON(body, headers=result.headers())


async def _account_orders(session: Any, ctx: Ctx, account_id: int, page: Any, filters: dict[str, Any]) -> JSON:
    orders = OrderRepository.of(session)
    locations = await orders.locations_of(account_id)
    body, result = await service.list_orders(
        orders, ctx.client_id, page, filters, locations=locations, account_id=account_id
    )
    return JSON(body, headers=result.headers())


@router.get(
    "/accounts/{account_id}/orders",
    response_model=list[Order],
    responses=PAGE_RESPONSES,
    summary="List an account's orders",
)
async def list_account_orders(
    account_id: str, session: Session, ctx: AccountHeavyReader, page: Pagination, filters: Filters
) -> JSON:
    return await _account_orders(session, ctx, account_in_reach(ctx, account_id).id, page, filters)


@router.get(
    "/account/orders",
    response_model=list[Order],
    responses=PAGE_RESPONSES,
    summary="List the connection's account's orders",
)
async def list_own_account_orders(
    session: Session, ctx: AccountHeavyReader, page: Pagination, filters: Filters
) -> JSON:
    return await _account_orders(session, ctx, connection_account(ctx).id, page, filters)


@update_route(
    router, LOCATION_ORDERS + "/{order_id}", response_model=Order, responses=WRITE_ERRORS, summary="Update an order"
)
async def update_order(location_id: str, order_id: str, body: OrderUpdate, session: Session, ctx: Writer) -> JSON:
    location, _account = await location_in_reach(session, ctx, location_id)
    orders = OrderRepository.of(session)
    order = await service.order_for_update(orders, location.id, order_id)
    return JSON(await service.update_order(orders, ctx, location, order, body))


@update_route(
    router,
    OWN_ORDERS + "/{order_id}",
    response_model=Order,
    responses=WRITE_ERRORS,
    summary="Update an order of the connection's location",
)
async def update_own_order(order_id: str, body: OrderUpdate, session: Session, ctx: LocationWriter) -> JSON:
    location, _account = await connection_location(session, ctx)
    orders = OrderRepository.of(session)
    order = await service.order_for_update(orders, location.id, order_id)
    return JSON(await service.update_order(orders, ctx, location, order, body))
