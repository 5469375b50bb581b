"""Request and read shapes of spec 2.7 DeliveryQuote and Delivery."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from comptoir.kit.phone import Phone
from comptoir.kit.text import KEYS_WITHOUT_NUL, Latitude, Longitude, Text64, Text255, Text2000
from comptoir.kit.times import DateTimeStr

DeliveryStatus = Literal[
    "pending", "pickup_enroute", "pickup_approaching", "pickup_waiting", "dropoff_enroute", "dropoff_approaching",
    "dropoff_waiting", "delivered", "cancelled",
]  # fmt: skip


class _In(BaseModel):
    model_config = ConfigDict(extra="ignore", json_schema_extra=KEYS_WITHOUT_NUL)


class QuoteCreate(_In):
    carrier: Text255
    carrier_ref: Text255 | None = None
    ref: Text255 | None = None
    fee: Text64
    estimated_pickup_at: DateTimeStr | None = None
    estimated_dropoff_at: DateTimeStr | None = None


class Quote(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    order_id: str
    location_id: str
    carrier: str
    carrier_ref: str | None
    ref: str | None
    fee: str
    estimated_pickup_at: str | None
    estimated_dropoff_at: str | None
    accepted_at: str | None


class _DeliveryFields(_In):
    """The fields of spec 2.7 Delivery a request may send (all optional here)."""

    ref: Text255 | None = None
    estimated_pickup_at: DateTimeStr | None = None
    estimated_dropoff_at: DateTimeStr | None = None
    tracking_url: Text2000 | None = None
    driver_name: Text255 | None = None
    driver_phone: Phone | None = None
    driver_phone_access_code: Text64 | None = None
    driver_latitude: Latitude | None = None
    driver_longitude: Longitude | None = None
    driver_pickup_url: Text2000 | None = None  # docs/api/deliveries.md "Deliveries": accepted here too
    assigned_at: DateTimeStr | None = None
    pickup_at: DateTimeStr | None = None
    delivered_at: DateTimeStr | None = None
    cancelled_at: DateTimeStr | None = None
    driver_position_updated_at: DateTimeStr | None = None


class DeliveryCreate(_DeliveryFields):
    carrier: Text255
    carrier_ref: Text255 | None = None
    fee: Text64 | None = None
    status: DeliveryStatus


class DeliveryUpdate(_DeliveryFields):
    """PATCH/PUT (spec 4.2): any field but `carrier`, `carrier_ref` and `fee` (ignored)."""

    status: DeliveryStatus = None  # type: ignore[assignment]


class Delivery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    order_id: str
    location_id: str
    carrier: str
    carrier_ref: str | None
    ref: str | None
    status: DeliveryStatus
    fee: str | None
    estimated_pickup_at: str | None
    estimated_dropoff_at: str | None
    tracking_url: str | None
    driver_name: str | None
    driver_phone: str | None
    driver_phone_access_code: str | None
    driver_latitude: str | None
    driver_longitude: str | None
    driver_pickup_url: str | None
    assigned_at: str | None
    pickup_at: str | None
    delivered_at: str | None
    cancelled_at: str | None
    driver_position_updated_at: str | None
