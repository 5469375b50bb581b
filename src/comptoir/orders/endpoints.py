"""Orders of a location and of an account, each also at its short form (`http.routing.route`;
docs/api/orders.md)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from pydantic import WithJsonSchema
from starlette.requests import Request
from starlette.responses import Response

from comptoir.accounts.service import account_of
from comptoir.auth.access import require
from comptoir.auth.context import Ctx
from comptoir.db.unit import Unit
from comptoir.http.cursors import Pagination
from comptoir.http.dependencies import Session
from comptoir.http.openapi import IDEMPOTENT, PAGE_RESPONSES, READ_ERRORS, WRITE_ERRORS, body_example
from comptoir.http.routing import ACCOUNT, JSON, LOCATION, UPDATE, ComptoirRoute, plus_literal, route
from comptoir.http.state import app_state
from comptoir.idempotency.service import HEADER, idempotent
from comptoir.kit.ids import ID_SCHEMA
from comptoir.kit.times import DATETIME_QUERY_SCHEMA
from comptoir.locations.service import location_of
from comptoir.orders import service
from comptoir.orders.repository import OrderRepository
from comptoir.orders.schemas import STATUSES, Order, OrderCreate, OrderUpdate
from comptoir.ratelimit import HEAVY

router = APIRouter(route_class=ComptoirRoute, tags=["Orders"])

Reader = Annotated[Ctx, Depends(require("location,account", "orders.read"))]
Writer = Annotated[Ctx, Depends(require("location,account", "orders.write"))]
# docs/api/conventions.md "Rate limits": order lists are heavy queries
HeavyReader = Annotated[Ctx, Depends(require("location,account", "orders.read", HEAVY))]
AccountHeavyReader = Annotated[Ctx, Depends(require("account", "orders.read", HEAVY))]


async def order_filters(
    request: Request,
    private_ref: Annotated[str | None, Query(description="Your private ref of the order.")] = None,
    status: Annotated[
        str | None,
        WithJsonSchema({"type": "string", "enum": list(STATUSES)}),
        Query(description="One of the order statuses (docs/api/orders.md)."),
    ] = None,
    created_by: Annotated[str | None, Query(description="The creating client's name.")] = None,
    after: Annotated[
        str | None,
        WithJsonSchema(DATETIME_QUERY_SCHEMA),
        Query(description="Created at or after this time (inclusive)."),
    ] = None,
    before: Annotated[
        str | None, WithJsonSchema(DATETIME_QUERY_SCHEMA), Query(description="Created before this time (exclusive).")
    ] = None,
    customer_id: Annotated[str | None, WithJsonSchema(ID_SCHEMA), Query(description="Orders of this customer.")] = None,
) -> dict[str, Any]:
    return service.order_filters(
        _query_parameter,
        private_ref=private_ref,
        status=status,
        created_by=created_by,
        after=plus_literal(request, "after", after),
        before=plus_literal(request, "before", before),
        customer_id=customer_id,
    )


def _query_parameter(name: str) -> str:
    return f"Invalid query parameter '{name}'"


Filters = Annotated[dict[str, Any], Depends(order_filters)]


ORDERS = LOCATION + "/orders"
ORDER_EXAMPLE = {
    "status": "new",
    "service_type": "collection",
    "private_ref": "web-1042",
    "items": [
        {"product_name": "Margherita", "price": "10.50 EUR", "quantity": 2},
        {"product_name": "Tiramisu", "price": "6.00 EUR", "quantity": 1, "tax_rate": "10"},
    ],
    "charges": [{"name": "Service", "price": "1.50 EUR"}],
    "payments": [{"amount": "28.50 EUR", "type": "online"}],
}


@route(
    router,
    "POST",
    ORDERS,
    response_model=Order,
    responses=WRITE_ERRORS,
    direct=True,
    openapi_extra={**IDEMPOTENT, **body_example(ORDER_EXAMPLE)},
    summary="Create an order",
    own_summary="Create an order in the connection's location",
)
async def create_order(request: Request, location_id: str | None, body: OrderCreate, ctx: Writer) -> Response:
    """Creates an order at the location: only `status` is required; items, options,
    discounts, charges and payments are priced in the account's currency (another currency is
    a 422), and the totals are computed exactly. Attach a customer with `customer_id`, or with
    `customer_list_id` and your private ref; with neither, `customer` holds a guest's fields.
    Send an `Idempotency-Key` to retry safely. Records an `order.create` event."""
    # The creation's unit of work opens a transaction only when the creation needs one (an
    # Idempotency-Key to keep, a customer to lock, SQLite, an account token); it commits
    # before the response is sent, as the `Session` dependency does.
    state = app_state(request)
    async with Unit(state.db, state.fast) as unit:
        location, account = await location_of(unit, ctx, location_id)
        orders = OrderRepository(unit, state.cache)

        async def create() -> Any:
            return await service.create_order(orders, ctx, location, account, body)

        if request.headers.get(HEADER) is None:
            return JSON(await create())
        return await idempotent(request, await unit.session(), ctx, create)


@route(
    router,
    "GET",
    ORDERS + "/{order_id}",
    response_model=Order,
    responses=READ_ERRORS,
    direct=True,
    summary="Get an order",
    own_summary="Get an order of the connection's location",
)
async def get_order(request: Request, location_id: str | None, order_id: str, ctx: Reader) -> JSON:
    """The order with its elements (deleted ones included, marked `deleted`), totals, customer
    and your own private refs; every reader sees the same order, except for private refs."""
    # One unit of work. A location-level connection's own location needs no read: then one
    # statement on the direct driver, no transaction, the hot read of a point of sale
    # (benchmarks/orders.py); a location read by an account token opens the unit's (read)
    # transaction, and the order is read in it.
    state = app_state(request)
    async with Unit(state.db, state.fast, write=False) as unit:
        location, _account = await location_of(unit, ctx, location_id)
        return JSON(await service.get_order(OrderRepository(unit), ctx, location, order_id))


@route(
    router,
    "GET",
    ORDERS,
    response_model=list[Order],
    responses=PAGE_RESPONSES,
    summary="List a location's orders, newest first",
    own_summary="List the connection's location's orders, newest first",
)
async def list_orders(
    request: Request, location_id: str | None, ctx: HeavyReader, page: Pagination, filters: Filters
) -> JSON:
    """The location's orders, newest first, a page at a time, filtered by `private_ref`,
    `status`, `created_by`, `after`, `before` (without an offset: in the location's time zone)
    and `customer_id`. A heavy query for the rate limits."""
    # One unit of work, as for an order GET: a location-level connection's own location needs
    # no read, and the page is then one statement on the direct driver, without a transaction.
    state = app_state(request)
    async with Unit(state.db, state.fast, write=False) as unit:
        location, _account = await location_of(unit, ctx, location_id)
        body, result = await service.list_orders(
            OrderRepository(unit), ctx.client_id, page, filters, locations={location.id: location}, encoded=True
        )
    return JSON(body, headers=result.headers())


@route(
    router,
    "GET",
    ACCOUNT + "/orders",
    response_model=list[Order],
    responses=PAGE_RESPONSES,
    summary="List an account's orders",
    own_summary="List the connection's account's orders",
)
async def list_account_orders(
    account_id: str | None, session: Session, ctx: AccountHeavyReader, page: Pagination, filters: Filters
) -> JSON:
    """The orders of every location of the account, newest first, with the same filters as a
    location's list (`after` and `before` without an offset read in UTC). A heavy query."""
    account = account_of(ctx, account_id)
    orders = OrderRepository(Unit.of(session))
    locations = await orders.locations_of(account.id)
    body, result = await service.list_orders(
        orders, ctx.client_id, page, filters, locations=locations, account_id=account.id, encoded=True
    )
    return JSON(body, headers=result.headers())


@route(
    router,
    UPDATE,
    ORDERS + "/{order_id}",
    response_model=Order,
    responses=WRITE_ERRORS,
    summary="Update an order",
    own_summary="Update an order of the connection's location",
    openapi_extra=body_example({"status": "accepted", "items": [{"id": "b3k8qw", "private_ref": "line-1"}]}),
)
async def update_order(
    location_id: str | None, order_id: str, body: OrderUpdate, session: Session, ctx: Writer
) -> JSON:
    """Changes `status` (any status may follow any other), `confirmed_time`,
    `driver_pickup_url`, `seller_notes`, `collection_code`, `private_ref` and `custom_fields`.
    In `items`, `discounts`, `charges` and `payments`, an element is added in full, deleted with
    `{"id": ..., "deleted": true}`, or given your private ref with `{"id": ..., "private_ref":
    ...}`; elements are never modified otherwise. Records an `order.update` event."""
    location, _account = await location_of(session, ctx, location_id)
    orders = OrderRepository(Unit.of(session))
    order = await service.order_for_update(orders, location.id, order_id)
    return JSON(await service.update_order(orders, ctx, location, order, body))
