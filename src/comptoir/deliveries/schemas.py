"""Request and read shapes of spec 2.7 DeliveryQuote and Delivery."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from comptoir.kit.ids import Id, LocationId
from comptoir.kit.phone import Phone
from comptoir.kit.requests import RequestModel
from comptoir.kit.text import KEYS_WITHOUT_NUL, Latitude, Longitude, Text64, Text255, Text2000, body_schema
from comptoir.kit.times import DateTimeStr, TimeOut

DeliveryStatus = Literal[
    "pending", "pickup_enroute", "pickup_approaching", "pickup_waiting", "dropoff_enroute", "dropoff_approaching",
    "dropoff_waiting", "delivered", "cancelled",
]  # fmt: skip


class _In(RequestModel):
    model_config = ConfigDict(extra="ignore", json_schema_extra=KEYS_WITHOUT_NUL)


class QuoteCreate(_In):
    model_config = ConfigDict(
        json_schema_extra=body_schema(
            {"carrier": "Zoom", "fee": "4.50 EUR", "estimated_pickup_at": "2026-06-24T17:07:53+02:00"},
            {"carrier": "Zoom", "fee": "3 EUR"},
        )
    )

    carrier: Text255
    carrier_ref: Text255 | None = None
    ref: Text255 | None = None
    fee: Text64
    estimated_pickup_at: DateTimeStr | None = None
    estimated_dropoff_at: DateTimeStr | None = None


class Quote(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "id": "p9c4hd",
                    "order_id": "a7d9kp",
                    "location_id": "4k3jxr-1",
                    "carrier": "Zoom",
                    "carrier_ref": None,
                    "ref": "Q-88",
                    "fee": "4.50 EUR",
                    "estimated_pickup_at": "2026-06-24T17:07:53+02:00",
                    "estimated_dropoff_at": "2026-06-24T17:30:00+02:00",
                    "accepted_at": None,
                }
            ]
        },
    )

    id: Id
    order_id: Id
    location_id: LocationId
    carrier: str
    carrier_ref: str | None
    ref: str | None
    fee: str
    estimated_pickup_at: TimeOut | None
    estimated_dropoff_at: TimeOut | None
    accepted_at: TimeOut | None


class _DeliveryFields(_In):
    """The fields of a delivery a request may send (all optional here)."""

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
    model_config = ConfigDict(
        json_schema_extra=body_schema(
            {
                "carrier": "Zoom",
                "status": "pending",
                "fee": "4.50 EUR",
                "estimated_dropoff_at": "2026-06-24T17:30:00+02:00",
            }
        )
    )

    carrier: Text255
    carrier_ref: Text255 | None = None
    fee: Text64 | None = None
    status: DeliveryStatus


class DeliveryUpdate(_DeliveryFields):
    model_config = ConfigDict(
        json_schema_extra=body_schema(
            {
                "status": "pickup_enroute",
                "driver_name": "Sam",
                "driver_phone": "+33612345678",
                "assigned_at": "2026-06-24T17:07:53+02:00",
            },
            {
                "driver_latitude": "48.8566",
                "driver_longitude": "2.3522",
                "driver_position_updated_at": "2026-06-24T17:07:53+02:00",
            },
        )
    )

    """PATCH/PUT: any field but `carrier`, `carrier_ref` and `fee` (ignored)."""

    status: DeliveryStatus = None  # type: ignore[assignment]


class Delivery(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "id": "r4n8vb",
                    "order_id": "a7d9kp",
                    "location_id": "4k3jxr-1",
                    "carrier": "Zoom",
                    "carrier_ref": "ZM-5512",
                    "ref": None,
                    "status": "pickup_enroute",
                    "fee": "4.50 EUR",
                    "estimated_pickup_at": "2026-06-24T17:07:53+02:00",
                    "estimated_dropoff_at": "2026-06-24T17:30:00+02:00",
                    "tracking_url": "https://zoom.example/t/5512",
                    "driver_name": "Sam",
                    "driver_phone": "+33612345678",
                    "driver_phone_access_code": None,
                    "driver_latitude": "48.8566",
                    "driver_longitude": "2.3522",
                    "driver_pickup_url": None,
                    "assigned_at": "2026-06-24T17:07:53+02:00",
                    "pickup_at": None,
                    "delivered_at": None,
                    "cancelled_at": None,
                    "driver_position_updated_at": "2026-06-24T17:07:53+02:00",
                }
            ]
        },
    )

    id: Id
    order_id: Id
    location_id: LocationId
    carrier: str
    carrier_ref: str | None
    ref: str | None
    status: DeliveryStatus
    fee: str | None
    estimated_pickup_at: TimeOut | None
    estimated_dropoff_at: TimeOut | None
    tracking_url: str | None
    driver_name: str | None
    driver_phone: str | None
    driver_phone_access_code: str | None
    driver_latitude: str | None
    driver_longitude: str | None
    driver_pickup_url: str | None
    assigned_at: TimeOut | None
    pickup_at: TimeOut | None
    delivered_at: TimeOut | None
    cancelled_at: TimeOut | None
    driver_position_updated_at: TimeOut | None
