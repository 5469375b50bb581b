"""Request and read shapes of spec 2.6 LoyaltyCard and LoyaltyOperation."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from comptoir.kit.decimals import DecimalStr
from comptoir.kit.ids import Id, IdIn, LocationId
from comptoir.kit.requests import RequestModel
from comptoir.kit.text import Text255, Text1000, body_schema
from comptoir.kit.times import TimeOut


class LoyaltyCardCreate(RequestModel):
    """POST body: `customer_id` required (a customer of the list)."""

    model_config = ConfigDict(
        extra="ignore", json_schema_extra=body_schema({"customer_id": "h6v3zc", "name": "Coffee card", "ref": "C-1042"})
    )

    customer_id: IdIn
    name: Text255 | None = None
    ref: Text255 | None = None


class LoyaltyCardUpdate(RequestModel):
    """PATCH/PUT body: `name` and `ref` only; `customer_id` and `balance` are
    read-only and ignored."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=body_schema({"name": "Gold card", "ref": "G-7"}))

    name: Text255 | None = None
    ref: Text255 | None = None


class LoyaltyCard(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"id": "t5b8nm", "customer_id": "h6v3zc", "name": "Coffee card", "ref": "C-1042", "balance": "7.0"}
            ]
        },
    )

    id: Id
    customer_id: Id
    name: str | None
    ref: str | None
    balance: str


class LoyaltyOperationCreate(RequestModel):
    """POST body: `delta` required, an exact decimal (string or JSON number)."""

    model_config = ConfigDict(
        extra="ignore",
        json_schema_extra=body_schema({"delta": "2", "reason": "Two coffees"}, {"delta": -5, "order_id": "a7d9kp"}),
    )

    delta: DecimalStr
    reason: Text1000 | None = None
    order_id: IdIn | None = None


class LoyaltyOperation(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "id": "w2k9ra",
                    "customer_id": "h6v3zc",
                    "created_at": "2026-06-24T17:07:53+02:00",
                    "order_location_id": "4k3jxr-1",
                    "order_id": "a7d9kp",
                    "reason": "Two coffees",
                    "delta": "2.0",
                    "new_balance": "9.0",
                }
            ]
        },
    )

    id: Id
    customer_id: Id
    created_at: TimeOut
    order_location_id: LocationId | None
    order_id: Id | None
    reason: str | None
    delta: str
    new_balance: str
