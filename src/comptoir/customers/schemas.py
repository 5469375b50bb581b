"""Request and read shapes of spec 2.6 Customer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, StrictBool

from comptoir.errors import BadRequest
from comptoir.kit.codes import Country
from comptoir.kit.custom_fields import CustomFields
from comptoir.kit.emails import ContactEmail
from comptoir.kit.ids import Id
from comptoir.kit.patterns import MAX_PATTERN
from comptoir.kit.phone import Phone
from comptoir.kit.refs import PrivateRef
from comptoir.kit.requests import RequestModel
from comptoir.kit.text import (
    Latitude,
    Longitude,
    Text32,
    Text64,
    Text255,
    Text1000,
    Text5000,
    body_schema,
)
from comptoir.kit.times import DateOut, DateStr, TimeOut

# spec 4.6 item 1: the fields anonymisation sets to null, and whose later writes are ignored
ANONYMISED_FIELDS = (
    "email", "first_name", "last_name", "gender", "birth_date", "company_name", "phone", "phone_access_code",
    "address_1", "address_2", "postal_code", "latitude", "longitude", "delivery_notes",
)  # fmt: skip


class CustomerWrite(RequestModel):
    """POST, PATCH and PUT body (docs/api/customers.md): every field optional; on update only the
    fields present change. Read-only fields and unknown keys are ignored
    (docs/api/conventions.md "Requests")."""

    model_config = ConfigDict(
        extra="ignore",
        json_schema_extra=body_schema(
            {"first_name": "Bo", "last_name": "Lind", "email": "bo@example.com", "phone": "+33612345678"},
            {"country": "FR", "birth_date": "1990-04-12", "custom_fields": {"tier": "gold"}},
        ),
    )

    private_ref: PrivateRef | None = None
    email: ContactEmail | None = None
    first_name: Text255 | None = None
    last_name: Text255 | None = None
    gender: Literal["male", "female"] | None = None
    birth_date: DateStr | None = None
    company_name: Text255 | None = None
    phone: Phone | None = None
    phone_access_code: Text64 | None = None
    address_1: Text1000 | None = None
    address_2: Text1000 | None = None
    postal_code: Text32 | None = None
    city: Text255 | None = None
    state: Text255 | None = None
    country: Country | None = None
    latitude: Latitude | None = None
    longitude: Longitude | None = None
    delivery_notes: Text5000 | None = None
    sms_marketing: StrictBool = False
    email_marketing: StrictBool = False
    custom_fields: CustomFields = None


class LoyaltyCardSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: Id
    ref: str | None
    name: str | None
    balance: str


class CustomerFields(BaseModel):
    """The customer's own fields as read: on a customer, and in an order's snapshot of it."""

    model_config = ConfigDict(extra="forbid")

    email: str | None
    first_name: str | None
    last_name: str | None
    gender: Literal["male", "female"] | None
    birth_date: DateOut | None
    company_name: str | None
    phone: str | None
    phone_access_code: str | None
    address_1: str | None
    address_2: str | None
    postal_code: str | None
    city: str | None
    state: str | None
    country: str | None
    latitude: str | None
    longitude: str | None
    delivery_notes: str | None
    sms_marketing: bool
    email_marketing: bool


class Customer(CustomerFields):
    """A customer (read shape). `private_ref` is the reading client's own."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "id": "h6v3zc",
                    "customer_list_id": "q8s2fd",
                    "email": "bo@example.com",
                    "first_name": "Bo",
                    "last_name": "Lind",
                    "gender": None,
                    "birth_date": "1990-04-12",
                    "company_name": None,
                    "phone": "+33612345678",
                    "phone_access_code": None,
                    "address_1": "3 place des Vosges",
                    "address_2": None,
                    "postal_code": "75004",
                    "city": "Paris",
                    "state": None,
                    "country": "FR",
                    "latitude": "48.8554",
                    "longitude": "2.3655",
                    "delivery_notes": "Code 4512",
                    "sms_marketing": False,
                    "email_marketing": True,
                    "private_ref": "crm-88",
                    "custom_fields": {"tier": "gold"},
                    "anonymised": False,
                    "created_at": "2026-06-24T17:07:53+02:00",
                    "nb_orders": 3,
                    "order_total": "54.20 EUR",
                    "first_order_date": "2026-05-02T12:41:09+02:00",
                    "last_order_date": "2026-06-20T20:15:44+02:00",
                    "loyalty_cards": [{"id": "t5b8nm", "ref": "C-1042", "name": "Coffee card", "balance": "7.0"}],
                }
            ]
        },
    )

    id: Id
    customer_list_id: Id
    private_ref: str | None
    custom_fields: dict[str, Any]
    anonymised: bool
    created_at: TimeOut
    nb_orders: int
    order_total: str
    first_order_date: TimeOut | None
    last_order_date: TimeOut | None
    loyalty_cards: list[LoyaltyCardSummary]


@dataclass(frozen=True, slots=True)
class CustomerFilters:
    """The filters of GET /customer_lists/:id/customers (spec 4.5); each, when given, is a
    non-empty pattern of at most MAX_PATTERN characters (400 otherwise)."""

    private_ref: str | None = None
    email: str | None = None
    phone: str | None = None

    def __post_init__(self) -> None:
        for name in ("private_ref", "email", "phone"):
            value = getattr(self, name)
            if value is not None and not value:
                raise BadRequest(f"The {name} filter must not be empty")
            if value is not None and len(value) > MAX_PATTERN:
                raise BadRequest(f"The {name} filter must be at most {MAX_PATTERN} characters")
