"""Request and read shapes of spec 2.6 LoyaltyCard and LoyaltyOperation."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, StrictStr

from comptoir.kit.decimals import DecimalStr
from comptoir.kit.text import Text255, Text1000


class LoyaltyCardCreate(BaseModel):
    """POST body: `customer_id` required (a customer of the list)."""

    model_config = ConfigDict(extra="ignore")

    customer_id: StrictStr
    name: Text255 | None = None
    ref: Text255 | None = None


class LoyaltyCardUpdate(BaseModel):
    """PATCH/PUT body: `name` and `ref` only; `customer_id` and `balance` are
    read-only and ignored."""

    model_config = ConfigDict(extra="ignore")

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
    """POST body: `delta` required, an exact decimal (string or JSON number)."""

    model_config = ConfigDict(extra="ignore")

    delta: DecimalStr
    reason: Text1000 | None = None
    order_id: StrictStr | None = None


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
