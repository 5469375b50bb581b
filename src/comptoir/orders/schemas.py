"""Request shapes of spec 2.5 Order and its elements (4.1 for updates).

Money amounts are checked against the account's currency by the service
(docs/api/conventions.md "Wire formats"); everything else is checked here, so one 422 names
every malformed field.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PlainValidator, StrictBool, StrictInt, WithJsonSchema
from pydantic_core import PydanticCustomError

from comptoir.customers.schemas import CustomerFields, CustomerWrite, LoyaltyCardSummary
from comptoir.kit.codes import ServiceType
from comptoir.kit.custom_fields import CustomFields
from comptoir.kit.decimals import DecimalStr
from comptoir.kit.freeform import FreeObject
from comptoir.kit.ids import Id, IdIn, LocationId
from comptoir.kit.money import MoneyStr
from comptoir.kit.phone import OrderPhone
from comptoir.kit.refs import PrivateRef
from comptoir.kit.requests import RequestModel
from comptoir.kit.text import KEYS_WITHOUT_NUL, NO_NUL, Str, Text64, Text255, Text1000, Text2000, Text5000, body_schema
from comptoir.kit.times import DateTimeStr, TimeOut

Status = Literal[
    "new", "received", "accepted", "in_preparation", "awaiting_shipment", "awaiting_collection", "in_delivery",
    "completed", "rejected", "cancelled", "delivery_failed",
]  # fmt: skip
STATUSES = get_args(Status)
Name = Text255


class _In(RequestModel):
    model_config = ConfigDict(extra="ignore", json_schema_extra=KEYS_WITHOUT_NUL)


class OptionIn(_In):
    option_list_name: Name | None = None
    name: Name
    ref: Name | None = None
    price: MoneyStr | None = None  # omitted: free
    quantity: StrictInt = Field(default=1, ge=1, le=1_000_000)
    removed: StrictBool = False


class DealLineIn(_In):
    deal_key: Str = Field(description="A key of the order's `deals`")
    label: Name | None = None
    position: StrictInt | None = None
    pricing_effect: Name | None = None
    pricing_value: Name | None = None


MAX_QUANTITY = 1_000_000  # as an option's quantity: keeps every total within exact reach


def _quantity(value: Decimal) -> Decimal:
    if value <= 0:
        raise PydanticCustomError("positive", "must be greater than 0")
    if value > MAX_QUANTITY:
        raise PydanticCustomError("too_large", f"must be at most {MAX_QUANTITY}")
    return value


# above 0, at most MAX_QUANTITY: a decimal string or a JSON number
_QUANTITY = {
    "anyOf": [
        {
            "type": "string",
            "pattern": "^([1-9][0-9]{0,5}(\\.[0-9]{1,30})?|1000000(\\.0{1,30})?|0\\.[0-9]{0,29}[1-9])$",
        },
        {"type": "number", "exclusiveMinimum": 0, "maximum": MAX_QUANTITY},
    ],
    "examples": ["2"],
}


class ItemIn(_In):
    private_ref: PrivateRef | None = None
    product_name: Name
    sku_name: Name | None = None
    sku_ref: Name | None = None
    price: MoneyStr
    quantity: Annotated[DecimalStr, AfterValidator(_quantity), WithJsonSchema(_QUANTITY)]
    options: list[OptionIn] = Field(default_factory=list, max_length=1000)
    points_earned: DecimalStr | None = None
    points_used: DecimalStr | None = None
    deal_line: DealLineIn | None = None
    tax_rate: DecimalStr | None = None
    customer_notes: Text5000 | None = None


class DiscountIn(_In):
    private_ref: PrivateRef | None = None
    name: Name
    ref: Name | None = None
    price_off: MoneyStr
    pricing_effect: Name | None = None
    pricing_value: Name | None = None


class ChargeIn(_In):
    private_ref: PrivateRef | None = None
    type: Literal["delivery", "payment_fee", "tip", "tax", "other"] = "other"  # docs/api/orders.md "Creating an order"
    name: Name
    ref: Name | None = None
    price: MoneyStr
    tax_rate: DecimalStr | None = None


class PaymentIn(_In):
    private_ref: PrivateRef | None = None
    type: Literal["online", "gift_card", "cash"] = "online"  # docs/api/orders.md "Creating an order"
    name: Name | None = None
    ref: Name | None = None
    amount: MoneyStr
    info: FreeObject | None = None


class DealIn(_In):
    name: Name
    ref: Name | None = None


class LoyaltyOperationIn(_In):
    """docs/api/orders.md "Loyalty operations": the customer's card by `ref` (null allowed),
    created with `name` when the customer has none."""

    ref: Name | None = None
    name: Name | None = None
    delta: DecimalStr
    reason: Text1000 | None = None


class GuestCustomer(CustomerWrite):
    """A guest order's customer data (docs/api/orders.md): the customer fields, no private ref.
    Its phone never makes the order fail: one that is not E.164 is kept as given."""

    phone: OrderPhone | None = None


ELEMENT_MODELS: dict[str, type[_In]] = {
    "items": ItemIn,
    "discounts": DiscountIn,
    "charges": ChargeIn,
    "payments": PaymentIn,
}


class OrderCreate(_In):
    """POST /locations/:id/orders: only `status` is required."""

    model_config = ConfigDict(
        extra="ignore",
        json_schema_extra={
            **KEYS_WITHOUT_NUL,
            "examples": [
                {
                    "status": "new",
                    "channel": "web",
                    "ref": "W-1042",
                    "service_type": "delivery",
                    "expected_time": "2026-06-24T19:30:00+02:00",
                    "items": [
                        {
                            "product_name": "Classic burger",
                            "sku_name": "Double",
                            "sku_ref": "classic-double",
                            "price": "12.50 EUR",
                            "quantity": "2",
                            "options": [{"option_list_name": "Extras", "name": "Cheese", "price": "1 EUR"}],
                        }
                    ],
                    "charges": [{"type": "delivery", "name": "Delivery", "price": "3.90 EUR"}],
                    "payments": [{"type": "online", "name": "Card", "amount": "30.90 EUR"}],
                    "customer": {"first_name": "Bo", "phone": "+33612345678"},
                }
            ],
            "dependentRequired": {
                "customer_private_ref": ["customer_list_id"],
                "customer_list_id": ["customer_private_ref"],
            },
        },
    )

    channel: Name | None = None
    ref: Name | None = None
    private_ref: PrivateRef | None = None
    status: Status
    service_type: ServiceType | None = None
    service_type_ref: Name | None = None
    expected_time: DateTimeStr | None = None
    expected_time_pickup: StrictBool = False
    asap: StrictBool | None = None
    confirmed_time: DateTimeStr | None = None
    driver_pickup_url: Text2000 | None = None
    customer_notes: Text5000 | None = None
    seller_notes: Text5000 | None = None
    collection_code: Text64 | None = None
    coupon_codes: list[Name] = Field(default_factory=list, max_length=100)
    items: list[ItemIn] = Field(default_factory=list, max_length=1000)
    deals: dict[str, DealIn] = Field(default_factory=dict, json_schema_extra={"propertyNames": {"pattern": NO_NUL}})
    discounts: list[DiscountIn] = Field(default_factory=list, max_length=1000)
    charges: list[ChargeIn] = Field(default_factory=list, max_length=1000)
    payments: list[PaymentIn] = Field(default_factory=list, max_length=1000)
    customer_id: IdIn | None = None
    customer_list_id: IdIn | None = None
    customer_private_ref: Str | None = Field(default=None, description="Given with `customer_list_id`, and only then")
    customer: GuestCustomer | None = None
    loyalty_operations: list[LoyaltyOperationIn] = Field(default_factory=list, max_length=100)
    custom_fields: CustomFields = Field(default_factory=dict)


class ElementDelete(RequestModel):
    """Deletes the element `id` of the order, for good."""

    model_config = ConfigDict(extra="forbid")

    id: IdIn
    deleted: Literal[True]


class ElementRef(RequestModel):
    """Sets (or with null, removes) your private ref of the element `id` of the order."""

    model_config = ConfigDict(extra="forbid")

    id: IdIn
    private_ref: PrivateRef | None


def _object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise PydanticCustomError("dict_type", "must be a JSON object")
    return value


def _forms(model: type[_In]) -> Any:
    """docs/api/orders.md "Updating an order": an element of an update is a new element
    (without `id`), `{id, deleted: true}` or `{id, private_ref}`, `id` one of the order's. Each
    is kept as sent (a JSON object) and told apart by `orders.elements`."""
    return Annotated[dict[str, Any], PlainValidator(_object, json_schema_input_type=model | ElementDelete | ElementRef)]


if TYPE_CHECKING:  # what a type checker reads of them
    ItemForm = dict[str, Any]
    DiscountForm = dict[str, Any]
    ChargeForm = dict[str, Any]
    PaymentForm = dict[str, Any]
else:
    ItemForm = _forms(ItemIn)
    DiscountForm = _forms(DiscountIn)
    ChargeForm = _forms(ChargeIn)
    PaymentForm = _forms(PaymentIn)


class OrderUpdate(_In):
    """PATCH/PUT: these fields only; each element collection takes three forms (add, delete,
    set private ref; docs/api/orders.md), told apart by the service."""

    model_config = ConfigDict(
        json_schema_extra=body_schema(
            {"status": "accepted", "confirmed_time": "2026-06-24T19:35:00+02:00"},
            {
                "items": [
                    {"id": "b3k8qw", "deleted": True},
                    {"product_name": "Cola", "price": "3 EUR", "quantity": 1},
                ],
                "payments": [{"id": "c2m7zt", "private_ref": "psp-9931"}],
            },
        )
    )

    status: Status = None  # type: ignore[assignment]
    confirmed_time: DateTimeStr | None = None
    driver_pickup_url: Text2000 | None = None
    seller_notes: Text5000 | None = None
    collection_code: Text64 | None = None
    private_ref: PrivateRef | None = None
    custom_fields: CustomFields = None
    items: list[ItemForm] = Field(default_factory=list, max_length=1000)
    discounts: list[DiscountForm] = Field(default_factory=list, max_length=1000)
    charges: list[ChargeForm] = Field(default_factory=list, max_length=1000)
    payments: list[PaymentForm] = Field(default_factory=list, max_length=1000)


# --- read shapes (spec 2.5) ---------------------------------------------------------------


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OptionOut(_Out):
    option_list_name: str | None
    name: str
    ref: str | None
    price: str | None
    quantity: int
    removed: bool


class DealLineOut(_Out):
    deal_key: str
    label: str | None
    position: int | None
    pricing_effect: str | None
    pricing_value: str | None


class _ElementOut(_Out):
    id: Id
    private_ref: str | None
    deleted: bool


class ItemOut(_ElementOut):
    product_name: str
    sku_name: str | None
    sku_ref: str | None
    price: str
    quantity: str
    subtotal: str
    tax_rate: str | None
    subset: str | None
    customer_notes: str | None
    points_earned: str | None
    points_used: str | None
    options: list[OptionOut]
    deal_line: DealLineOut | None


class DiscountOut(_ElementOut):
    name: str
    ref: str | None
    price_off: str
    pricing_effect: str | None
    pricing_value: str | None


class ChargeOut(_ElementOut):
    type: str
    name: str
    ref: str | None
    price: str
    tax_rate: str | None
    charge_type: str
    charge_ref: str | None
    charge_price: str


class PaymentOut(_ElementOut):
    type: str
    name: str | None
    ref: str | None
    amount: str
    info: dict[str, Any] | None


class DealOut(_Out):
    name: str
    ref: str | None


class OrderCustomer(CustomerFields):
    """The customer when it was attached to the order (docs/api/orders.md): the
    Customer read shape, read-only fields included. Its ids and private ref only while the
    customer exists; a guest's has null (or empty) for what it was not given."""

    id: Id | None
    customer_list_id: Id | None
    private_ref: str | None
    custom_fields: dict[str, Any]
    anonymised: bool | None
    created_at: TimeOut | None
    nb_orders: int | None
    order_total: str | None
    first_order_date: TimeOut | None
    last_order_date: TimeOut | None
    loyalty_cards: list[LoyaltyCardSummary]


class LoyaltyOperationOut(_Out):
    ref: str | None
    name: str | None
    delta: str
    reason: str | None
    new_balance: str


class Order(_Out):
    """An order (read shape)."""

    id: Id
    location_id: LocationId
    created_at: TimeOut
    created_by: str
    connection_name: str | None
    channel: str | None
    ref: str | None
    private_ref: str | None
    status: Status
    service_type: str | None
    service_type_ref: str | None
    expected_time: TimeOut | None
    expected_time_pickup: bool
    asap: bool
    confirmed_time: TimeOut | None
    driver_pickup_url: str | None
    customer_notes: str | None
    seller_notes: str | None
    collection_code: str | None
    coupon_codes: list[str]
    total: str
    total_discrepancy: str = Field(description="Deprecated: do not use")
    payment_discrepancy: str = Field(description="Deprecated: do not use")
    items: list[ItemOut]
    discounts: list[DiscountOut]
    charges: list[ChargeOut]
    payments: list[PaymentOut]
    deals: dict[str, DealOut]
    customer_id: Id | None
    customer_list_id: Id | None
    customer: OrderCustomer | None
    loyalty_operations: list[LoyaltyOperationOut]
    custom_fields: dict[str, Any]
    delivery: dict[str, Any] | None
