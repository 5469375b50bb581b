"""Read shape of delivery quotes (spec 2.7), and the fields of a delivery. A delivery's read
shape is part of its order's (`orders.render.render_delivery`)."""

from __future__ import annotations

from typing import Any

from comptoir.kit.times import render_datetime
from comptoir.models import DeliveryQuote

DELIVERY_TIMES = (
    "estimated_pickup_at", "estimated_dropoff_at", "assigned_at", "pickup_at", "delivered_at", "cancelled_at",
    "driver_position_updated_at",
)  # fmt: skip
DELIVERY_TEXTS = (
    "ref", "tracking_url", "driver_name", "driver_phone", "driver_phone_access_code", "driver_pickup_url",
)  # fmt: skip


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
