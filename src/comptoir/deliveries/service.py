"""Delivery quotes and deliveries (spec 2.7, 3.2, 3.3, 4.2).

Events (spec 6.2): a delivery's creation or update records `delivery.create`/`update` (and
`own_order_delivery.*` for the order's creator); any quote or delivery change also records
`order.update`, except a delivery update that only moved the driver.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir import events
from comptoir.auth.context import Ctx
from comptoir.deliveries import repository
from comptoir.deliveries.render import DELIVERY_TEXTS, DELIVERY_TIMES, render_quote
from comptoir.deliveries.schemas import DeliveryCreate, DeliveryUpdate, QuoteCreate
from comptoir.errors import FieldError, NotFound, Unprocessable
from comptoir.kit import clock, ids
from comptoir.kit.times import localize
from comptoir.kit.wire import shown
from comptoir.models import Delivery, DeliveryQuote, Order
from comptoir.models.locations import LocationRef
from comptoir.orders import service as orders
from comptoir.orders.render import render_delivery

# spec 3.2: the time set automatically when the status is set to each of these
AUTOMATIC_TIMES = {
    "pickup_enroute": "assigned_at",
    "dropoff_enroute": "pickup_at",
    "delivered": "delivered_at",
    "cancelled": "cancelled_at",
}
POSITION = ("driver_latitude", "driver_longitude")


def _only_for_delivery_orders(order: Order, what: str) -> None:
    service_type = order.body.get("service_type")
    if service_type != "delivery":
        raise Unprocessable(
            FieldError(
                "service_type", f"{what} only for delivery orders; this order's service_type is {shown(service_type)}"
            )
        )


# --- quotes -------------------------------------------------------------------------------


async def _quote(session: AsyncSession, order: Order, public_id: str, *, for_update: bool = False) -> DeliveryQuote:
    pk = ids.decode(DeliveryQuote.KIND, public_id)
    quote = None if pk is None else await repository.quote_of(session, order.id, pk, for_update=for_update)
    if quote is None:
        raise NotFound("delivery_quote", public_id)
    return quote


def _quote_body(quote: DeliveryQuote, order: Order, location: LocationRef) -> dict[str, Any]:
    return render_quote(quote, order.public_id, location.public_id, location.timezone)


async def _current_delivery(session: AsyncSession, order: Order, location: LocationRef) -> dict[str, Any] | None:
    delivery = await repository.delivery_of(session, order.id)
    return _body(delivery, order, location) if delivery else None


async def create_quote(
    session: AsyncSession, ctx: Ctx, location: LocationRef, order: Order, body: QuoteCreate
) -> dict[str, Any]:
    _only_for_delivery_orders(order, "delivery quotes are")
    quote = DeliveryQuote(
        order_id=order.id,
        carrier=body.carrier,
        carrier_ref=body.carrier_ref,
        ref=body.ref,
        fee=body.fee,
        estimated_pickup_at=_utc(body.estimated_pickup_at, location),
        estimated_dropoff_at=_utc(body.estimated_dropoff_at, location),
        created_at=clock.now(),
    )
    await repository.save(session, quote)
    delivery = await _current_delivery(session, order, location)
    await orders.order_touched(session, ctx, order, location, delivery, delivery)
    return _quote_body(quote, order, location)


async def accept_quote(
    session: AsyncSession, ctx: Ctx, location: LocationRef, order: Order, quote_id: str
) -> dict[str, Any]:
    """spec 3.3: `accepted_at` is saved at the first accept; later accepts change nothing.
    Several quotes of one order may be accepted."""
    quote = await _quote(session, order, quote_id, for_update=True)
    if quote.accepted_at is None:
        quote.accepted_at = clock.now()
        delivery = await _current_delivery(session, order, location)
        await orders.order_touched(session, ctx, order, location, delivery, delivery)
    return _quote_body(quote, order, location)


async def get_quote(session: AsyncSession, location: LocationRef, order: Order, quote_id: str) -> dict[str, Any]:
    return _quote_body(await _quote(session, order, quote_id), order, location)


async def list_quotes(session: AsyncSession, location: LocationRef, order: Order) -> list[dict[str, Any]]:
    return [_quote_body(quote, order, location) for quote in await repository.quotes_of(session, order.id)]


# --- deliveries ---------------------------------------------------------------------------


def _utc(value: datetime | None, location: LocationRef) -> datetime | None:
    return localize(value, location.timezone) if value is not None else None


def _apply(
    delivery: Delivery, body: DeliveryCreate | DeliveryUpdate, location: LocationRef, previous_status: str | None
) -> None:
    """Copy the fields present; then the automatic times of spec 3.2, unless the request
    gives them: for a status set to one of AUTOMATIC_TIMES, and whenever the driver's
    latitude or longitude is sent, even unchanged."""
    given = body.model_fields_set
    now = clock.now()
    if "status" in given:
        delivery.status = body.status
    for name in DELIVERY_TEXTS:
        if name in given:
            setattr(delivery, name, getattr(body, name))
    for name in POSITION:
        if name in given:
            setattr(delivery, name, getattr(body, name))
    for name in DELIVERY_TIMES:
        if name in given:
            setattr(delivery, name, _utc(getattr(body, name), location))
    automatic = AUTOMATIC_TIMES.get(body.status) if "status" in given else None
    if automatic is not None and body.status != previous_status and automatic not in given:
        setattr(delivery, automatic, now)
    if given & set(POSITION) and "driver_position_updated_at" not in given:
        delivery.driver_position_updated_at = now


async def _record_delivery(
    session: AsyncSession,
    ctx: Ctx,
    order: Order,
    location: LocationRef,
    delivery: Delivery,
    event_type: str,
    **states: Any,
) -> None:
    await events.record(
        session,
        resource_type="delivery",
        event_type=event_type,
        ids={"order_id": order.public_id, "location_id": location.public_id, "delivery_id": delivery.public_id},
        account_id=order.account_id,
        location_id=order.location_id,
        timezone=location.timezone,
        ctx=ctx,
        origin_connection_id=order.connection_id,
        **states,
    )


def _body(delivery: Delivery, order: Order, location: LocationRef) -> dict[str, Any]:
    return render_delivery(delivery, order.public_id, location.public_id, location.timezone)


async def create_delivery(
    session: AsyncSession, ctx: Ctx, location: LocationRef, order: Order, body: DeliveryCreate
) -> dict[str, Any]:
    """POST .../delivery (spec 4.2): only for a delivery order without one (422)."""
    _only_for_delivery_orders(order, "deliveries are")
    # the caller holds the order's row lock, so no other delivery can be created meanwhile
    if await repository.delivery_of(session, order.id) is not None:
        raise Unprocessable(FieldError("delivery", "the order already has a delivery (update it with PATCH)"))
    now = clock.now()
    delivery = Delivery(
        order_id=order.id,
        carrier=body.carrier,
        carrier_ref=body.carrier_ref,
        fee=body.fee,
        created_at=now,
        updated_at=now,
    )
    _apply(delivery, body, location, None)
    await repository.save(session, delivery)
    new = _body(delivery, order, location)
    await _record_delivery(session, ctx, order, location, delivery, "create", new_state=new)
    await orders.order_touched(session, ctx, order, location, None, new)
    return new


async def _delivery(session: AsyncSession, order: Order, *, for_update: bool = False) -> Delivery:
    delivery = await repository.delivery_of(session, order.id, for_update=for_update)
    if delivery is None:
        raise NotFound("delivery", None)  # spec 7 item 2
    return delivery


async def get_delivery(session: AsyncSession, location: LocationRef, order: Order) -> dict[str, Any]:
    return _body(await _delivery(session, order), order, location)


async def update_delivery(
    session: AsyncSession, ctx: Ctx, location: LocationRef, order: Order, body: DeliveryUpdate
) -> dict[str, Any]:
    """PATCH/PUT .../delivery (spec 4.2, 3.2)."""
    delivery = await _delivery(session, order, for_update=True)
    previous = _body(delivery, order, location)
    _apply(delivery, body, location, delivery.status)
    new = _body(delivery, order, location)
    if new == previous:
        return new
    delivery.updated_at = clock.now()
    await repository.save(session, delivery)
    await _record_delivery(session, ctx, order, location, delivery, "update", previous_state=previous, new_state=new)
    moved_only = {k for k in new if new[k] != previous[k]} <= {*POSITION, "driver_position_updated_at"}
    if not moved_only:  # spec 6.2: not for a driver-position-only change
        await orders.order_touched(session, ctx, order, location, previous, new)
    return new
