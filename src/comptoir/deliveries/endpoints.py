"""spec 4.2: delivery quotes and the delivery of an order, under
/locations/:location_id/orders/:order_id and the /location/orders/:order_id short form.
Access: `orders.read` / `orders.write` (decisions.md "Access")."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request
from starlette.responses import Response

from comptoir.auth.access import require
from comptoir.auth.context import Ctx
from comptoir.deliveries import service
from comptoir.deliveries.schemas import Delivery, DeliveryCreate, DeliveryUpdate, Quote, QuoteCreate
from comptoir.http.dependencies import Session
from comptoir.http.idempotency import idempotent
from comptoir.http.openapi import READ_ERRORS, WRITE_ERRORS
from comptoir.http.routing import JSON, ComptoirRoute, update_route
from comptoir.locations.service import connection_location, location_in_reach
from comptoir.models import Order
from comptoir.orders.service import order_in_location

router = APIRouter(route_class=ComptoirRoute, tags=["Deliveries"])

Reader = Annotated[Ctx, Depends(require("location,account", "orders.read"))]
Writer = Annotated[Ctx, Depends(require("location,account", "orders.write"))]
LocationReader = Annotated[Ctx, Depends(require("location", "orders.read"))]
LocationWriter = Annotated[Ctx, Depends(require("location", "orders.write"))]
FULL = "/locations/{location_id}/orders/{order_id}"
SHORT = "/location/orders/{order_id}"


async def _order(
    session: AsyncSession, ctx: Ctx, order_id: str, location_id: str | None, *, for_update: bool = False
) -> tuple[Any, Order]:
    if location_id is None:
        location, _account = await connection_location(session, ctx)
    else:
        location, _account = await location_in_reach(session, ctx, location_id)
    return location, await order_in_location(session, location.id, order_id, for_update=for_update)


# Each operation exists under both prefixes; the short form needs a location-level token.


@router.post(FULL + "/delivery_quotes", response_model=Quote, responses=WRITE_ERRORS, summary="Create a delivery quote")
async def create_quote(
    request: Request, location_id: str, order_id: str, body: QuoteCreate, session: Session, ctx: Writer
) -> Response:
    location, order = await _order(session, ctx, order_id, location_id, for_update=True)
    return await idempotent(request, session, ctx, lambda: service.create_quote(session, ctx, location, order, body))


@router.post(
    SHORT + "/delivery_quotes", response_model=Quote, responses=WRITE_ERRORS, summary="Create a delivery quote"
)
async def create_own_quote(
    request: Request, order_id: str, body: QuoteCreate, session: Session, ctx: LocationWriter
) -> Response:
    location, order = await _order(session, ctx, order_id, None, for_update=True)
    return await idempotent(request, session, ctx, lambda: service.create_quote(session, ctx, location, order, body))


@router.post(
    FULL + "/delivery_quotes/{quote_id}/accept", response_model=Quote, responses=READ_ERRORS, summary="Accept a quote"
)
async def accept_quote(location_id: str, order_id: str, quote_id: str, session: Session, ctx: Writer) -> JSON:
    location, order = await _order(session, ctx, order_id, location_id, for_update=True)
    return JSON(await service.accept_quote(session, ctx, location, order, quote_id))


@router.post(
    SHORT + "/delivery_quotes/{quote_id}/accept", response_model=Quote, responses=READ_ERRORS, summary="Accept a quote"
)
async def accept_own_quote(order_id: str, quote_id: str, session: Session, ctx: LocationWriter) -> JSON:
    location, order = await _order(session, ctx, order_id, None, for_update=True)
    return JSON(await service.accept_quote(session, ctx, location, order, quote_id))


@router.get(FULL + "/delivery_quotes/{quote_id}", response_model=Quote, responses=READ_ERRORS, summary="Get a quote")
async def get_quote(location_id: str, order_id: str, quote_id: str, session: Session, ctx: Reader) -> JSON:
    location, order = await _order(session, ctx, order_id, location_id)
    return JSON(await service.get_quote(session, location, order, quote_id))


@router.get(SHORT + "/delivery_quotes/{quote_id}", response_model=Quote, responses=READ_ERRORS, summary="Get a quote")
async def get_own_quote(order_id: str, quote_id: str, session: Session, ctx: LocationReader) -> JSON:
    location, order = await _order(session, ctx, order_id, None)
    return JSON(await service.get_quote(session, location, order, quote_id))


@router.get(
    FULL + "/delivery_quotes", response_model=list[Quote], responses=READ_ERRORS, summary="List an order's quotes"
)
async def list_quotes(location_id: str, order_id: str, session: Session, ctx: Reader) -> JSON:
    location, order = await _order(session, ctx, order_id, location_id)
    return JSON(await service.list_quotes(session, location, order))


@router.get(
    SHORT + "/delivery_quotes", response_model=list[Quote], responses=READ_ERRORS, summary="List an order's quotes"
)
async def list_own_quotes(order_id: str, session: Session, ctx: LocationReader) -> JSON:
    location, order = await _order(session, ctx, order_id, None)
    return JSON(await service.list_quotes(session, location, order))


@router.post(FULL + "/delivery", response_model=Delivery, responses=WRITE_ERRORS, summary="Create the delivery")
async def create_delivery(
    request: Request, location_id: str, order_id: str, body: DeliveryCreate, session: Session, ctx: Writer
) -> Response:
    location, order = await _order(session, ctx, order_id, location_id, for_update=True)
    return await idempotent(request, session, ctx, lambda: service.create_delivery(session, ctx, location, order, body))


@router.post(SHORT + "/delivery", response_model=Delivery, responses=WRITE_ERRORS, summary="Create the delivery")
async def create_own_delivery(
    request: Request, order_id: str, body: DeliveryCreate, session: Session, ctx: LocationWriter
) -> Response:
    location, order = await _order(session, ctx, order_id, None, for_update=True)
    return await idempotent(request, session, ctx, lambda: service.create_delivery(session, ctx, location, order, body))


@router.get(FULL + "/delivery", response_model=Delivery, responses=READ_ERRORS, summary="Get the delivery")
async def get_delivery(location_id: str, order_id: str, session: Session, ctx: Reader) -> JSON:
    location, order = await _order(session, ctx, order_id, location_id)
    return JSON(await service.get_delivery(session, location, order))


@router.get(SHORT + "/delivery", response_model=Delivery, responses=READ_ERRORS, summary="Get the delivery")
async def get_own_delivery(order_id: str, session: Session, ctx: LocationReader) -> JSON:
    location, order = await _order(session, ctx, order_id, None)
    return JSON(await service.get_delivery(session, location, order))


@update_route(
    router, FULL + "/delivery", response_model=Delivery, responses=WRITE_ERRORS, summary="Update the delivery"
)
async def update_delivery(location_id: str, order_id: str, body: DeliveryUpdate, session: Session, ctx: Writer) -> JSON:
    location, order = await _order(session, ctx, order_id, location_id, for_update=True)
    return JSON(await service.update_delivery(session, ctx, location, order, body))


@update_route(
    router, SHORT + "/delivery", response_model=Delivery, responses=WRITE_ERRORS, summary="Update the delivery"
)
async def update_own_delivery(order_id: str, body: DeliveryUpdate, session: Session, ctx: LocationWriter) -> JSON:
    location, order = await _order(session, ctx, order_id, None, for_update=True)
    return JSON(await service.update_delivery(session, ctx, location, order, body))
