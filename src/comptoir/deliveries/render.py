"""Read shapes of deliveries and quotes (spec 2.7), shared with the order read (which
carries its `delivery`)."""

from __future__ import annotations

from typing import Any

from comptoir.kit.decimals import render_decimal
from comptoir.kit.times import render_datetime
from comptoir.models import Delivery, DeliveryQuote

DELIVERY_TIMES = (
    "estimated_pickup_at", "estimated_dropoff_at", "assigned_at", "pickup_at", "delivered_at", "cancelled_at",
    "driver_position_updated_at",
)  # fmt: skip
DELIVERY_TEXTS = (
    "ref", "tracking_url", "driver_name", "driver_phone", "driver_phone_access_code", "driver_pickup_url",
)  # fmt: skip


def render_delivery(delivery: Delivery, order_id: str, location_id: str, timezone: str) -> dict[str, Any]:
    return {
        "id": delivery.public_id,
        "order_id": order_id,
        "location_id": location_id,
        "carrier": delivery.carrier,
        "carrier_ref": delivery.carrier_ref,
        "ref": delivery.ref,
        "status": delivery.status,
        "fee": delivery.fee,
        "estimated_pickup_at": render_datetime(delivery.estimated_pickup_at, timezone),
        "estimated_dropoff_at": render_datetime(delivery.estimated_dropoff_at, timezone),
        "tracking_url": delivery.tracking_url,
        "driver_name": delivery.driver_name,
        "driver_phone": delivery.driver_phone,
        "driver_phone_access_code": delivery.driver_phone_access_code,
        "driver_latitude": render_decimal(delivery.driver_latitude) if delivery.driver_latitude is not None else None,
        "driver_longitude": render_decimal(delivery.driver_longitude)
        if delivery.driver_longitude is not None
        else None,
        "driver_pickup_url": delivery.driver_pickup_url,
        "assigned_at": render_datetime(delivery.assigned_at, timezone),
        "pickup_at": render_datetime(delivery.pickup_at, timezone),
        "delivered_at": render_datetime(delivery.delivered_at, timezone),
        "cancelled_at": render_datetime(delivery.cancelled_at, timezone),
        "driver_position_updated_at": render_datetime(delivery.driver_position_updated_at, timezone),
    }


def render_quote(quote: DeliveryQuote, order_id: str, location_id: str, timezone: str) -> dict[str, Any]:
    return {
        "id": quote.public_id,
        "order_id": order_id,
        "location_id": location_id,
        "carrier": quote.carrier,
        "carrier_ref": quote.carrier_ref,
        "ref": quote.ref,
        "fee": quote.fee,
        "estimated_pickup_at": render_datetime(quote.estimated_pickup_at, timezone),
        "estimated_dropoff_at": render_datetime(quote.estimated_dropoff_at, timezone),
        "accepted_at": render_datetime(quote.accepted_at, timezone),
    }
