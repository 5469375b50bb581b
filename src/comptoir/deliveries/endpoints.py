"""Delivery quotes and the delivery of an order, under
/locations/:location_id/orders/:order_id and its short form /location/orders/:order_id.
Access: `orders.read` / `orders.write` (docs/api/deliveries.md "Access")."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request
from starlette.responses import Response

from comptoir.auth.access import require
from comptoir.auth.context import Ctx
from comptoir.deliveries import service
from comptoir.deliveries.schemas import Delivery, DeliveryCreate, DeliveryUpdate, Quote, QuoteCreate
from comptoir.http.dependencies import Session
from comptoir.http.openapi import IDEMPOTENT, READ_ERRORS, WRITE_ERRORS, answer_example, body_example
from comptoir.http.routing import JSON, LOCATION, UPDATE, ComptoirRoute, route
from comptoir.idempotency.service import idempotent
from comptoir.locations.service import location_of
from comptoir.models import Order
from comptoir.models.locations import LocationRef
from comptoir.orders.service import order_in_location

router = APIRouter(route_class=ComptoirRoute, tags=["Deliveries"])

Reader = Annotated[Ctx, Depends(require("location,account", "orders.read"))]
Writer = Annotated[Ctx, Depends(require("location,account", "orders.write"))]
ORDER = LOCATION + "/orders/{order_id}"
QUOTE_EXAMPLE = {
    "carrier": "Coursiers Express",
    "ref": "quote-88",
    "fee": "4.50 EUR",
    "estimated_pickup_at": "2026-06-24T19:20:00+02:00",
    "estimated_dropoff_at": "2026-06-24T19:45:00+02:00",
}
QUOTE_READ = {
    "id": "q8r3tz",
    "order_id": "a7d9kp",
    "location_id": "4k3jxr-1",
    "carrier_ref": None,
    **QUOTE_EXAMPLE,
    "accepted_at": None,
}
DELIVERY_EXAMPLE = {
    "carrier": "Coursiers Express",
    "carrier_ref": "CE-55012",
    "fee": "4.50 EUR",
    "status": "pending",
    "tracking_url": "https://track.example/CE-55012",
}


async def _order(
    session: AsyncSession, ctx: Ctx, order_id: str, location_id: str | None, *, for_update: bool = False
) -> tuple[LocationRef, Order]:
    location, _account = await location_of(session, ctx, location_id)
    return location, await order_in_location(session, location.id, order_id, for_update=for_update)


@route(
    router,
    "POST",
    ORDER + "/delivery_quotes",
    response_model=Quote,
    responses=WRITE_ERRORS,
    summary="Create a delivery quote",
    openapi_extra={**IDEMPOTENT, **body_example(QUOTE_EXAMPLE)},
)
async def create_quote(
    request: Request, location_id: str | None, order_id: str, body: QuoteCreate, session: Session, ctx: Writer
) -> Response:
    """Adds a carrier's quote to a delivery order (another `service_type` is a 422): `carrier`
    and `fee` (free text) are required. An order may have several quotes. Send an
    `Idempotency-Key` to retry safely. Records an `order.update` event."""
    location, order = await _order(session, ctx, order_id, location_id, for_update=True)
    return await idempotent(request, session, ctx, lambda: service.create_quote(session, ctx, location, order, body))


@route(
    router,
    "POST",
    ORDER + "/delivery_quotes/{quote_id}/accept",
    response_model=Quote,
    responses=answer_example(READ_ERRORS, {**QUOTE_READ, "accepted_at": "2026-06-24T19:03:40+02:00"}),
    summary="Accept a quote",
)
async def accept_quote(location_id: str | None, order_id: str, quote_id: str, session: Session, ctx: Writer) -> JSON:
    """Accepts the quote: `accepted_at` is set at the first accept, and accepting it again
    changes nothing. Several quotes of an order may be accepted. Takes no body."""
    location, order = await _order(session, ctx, order_id, location_id, for_update=True)
    return JSON(await service.accept_quote(session, ctx, location, order, quote_id))


@route(
    router,
    "GET",
    ORDER + "/delivery_quotes/{quote_id}",
    response_model=Quote,
    responses=READ_ERRORS,
    summary="Get a quote",
)
async def get_quote(location_id: str | None, order_id: str, quote_id: str, session: Session, ctx: Reader) -> JSON:
    """One quote of the order, with `accepted_at` once accepted."""
    location, order = await _order(session, ctx, order_id, location_id)
    return JSON(await service.get_quote(session, location, order, quote_id))


@route(
    router,
    "GET",
    ORDER + "/delivery_quotes",
    response_model=list[Quote],
    responses=answer_example(READ_ERRORS, [QUOTE_READ]),
    summary="List an order's quotes",
)
async def list_quotes(location_id: str | None, order_id: str, session: Session, ctx: Reader) -> JSON:
    """Every quote of the order, oldest first, all at once (not paginated)."""
    location, order = await _order(session, ctx, order_id, location_id)
    return JSON(await service.list_quotes(session, location, order))


@route(
    router,
    "POST",
    ORDER + "/delivery",
    response_model=Delivery,
    responses=WRITE_ERRORS,
    summary="Create the delivery",
    openapi_extra={**IDEMPOTENT, **body_example(DELIVERY_EXAMPLE)},
)
async def create_delivery(
    request: Request, location_id: str | None, order_id: str, body: DeliveryCreate, session: Session, ctx: Writer
) -> Response:
    """Creates the delivery of a delivery order: `carrier` and `status` are required; an order
    has at most one delivery (a second is a 422). A status sets its time (`assigned_at`,
    `pickup_at`, `delivered_at`, `cancelled_at`) unless the request gives it. Send an
    `Idempotency-Key` to retry safely. Records `delivery.create` and `order.update` events."""
    location, order = await _order(session, ctx, order_id, location_id, for_update=True)
    return await idempotent(request, session, ctx, lambda: service.create_delivery(session, ctx, location, order, body))


@route(router, "GET", ORDER + "/delivery", response_model=Delivery, responses=READ_ERRORS, summary="Get the delivery")
async def get_delivery(location_id: str | None, order_id: str, session: Session, ctx: Reader) -> JSON:
    """The order's delivery: carrier, status, times, driver and tracking. A 404 while the
    order has none."""
    location, order = await _order(session, ctx, order_id, location_id)
    return JSON(await service.get_delivery(session, location, order))


@route(
    router,
    UPDATE,
    ORDER + "/delivery",
    response_model=Delivery,
    responses=WRITE_ERRORS,
    summary="Update the delivery",
    openapi_extra=body_example(
        {"status": "pickup_enroute", "driver_name": "Sam", "driver_latitude": "48.8698", "driver_longitude": "2.3311"}
    ),
)
async def update_delivery(
    location_id: str | None, order_id: str, body: DeliveryUpdate, session: Session, ctx: Writer
) -> JSON:
    """Changes the fields sent (`carrier`, `carrier_ref` and `fee` are ignored). A new status
    sets its time, and a driver position sets `driver_position_updated_at`. Records a
    `delivery.update` event, and an `order.update` unless only the driver's position
    changed."""
    location, order = await _order(session, ctx, order_id, location_id, for_update=True)
    return JSON(await service.update_delivery(session, ctx, location, order, body))
