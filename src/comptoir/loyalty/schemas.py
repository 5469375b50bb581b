"""Request and read shapes of spec 2.6 LoyaltyCard and LoyaltyOperation."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from comptoir.kit.decimals import DecimalStr
from comptoir.kit.ids import IdIn
from comptoir.kit.text import KEYS_WITHOUT_NUL, Text255, Text1000


class LoyaltyCardCreate(BaseModel):
    """POST body (spec 4.7): `customer_id` required (a customer of the list)."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=KEYS_WITHOUT_NUL)

    customer_id: IdIn
    name: Text255 | None = None
    ref: Text255 | None = None


class LoyaltyCardUpdate(BaseModel):
    """PATCH/PUT body (spec 4.7): `name` and `ref` only; `customer_id` and `balance` are
    read-only and ignored."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=KEYS_WITHOUT_NUL)

    name: Text255 | None = None
    ref: Text255 | None = None


class LoyaltyCard(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    customer_id: str
    name: str | None
    ref: str | None
    balance: str


class LoyaltyOperationCreate(BaseModel):
    """POST body (spec 4.7): `delta` required, an exact decimal (string or JSON number)."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=KEYS_WITHOUT_NUL)

    delta: DecimalStr
    reason: Text1000 | None = None
    order_id: IdIn | None = None


class LoyaltyOperation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    customer_id: str
    created_at: str
    order_location_id: str | None
    order_id: str | None
    reason: str | None
    delta: str
    new_balance: str
