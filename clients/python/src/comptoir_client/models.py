"""Comptoir's request and response models, generated from the server's /v1/openapi.json by
scripts/generate_client_models.py: do not edit by hand.

Read models ignore fields they do not know, so a client keeps working when the server adds one.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, RootModel


class Account(BaseModel):
    """
    An account: the business that owns locations (docs/api/locations-accounts.md).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    currency: Annotated[str, Field(title="Currency")]
    id: Annotated[str, Field(title="Id")]
    name: Annotated[str, Field(title="Name")]


class Callback(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    disabled_at: Annotated[
        str | None,
        Field(
            description="When deliveries were disabled after failing; null while enabled",
            title="Disabled At",
        ),
    ]
    disabled_reason: Annotated[
        str | None,
        Field(
            description="Why deliveries were disabled; null while enabled",
            title="Disabled Reason",
        ),
    ]
    events: Annotated[dict[str, list[str]], Field(title="Events")]
    url: Annotated[str | None, Field(title="Url")]


class CallbackUpdate(BaseModel):
    """
    POST /callback: `url` (null or absent: passive, polling) and the `events` map.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    events: Annotated[
        Any,
        Field(
            description='Resource type -> event types, e.g. {"order": ["create", "update"]}',
            title="Events",
        ),
    ]
    url: Annotated[
        Any | None,
        Field(
            description="HTTP(S) URL to POST events to, on a public address (unless the operator allows its network); null for a passive callback",
            title="Url",
        ),
    ] = None


class CatalogWrite(BaseModel):
    """
    POST and PUT body: `name` (required on POST), and `data`, whose presence replaces all
    the content (docs/api/catalogs.md). Other keys are ignored.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    data: Annotated[
        dict[str, Any] | None,
        Field(
            description="Arrays variants, categories, products, option_lists, deals, discounts, charges.",
            title="Data",
        ),
    ] = None
    name: Annotated[str | None, Field(max_length=255, title="Name")] = None


class Category(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    description: Annotated[str | None, Field(title="Description")]
    id: Annotated[str, Field(title="Id")]
    image_ids: Annotated[list[str], Field(title="Image Ids")]
    name: Annotated[str, Field(title="Name")]
    parent_id: Annotated[str | None, Field(title="Parent Id")]
    parent_ref: Annotated[str | None, Field(title="Parent Ref")]
    ref: Annotated[str, Field(title="Ref")]
    tags: Annotated[list[str], Field(title="Tags")]


class Charge(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    id: Annotated[str, Field(title="Id")]
    name: Annotated[str, Field(title="Name")]
    price: Annotated[str | None, Field(title="Price")]
    ref: Annotated[str | None, Field(title="Ref")]
    restrictions: Annotated[dict[str, Any] | None, Field(title="Restrictions")]
    type: Annotated[str, Field(title="Type")]


class PrivateRef(RootModel[str]):
    root: Annotated[str, Field(max_length=255, title="Private Ref")]


class Ref(RootModel[str]):
    root: Annotated[str, Field(max_length=255, title="Ref")]


class TaxRate(RootModel[str]):
    root: Annotated[
        str,
        Field(
            description='Exact decimal number: a string on read (integral values read back with one decimal place, e.g. "2.0"); a string or a JSON number on write.',
            examples=["13.5"],
            pattern="^-?\\d+(\\.\\d+)?$",
            title="Tax Rate",
        ),
    ]


class ChargeIn(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(max_length=255, title="Name")]
    price: Annotated[
        str,
        Field(
            description="Amount, a space and an ISO 4217 currency; read back with 2 decimals.",
            examples=["12.50 EUR"],
            pattern="^\\d+(\\.\\d{1,2})? [A-Z]{3}$",
            title="Price",
        ),
    ]
    private_ref: Annotated[PrivateRef | None, Field(title="Private Ref")] = None
    ref: Annotated[Ref | None, Field(title="Ref")] = None
    tax_rate: Annotated[TaxRate | float | None, Field(title="Tax Rate")] = None
    type: Annotated[
        Literal["delivery", "payment_fee", "tip", "tax", "other"] | None,
        Field(title="Type"),
    ] = "other"


class ChargeOut(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    charge_price: Annotated[str, Field(title="Charge Price")]
    charge_ref: Annotated[str | None, Field(title="Charge Ref")]
    charge_type: Annotated[str, Field(title="Charge Type")]
    deleted: Annotated[bool, Field(title="Deleted")]
    id: Annotated[str, Field(title="Id")]
    name: Annotated[str, Field(title="Name")]
    price: Annotated[str, Field(title="Price")]
    private_ref: Annotated[str | None, Field(title="Private Ref")]
    ref: Annotated[str | None, Field(title="Ref")]
    tax_rate: Annotated[str | None, Field(title="Tax Rate")]
    type: Annotated[str, Field(title="Type")]


class CustomerList(BaseModel):
    """
    A customer list; `created_at` in the list's location timezone (UTC at account level).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    created_at: Annotated[str, Field(title="Created At")]
    id: Annotated[str, Field(title="Id")]
    name: Annotated[str, Field(title="Name")]


class CustomerListWrite(BaseModel):
    """
    POST and PATCH/PUT body: `name` only; other keys are ignored.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]


class Address1(RootModel[str]):
    root: Annotated[str, Field(max_length=1000, title="Address 1")]


class Address2(RootModel[str]):
    root: Annotated[str, Field(max_length=1000, title="Address 2")]


class City(RootModel[str]):
    root: Annotated[str, Field(max_length=255, title="City")]


class CompanyName(RootModel[str]):
    root: Annotated[str, Field(max_length=255, title="Company Name")]


class Country(RootModel[str]):
    root: Annotated[
        str,
        Field(
            description="ISO 3166-1 alpha-2 code",
            examples=["FR"],
            pattern="^[A-Z]{2}$",
            title="Country",
        ),
    ]


class DeliveryNotes(RootModel[str]):
    root: Annotated[str, Field(max_length=5000, title="Delivery Notes")]


class Email(RootModel[str]):
    root: Annotated[str, Field(max_length=255, title="Email")]


class FirstName(RootModel[str]):
    root: Annotated[str, Field(max_length=255, title="First Name")]


class LastName(RootModel[str]):
    root: Annotated[str, Field(max_length=255, title="Last Name")]


class PhoneAccessCode(RootModel[str]):
    root: Annotated[str, Field(max_length=64, title="Phone Access Code")]


class PostalCode(RootModel[str]):
    root: Annotated[str, Field(max_length=32, title="Postal Code")]


class State(RootModel[str]):
    root: Annotated[str, Field(max_length=255, title="State")]


class CustomerWrite(BaseModel):
    """
    POST, PATCH and PUT body (docs/api/customers.md): every field optional; on update only the
    fields present change. Read-only fields and unknown keys are ignored
    (docs/api/conventions.md "Requests").
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    address_1: Annotated[Address1 | None, Field(title="Address 1")] = None
    address_2: Annotated[Address2 | None, Field(title="Address 2")] = None
    birth_date: Annotated[date | None, Field(title="Birth Date")] = None
    city: Annotated[City | None, Field(title="City")] = None
    company_name: Annotated[CompanyName | None, Field(title="Company Name")] = None
    country: Annotated[Country | None, Field(title="Country")] = None
    custom_fields: Annotated[
        dict[str, Any] | None,
        Field(
            description="At most 8 KB as JSON. On update a null value removes the key, other keys are added or replaced, absent keys are kept.",
            title="Custom Fields",
        ),
    ] = None
    delivery_notes: Annotated[DeliveryNotes | None, Field(title="Delivery Notes")] = None
    email: Annotated[Email | None, Field(title="Email")] = None
    email_marketing: Annotated[bool | None, Field(title="Email Marketing")] = False
    first_name: Annotated[FirstName | None, Field(title="First Name")] = None
    gender: Annotated[Literal["male", "female"] | None, Field(title="Gender")] = None
    last_name: Annotated[LastName | None, Field(title="Last Name")] = None
    latitude: Annotated[str | float | None, Field(title="Latitude")] = None
    longitude: Annotated[str | float | None, Field(title="Longitude")] = None
    phone: Annotated[str | None, Field(title="Phone")] = None
    phone_access_code: Annotated[PhoneAccessCode | None, Field(title="Phone Access Code")] = None
    postal_code: Annotated[PostalCode | None, Field(title="Postal Code")] = None
    private_ref: Annotated[PrivateRef | None, Field(title="Private Ref")] = None
    sms_marketing: Annotated[bool | None, Field(title="Sms Marketing")] = False
    state: Annotated[State | None, Field(title="State")] = None


class Deal(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    category_id: Annotated[str | None, Field(title="Category Id")]
    category_ref: Annotated[str | None, Field(title="Category Ref")]
    coupon_codes: Annotated[list[str], Field(title="Coupon Codes")]
    description: Annotated[str | None, Field(title="Description")]
    id: Annotated[str, Field(title="Id")]
    image_ids: Annotated[list[str], Field(title="Image Ids")]
    lines: Annotated[list[dict[str, Any]], Field(title="Lines")]
    name: Annotated[str, Field(title="Name")]
    ref: Annotated[str | None, Field(title="Ref")]
    restrictions: Annotated[dict[str, Any] | None, Field(title="Restrictions")]
    tags: Annotated[list[str], Field(title="Tags")]


class DealIn(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(max_length=255, title="Name")]
    ref: Annotated[Ref | None, Field(title="Ref")] = None


class Label(RootModel[str]):
    root: Annotated[str, Field(max_length=255, title="Label")]


class PricingEffect(RootModel[str]):
    root: Annotated[str, Field(max_length=255, title="Pricing Effect")]


class PricingValue(RootModel[str]):
    root: Annotated[str, Field(max_length=255, title="Pricing Value")]


class DealLineIn(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    deal_key: Annotated[str, Field(title="Deal Key")]
    label: Annotated[Label | None, Field(title="Label")] = None
    position: Annotated[int | None, Field(title="Position")] = None
    pricing_effect: Annotated[PricingEffect | None, Field(title="Pricing Effect")] = None
    pricing_value: Annotated[PricingValue | None, Field(title="Pricing Value")] = None


class DealLineOut(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    deal_key: Annotated[str, Field(title="Deal Key")]
    label: Annotated[str | None, Field(title="Label")]
    position: Annotated[int | None, Field(title="Position")]
    pricing_effect: Annotated[str | None, Field(title="Pricing Effect")]
    pricing_value: Annotated[str | None, Field(title="Pricing Value")]


class DealOut(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    ref: Annotated[str | None, Field(title="Ref")]


class Delivery(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    assigned_at: Annotated[str | None, Field(title="Assigned At")]
    cancelled_at: Annotated[str | None, Field(title="Cancelled At")]
    carrier: Annotated[str, Field(title="Carrier")]
    carrier_ref: Annotated[str | None, Field(title="Carrier Ref")]
    delivered_at: Annotated[str | None, Field(title="Delivered At")]
    driver_latitude: Annotated[str | None, Field(title="Driver Latitude")]
    driver_longitude: Annotated[str | None, Field(title="Driver Longitude")]
    driver_name: Annotated[str | None, Field(title="Driver Name")]
    driver_phone: Annotated[str | None, Field(title="Driver Phone")]
    driver_phone_access_code: Annotated[str | None, Field(title="Driver Phone Access Code")]
    driver_pickup_url: Annotated[str | None, Field(title="Driver Pickup Url")]
    driver_position_updated_at: Annotated[str | None, Field(title="Driver Position Updated At")]
    estimated_dropoff_at: Annotated[str | None, Field(title="Estimated Dropoff At")]
    estimated_pickup_at: Annotated[str | None, Field(title="Estimated Pickup At")]
    fee: Annotated[str | None, Field(title="Fee")]
    id: Annotated[str, Field(title="Id")]
    location_id: Annotated[str, Field(title="Location Id")]
    order_id: Annotated[str, Field(title="Order Id")]
    pickup_at: Annotated[str | None, Field(title="Pickup At")]
    ref: Annotated[str | None, Field(title="Ref")]
    status: Annotated[
        Literal[
            "pending",
            "pickup_enroute",
            "pickup_approaching",
            "pickup_waiting",
            "dropoff_enroute",
            "dropoff_approaching",
            "dropoff_waiting",
            "delivered",
            "cancelled",
        ],
        Field(title="Status"),
    ]
    tracking_url: Annotated[str | None, Field(title="Tracking Url")]


class CarrierRef(RootModel[str]):
    root: Annotated[str, Field(max_length=255, title="Carrier Ref")]


class DriverName(RootModel[str]):
    root: Annotated[str, Field(max_length=255, title="Driver Name")]


class DriverPhoneAccessCode(RootModel[str]):
    root: Annotated[str, Field(max_length=64, title="Driver Phone Access Code")]


class DriverPickupUrl(RootModel[str]):
    root: Annotated[str, Field(max_length=2000, title="Driver Pickup Url")]


class Fee(RootModel[str]):
    root: Annotated[str, Field(max_length=64, title="Fee")]


class TrackingUrl(RootModel[str]):
    root: Annotated[str, Field(max_length=2000, title="Tracking Url")]


class DeliveryCreate(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    assigned_at: Annotated[AwareDatetime | None, Field(title="Assigned At")] = None
    cancelled_at: Annotated[AwareDatetime | None, Field(title="Cancelled At")] = None
    carrier: Annotated[str, Field(max_length=255, title="Carrier")]
    carrier_ref: Annotated[CarrierRef | None, Field(title="Carrier Ref")] = None
    delivered_at: Annotated[AwareDatetime | None, Field(title="Delivered At")] = None
    driver_latitude: Annotated[str | float | None, Field(title="Driver Latitude")] = None
    driver_longitude: Annotated[str | float | None, Field(title="Driver Longitude")] = None
    driver_name: Annotated[DriverName | None, Field(title="Driver Name")] = None
    driver_phone: Annotated[str | None, Field(title="Driver Phone")] = None
    driver_phone_access_code: Annotated[DriverPhoneAccessCode | None, Field(title="Driver Phone Access Code")] = None
    driver_pickup_url: Annotated[DriverPickupUrl | None, Field(title="Driver Pickup Url")] = None
    driver_position_updated_at: Annotated[AwareDatetime | None, Field(title="Driver Position Updated At")] = None
    estimated_dropoff_at: Annotated[AwareDatetime | None, Field(title="Estimated Dropoff At")] = None
    estimated_pickup_at: Annotated[AwareDatetime | None, Field(title="Estimated Pickup At")] = None
    fee: Annotated[Fee | None, Field(title="Fee")] = None
    pickup_at: Annotated[AwareDatetime | None, Field(title="Pickup At")] = None
    ref: Annotated[Ref | None, Field(title="Ref")] = None
    status: Annotated[
        Literal[
            "pending",
            "pickup_enroute",
            "pickup_approaching",
            "pickup_waiting",
            "dropoff_enroute",
            "dropoff_approaching",
            "dropoff_waiting",
            "delivered",
            "cancelled",
        ],
        Field(title="Status"),
    ]
    tracking_url: Annotated[TrackingUrl | None, Field(title="Tracking Url")] = None


class DeliveryUpdate(BaseModel):
    """
    PATCH/PUT: any field but `carrier`, `carrier_ref` and `fee` (ignored).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    assigned_at: Annotated[AwareDatetime | None, Field(title="Assigned At")] = None
    cancelled_at: Annotated[AwareDatetime | None, Field(title="Cancelled At")] = None
    delivered_at: Annotated[AwareDatetime | None, Field(title="Delivered At")] = None
    driver_latitude: Annotated[str | float | None, Field(title="Driver Latitude")] = None
    driver_longitude: Annotated[str | float | None, Field(title="Driver Longitude")] = None
    driver_name: Annotated[DriverName | None, Field(title="Driver Name")] = None
    driver_phone: Annotated[str | None, Field(title="Driver Phone")] = None
    driver_phone_access_code: Annotated[DriverPhoneAccessCode | None, Field(title="Driver Phone Access Code")] = None
    driver_pickup_url: Annotated[DriverPickupUrl | None, Field(title="Driver Pickup Url")] = None
    driver_position_updated_at: Annotated[AwareDatetime | None, Field(title="Driver Position Updated At")] = None
    estimated_dropoff_at: Annotated[AwareDatetime | None, Field(title="Estimated Dropoff At")] = None
    estimated_pickup_at: Annotated[AwareDatetime | None, Field(title="Estimated Pickup At")] = None
    pickup_at: Annotated[AwareDatetime | None, Field(title="Pickup At")] = None
    ref: Annotated[Ref | None, Field(title="Ref")] = None
    status: Annotated[
        Literal[
            "pending",
            "pickup_enroute",
            "pickup_approaching",
            "pickup_waiting",
            "dropoff_enroute",
            "dropoff_approaching",
            "dropoff_waiting",
            "delivered",
            "cancelled",
        ]
        | None,
        Field(title="Status"),
    ] = None
    tracking_url: Annotated[TrackingUrl | None, Field(title="Tracking Url")] = None


class Discount(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    coupon_codes: Annotated[list[str], Field(title="Coupon Codes")]
    description: Annotated[str | None, Field(title="Description")]
    id: Annotated[str, Field(title="Id")]
    image_ids: Annotated[list[str], Field(title="Image Ids")]
    name: Annotated[str, Field(title="Name")]
    pricing_effect: Annotated[str, Field(title="Pricing Effect")]
    pricing_value: Annotated[str, Field(title="Pricing Value")]
    ref: Annotated[str | None, Field(title="Ref")]
    restrictions: Annotated[dict[str, Any] | None, Field(title="Restrictions")]


class DiscountIn(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(max_length=255, title="Name")]
    price_off: Annotated[
        str,
        Field(
            description="Amount, a space and an ISO 4217 currency; read back with 2 decimals.",
            examples=["12.50 EUR"],
            pattern="^\\d+(\\.\\d{1,2})? [A-Z]{3}$",
            title="Price Off",
        ),
    ]
    pricing_effect: Annotated[PricingEffect | None, Field(title="Pricing Effect")] = None
    pricing_value: Annotated[PricingValue | None, Field(title="Pricing Value")] = None
    private_ref: Annotated[PrivateRef | None, Field(title="Private Ref")] = None
    ref: Annotated[Ref | None, Field(title="Ref")] = None


class DiscountOut(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    deleted: Annotated[bool, Field(title="Deleted")]
    id: Annotated[str, Field(title="Id")]
    name: Annotated[str, Field(title="Name")]
    price_off: Annotated[str, Field(title="Price Off")]
    pricing_effect: Annotated[str | None, Field(title="Pricing Effect")]
    pricing_value: Annotated[str | None, Field(title="Pricing Value")]
    private_ref: Annotated[str | None, Field(title="Private Ref")]
    ref: Annotated[str | None, Field(title="Ref")]


class ErrorBody(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    error_type: Annotated[str, Field(title="Error Type")]
    message: Annotated[str, Field(title="Message")]


class Event(BaseModel):
    """
    A full event: new_state for create and update, previous_state for update
    and delete, state_change for inventory patch, no state for catalog events.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    account_id: Annotated[str | None, Field(title="Account Id")] = None
    catalog_id: Annotated[str | None, Field(title="Catalog Id")] = None
    created_at: Annotated[str, Field(title="Created At")]
    customer_id: Annotated[str | None, Field(title="Customer Id")] = None
    customer_list_id: Annotated[str | None, Field(title="Customer List Id")] = None
    delivery_id: Annotated[str | None, Field(title="Delivery Id")] = None
    event_type: Annotated[str, Field(title="Event Type")]
    id: Annotated[str, Field(title="Id")]
    location_id: Annotated[str | None, Field(title="Location Id")] = None
    new_state: Annotated[dict[str, Any] | None, Field(title="New State")] = None
    order_id: Annotated[str | None, Field(title="Order Id")] = None
    previous_state: Annotated[dict[str, Any] | None, Field(title="Previous State")] = None
    resource_type: Annotated[str, Field(title="Resource Type")]
    state_change: Annotated[list[dict[str, Any]] | None, Field(title="State Change")] = None


class EventSummary(BaseModel):
    """
    An event as listed: without its states. The id fields present depend on
    the resource type (docs/api/callbacks-events.md "Event payloads").
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    account_id: Annotated[str | None, Field(title="Account Id")] = None
    catalog_id: Annotated[str | None, Field(title="Catalog Id")] = None
    created_at: Annotated[str, Field(title="Created At")]
    customer_id: Annotated[str | None, Field(title="Customer Id")] = None
    customer_list_id: Annotated[str | None, Field(title="Customer List Id")] = None
    delivery_id: Annotated[str | None, Field(title="Delivery Id")] = None
    event_type: Annotated[str, Field(title="Event Type")]
    id: Annotated[str, Field(title="Id")]
    location_id: Annotated[str | None, Field(title="Location Id")] = None
    order_id: Annotated[str | None, Field(title="Order Id")] = None
    resource_type: Annotated[str, Field(title="Resource Type")]


class FieldErrorBody(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    field: Annotated[str, Field(title="Field")]
    message: Annotated[str, Field(title="Message")]


class GuestCustomer(BaseModel):
    """
    A guest order's customer data (docs/api/orders.md): the customer fields, no private ref.
    Its phone never makes the order fail: one that is not E.164 is kept as given.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    address_1: Annotated[Address1 | None, Field(title="Address 1")] = None
    address_2: Annotated[Address2 | None, Field(title="Address 2")] = None
    birth_date: Annotated[date | None, Field(title="Birth Date")] = None
    city: Annotated[City | None, Field(title="City")] = None
    company_name: Annotated[CompanyName | None, Field(title="Company Name")] = None
    country: Annotated[Country | None, Field(title="Country")] = None
    custom_fields: Annotated[
        dict[str, Any] | None,
        Field(
            description="At most 8 KB as JSON. On update a null value removes the key, other keys are added or replaced, absent keys are kept.",
            title="Custom Fields",
        ),
    ] = None
    delivery_notes: Annotated[DeliveryNotes | None, Field(title="Delivery Notes")] = None
    email: Annotated[Email | None, Field(title="Email")] = None
    email_marketing: Annotated[bool | None, Field(title="Email Marketing")] = False
    first_name: Annotated[FirstName | None, Field(title="First Name")] = None
    gender: Annotated[Literal["male", "female"] | None, Field(title="Gender")] = None
    last_name: Annotated[LastName | None, Field(title="Last Name")] = None
    latitude: Annotated[str | float | None, Field(title="Latitude")] = None
    longitude: Annotated[str | float | None, Field(title="Longitude")] = None
    phone: Annotated[str | None, Field(title="Phone")] = None
    phone_access_code: Annotated[PhoneAccessCode | None, Field(title="Phone Access Code")] = None
    postal_code: Annotated[PostalCode | None, Field(title="Postal Code")] = None
    private_ref: Annotated[PrivateRef | None, Field(title="Private Ref")] = None
    sms_marketing: Annotated[bool | None, Field(title="Sms Marketing")] = False
    state: Annotated[State | None, Field(title="State")] = None


class Image(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    id: Annotated[str, Field(title="Id")]
    md5: Annotated[str, Field(title="Md5")]
    private_ref: Annotated[str | None, Field(title="Private Ref")]
    seconds_before_removal: Annotated[int | None, Field(title="Seconds Before Removal")]
    size: Annotated[int, Field(title="Size")]
    type: Annotated[str, Field(title="Type")]


class InventoryEntry(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    expires_at: Annotated[str | None, Field(title="Expires At")]
    option_ref: Annotated[str | None, Field(title="Option Ref")]
    sku_ref: Annotated[str | None, Field(title="Sku Ref")]
    stock: Annotated[str | None, Field(title="Stock")]


class CustomerNotes(RootModel[str]):
    root: Annotated[str, Field(max_length=5000, title="Customer Notes")]


class PointsEarned(RootModel[str]):
    root: Annotated[
        str,
        Field(
            description='Exact decimal number: a string on read (integral values read back with one decimal place, e.g. "2.0"); a string or a JSON number on write.',
            examples=["13.5"],
            pattern="^-?\\d+(\\.\\d+)?$",
            title="Points Earned",
        ),
    ]


class PointsUsed(RootModel[str]):
    root: Annotated[
        str,
        Field(
            description='Exact decimal number: a string on read (integral values read back with one decimal place, e.g. "2.0"); a string or a JSON number on write.',
            examples=["13.5"],
            pattern="^-?\\d+(\\.\\d+)?$",
            title="Points Used",
        ),
    ]


class Quantity(RootModel[str]):
    root: Annotated[
        str,
        Field(
            description='Exact decimal number: a string on read (integral values read back with one decimal place, e.g. "2.0"); a string or a JSON number on write.',
            examples=["13.5"],
            pattern="^-?\\d+(\\.\\d+)?$",
            title="Quantity",
        ),
    ]


class SkuName(RootModel[str]):
    root: Annotated[str, Field(max_length=255, title="Sku Name")]


class SkuRef(RootModel[str]):
    root: Annotated[str, Field(max_length=255, title="Sku Ref")]


class LoyaltyCard(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    balance: Annotated[str, Field(title="Balance")]
    customer_id: Annotated[str, Field(title="Customer Id")]
    id: Annotated[str, Field(title="Id")]
    name: Annotated[str | None, Field(title="Name")]
    ref: Annotated[str | None, Field(title="Ref")]


class Name(RootModel[str]):
    root: Annotated[str, Field(max_length=255, title="Name")]


class LoyaltyCardCreate(BaseModel):
    """
    POST body: `customer_id` required (a customer of the list).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    customer_id: Annotated[str, Field(title="Customer Id")]
    name: Annotated[Name | None, Field(title="Name")] = None
    ref: Annotated[Ref | None, Field(title="Ref")] = None


class LoyaltyCardSummary(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    balance: Annotated[str, Field(title="Balance")]
    id: Annotated[str, Field(title="Id")]
    name: Annotated[str | None, Field(title="Name")]
    ref: Annotated[str | None, Field(title="Ref")]


class LoyaltyCardUpdate(BaseModel):
    """
    PATCH/PUT body: `name` and `ref` only; `customer_id` and `balance` are
    read-only and ignored.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[Name | None, Field(title="Name")] = None
    ref: Annotated[Ref | None, Field(title="Ref")] = None


class LoyaltyOperation(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    created_at: Annotated[str, Field(title="Created At")]
    customer_id: Annotated[str, Field(title="Customer Id")]
    delta: Annotated[str, Field(title="Delta")]
    id: Annotated[str, Field(title="Id")]
    new_balance: Annotated[str, Field(title="New Balance")]
    order_id: Annotated[str | None, Field(title="Order Id")]
    order_location_id: Annotated[str | None, Field(title="Order Location Id")]
    reason: Annotated[str | None, Field(title="Reason")]


class Delta(RootModel[str]):
    root: Annotated[
        str,
        Field(
            description='Exact decimal number: a string on read (integral values read back with one decimal place, e.g. "2.0"); a string or a JSON number on write.',
            examples=["13.5"],
            pattern="^-?\\d+(\\.\\d+)?$",
            title="Delta",
        ),
    ]


class Reason(RootModel[str]):
    root: Annotated[str, Field(max_length=1000, title="Reason")]


class LoyaltyOperationCreate(BaseModel):
    """
    POST body: `delta` required, an exact decimal (string or JSON number).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    delta: Annotated[
        Delta | float,
        Field(
            description='Exact decimal number: a string on read (integral values read back with one decimal place, e.g. "2.0"); a string or a JSON number on write.',
            examples=["13.5"],
            title="Delta",
        ),
    ]
    order_id: Annotated[str | None, Field(title="Order Id")] = None
    reason: Annotated[Reason | None, Field(title="Reason")] = None


class LoyaltyOperationIn(BaseModel):
    """
    docs/api/orders.md "Loyalty operations": the customer's card by `ref` (null allowed),
    created with `name` when the customer has none.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    delta: Annotated[
        Delta | float,
        Field(
            description='Exact decimal number: a string on read (integral values read back with one decimal place, e.g. "2.0"); a string or a JSON number on write.',
            examples=["13.5"],
            title="Delta",
        ),
    ]
    name: Annotated[Name | None, Field(title="Name")] = None
    reason: Annotated[Reason | None, Field(title="Reason")] = None
    ref: Annotated[Ref | None, Field(title="Ref")] = None


class LoyaltyOperationOut(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    delta: Annotated[str, Field(title="Delta")]
    name: Annotated[str | None, Field(title="Name")]
    new_balance: Annotated[str, Field(title="New Balance")]
    reason: Annotated[str | None, Field(title="Reason")]
    ref: Annotated[str | None, Field(title="Ref")]


class Option(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    default: Annotated[bool, Field(title="Default")]
    id: Annotated[str, Field(title="Id")]
    name: Annotated[str, Field(title="Name")]
    option_list_id: Annotated[str, Field(title="Option List Id")]
    price: Annotated[str, Field(title="Price")]
    price_overrides: Annotated[list[dict[str, Any]], Field(title="Price Overrides")]
    ref: Annotated[str | None, Field(title="Ref")]
    restrictions: Annotated[dict[str, Any] | None, Field(title="Restrictions")]
    tags: Annotated[list[str], Field(title="Tags")]


class OptionListName(RootModel[str]):
    root: Annotated[str, Field(max_length=255, title="Option List Name")]


class Price(RootModel[str]):
    root: Annotated[
        str,
        Field(
            description="Amount, a space and an ISO 4217 currency; read back with 2 decimals.",
            examples=["12.50 EUR"],
            pattern="^\\d+(\\.\\d{1,2})? [A-Z]{3}$",
            title="Price",
        ),
    ]


class OptionIn(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(max_length=255, title="Name")]
    option_list_name: Annotated[OptionListName | None, Field(title="Option List Name")] = None
    price: Annotated[Price | None, Field(title="Price")] = None
    quantity: Annotated[int | None, Field(ge=1, le=1000000, title="Quantity")] = 1
    ref: Annotated[Ref | None, Field(title="Ref")] = None
    removed: Annotated[bool | None, Field(title="Removed")] = False


class OptionList(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    id: Annotated[str, Field(title="Id")]
    max_selections: Annotated[int | None, Field(title="Max Selections")]
    min_selections: Annotated[int, Field(title="Min Selections")]
    name: Annotated[str, Field(title="Name")]
    options: Annotated[list[Option], Field(title="Options")]
    ref: Annotated[str, Field(title="Ref")]
    tags: Annotated[list[str], Field(title="Tags")]
    type: Annotated[str, Field(title="Type")]


class OptionOut(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    option_list_name: Annotated[str | None, Field(title="Option List Name")]
    price: Annotated[str | None, Field(title="Price")]
    quantity: Annotated[int, Field(title="Quantity")]
    ref: Annotated[str | None, Field(title="Ref")]
    removed: Annotated[bool, Field(title="Removed")]


class OrderAcceptance(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    extra_preparation_time: Annotated[int | None, Field(title="Extra Preparation Time")]
    mode: Annotated[Literal["normal", "busy", "paused"], Field(title="Mode")]
    reason: Annotated[str | None, Field(title="Reason")]
    resume_at: Annotated[
        str | None,
        Field(description="Time at which the mode reverts to normal", title="Resume At"),
    ]


class OrderAcceptanceUpdate(BaseModel):
    """
    One of `{mode: normal}`, `{mode: busy, resume_at?, extra_preparation_time}`,
    `{mode: paused, resume_at?, reason?}` (docs/api/locations-accounts.md).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    extra_preparation_time: Annotated[int | None, Field(title="Extra Preparation Time")] = None
    mode: Annotated[Literal["normal", "busy", "paused"], Field(title="Mode")]
    reason: Annotated[str | None, Field(title="Reason")] = None
    resume_at: Annotated[AwareDatetime | None, Field(title="Resume At")] = None


class Channel(RootModel[str]):
    root: Annotated[str, Field(max_length=255, title="Channel")]


class CollectionCode(RootModel[str]):
    root: Annotated[str, Field(max_length=64, title="Collection Code")]


class CouponCode(RootModel[str]):
    root: Annotated[str, Field(max_length=255)]


class SellerNotes(RootModel[str]):
    root: Annotated[str, Field(max_length=5000, title="Seller Notes")]


class ServiceTypeRef(RootModel[str]):
    root: Annotated[str, Field(max_length=255, title="Service Type Ref")]


class OrderCustomer(BaseModel):
    """
    The customer when it was attached to the order (docs/api/orders.md): the
    Customer read shape, read-only fields included. Its ids and private ref only while the
    customer exists; a guest's has null (or empty) for what it was not given.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    address_1: Annotated[str | None, Field(title="Address 1")]
    address_2: Annotated[str | None, Field(title="Address 2")]
    anonymised: Annotated[bool | None, Field(title="Anonymised")]
    birth_date: Annotated[str | None, Field(title="Birth Date")]
    city: Annotated[str | None, Field(title="City")]
    company_name: Annotated[str | None, Field(title="Company Name")]
    country: Annotated[str | None, Field(title="Country")]
    created_at: Annotated[str | None, Field(title="Created At")]
    custom_fields: Annotated[dict[str, Any], Field(title="Custom Fields")]
    customer_list_id: Annotated[str | None, Field(title="Customer List Id")]
    delivery_notes: Annotated[str | None, Field(title="Delivery Notes")]
    email: Annotated[str | None, Field(title="Email")]
    email_marketing: Annotated[bool, Field(title="Email Marketing")]
    first_name: Annotated[str | None, Field(title="First Name")]
    first_order_date: Annotated[str | None, Field(title="First Order Date")]
    gender: Annotated[Literal["male", "female"] | None, Field(title="Gender")]
    id: Annotated[str | None, Field(title="Id")]
    last_name: Annotated[str | None, Field(title="Last Name")]
    last_order_date: Annotated[str | None, Field(title="Last Order Date")]
    latitude: Annotated[str | None, Field(title="Latitude")]
    longitude: Annotated[str | None, Field(title="Longitude")]
    loyalty_cards: Annotated[list[LoyaltyCardSummary], Field(title="Loyalty Cards")]
    nb_orders: Annotated[int | None, Field(title="Nb Orders")]
    order_total: Annotated[str | None, Field(title="Order Total")]
    phone: Annotated[str | None, Field(title="Phone")]
    phone_access_code: Annotated[str | None, Field(title="Phone Access Code")]
    postal_code: Annotated[str | None, Field(title="Postal Code")]
    private_ref: Annotated[str | None, Field(title="Private Ref")]
    sms_marketing: Annotated[bool, Field(title="Sms Marketing")]
    state: Annotated[str | None, Field(title="State")]


class OrderUpdate(BaseModel):
    """
    PATCH/PUT: these fields only; each element collection takes three forms (add, delete,
    set private ref; docs/api/orders.md), told apart by the service.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    charges: Annotated[list[dict[str, Any]] | None, Field(max_length=1000, title="Charges")] = None
    collection_code: Annotated[CollectionCode | None, Field(title="Collection Code")] = None
    confirmed_time: Annotated[AwareDatetime | None, Field(title="Confirmed Time")] = None
    custom_fields: Annotated[
        dict[str, Any] | None,
        Field(
            description="At most 8 KB as JSON. On update a null value removes the key, other keys are added or replaced, absent keys are kept.",
            title="Custom Fields",
        ),
    ] = None
    discounts: Annotated[list[dict[str, Any]] | None, Field(max_length=1000, title="Discounts")] = None
    driver_pickup_url: Annotated[DriverPickupUrl | None, Field(title="Driver Pickup Url")] = None
    items: Annotated[list[dict[str, Any]] | None, Field(max_length=1000, title="Items")] = None
    payments: Annotated[list[dict[str, Any]] | None, Field(max_length=1000, title="Payments")] = None
    private_ref: Annotated[PrivateRef | None, Field(title="Private Ref")] = None
    seller_notes: Annotated[SellerNotes | None, Field(title="Seller Notes")] = None
    status: Annotated[
        Literal[
            "new",
            "received",
            "accepted",
            "in_preparation",
            "awaiting_shipment",
            "awaiting_collection",
            "in_delivery",
            "completed",
            "rejected",
            "cancelled",
            "delivery_failed",
        ]
        | None,
        Field(title="Status"),
    ] = None


class PaymentIn(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    amount: Annotated[
        str,
        Field(
            description="Amount, a space and an ISO 4217 currency; read back with 2 decimals.",
            examples=["12.50 EUR"],
            pattern="^\\d+(\\.\\d{1,2})? [A-Z]{3}$",
            title="Amount",
        ),
    ]
    info: Annotated[dict[str, Any] | None, Field(title="Info")] = None
    name: Annotated[Name | None, Field(title="Name")] = None
    private_ref: Annotated[PrivateRef | None, Field(title="Private Ref")] = None
    ref: Annotated[Ref | None, Field(title="Ref")] = None
    type: Annotated[Literal["online", "gift_card", "cash"] | None, Field(title="Type")] = "online"


class PaymentOut(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    amount: Annotated[str, Field(title="Amount")]
    deleted: Annotated[bool, Field(title="Deleted")]
    id: Annotated[str, Field(title="Id")]
    info: Annotated[dict[str, Any] | None, Field(title="Info")]
    name: Annotated[str | None, Field(title="Name")]
    private_ref: Annotated[str | None, Field(title="Private Ref")]
    ref: Annotated[str | None, Field(title="Ref")]
    type: Annotated[str, Field(title="Type")]


class Queued(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    count: Annotated[
        int,
        Field(description="How many events were queued for redelivery", title="Count"),
    ]


class Quote(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    accepted_at: Annotated[str | None, Field(title="Accepted At")]
    carrier: Annotated[str, Field(title="Carrier")]
    carrier_ref: Annotated[str | None, Field(title="Carrier Ref")]
    estimated_dropoff_at: Annotated[str | None, Field(title="Estimated Dropoff At")]
    estimated_pickup_at: Annotated[str | None, Field(title="Estimated Pickup At")]
    fee: Annotated[str, Field(title="Fee")]
    id: Annotated[str, Field(title="Id")]
    location_id: Annotated[str, Field(title="Location Id")]
    order_id: Annotated[str, Field(title="Order Id")]
    ref: Annotated[str | None, Field(title="Ref")]


class QuoteCreate(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    carrier: Annotated[str, Field(max_length=255, title="Carrier")]
    carrier_ref: Annotated[CarrierRef | None, Field(title="Carrier Ref")] = None
    estimated_dropoff_at: Annotated[AwareDatetime | None, Field(title="Estimated Dropoff At")] = None
    estimated_pickup_at: Annotated[AwareDatetime | None, Field(title="Estimated Pickup At")] = None
    fee: Annotated[str, Field(max_length=64, title="Fee")]
    ref: Annotated[Ref | None, Field(title="Ref")] = None


class ReplayRange(BaseModel):
    """
    POST /callback/replay: the events created from `from` (included) to `to` (excluded).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    from_: Annotated[
        Any | None,
        Field(
            alias="from",
            description="ISO 8601 time; UTC when it has no offset",
            title="From",
        ),
    ] = None
    to: Annotated[
        Any | None,
        Field(description="ISO 8601 time, at most 31 days after from", title="To"),
    ] = None


class ServiceType(RootModel[Literal["delivery", "collection", "eat_in"]]):
    root: Annotated[Literal["delivery", "collection", "eat_in"], Field(title="ServiceType")]


class SigningSecret(BaseModel):
    """
    The secret of the `webhook-signature` header (docs/api/callbacks-events.md "Verifying a callback").
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    previous_secret_expires_at: Annotated[
        str | None,
        Field(
            description="Until when the previous secret signs too, after a rotation; null when it no longer does",
            title="Previous Secret Expires At",
        ),
    ]
    secret: Annotated[
        str,
        Field(
            description="`whsec_` and the standard base64 of the key's bytes",
            title="Secret",
        ),
    ]


class Sku(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    barcodes: Annotated[list[str], Field(title="Barcodes")]
    custom_fields: Annotated[dict[str, Any], Field(title="Custom Fields")]
    id: Annotated[str, Field(title="Id")]
    name: Annotated[str | None, Field(title="Name")]
    nb_servings: Annotated[int | None, Field(title="Nb Servings")]
    option_list_ids: Annotated[list[str], Field(title="Option List Ids")]
    option_list_refs: Annotated[list[str], Field(title="Option List Refs")]
    price: Annotated[str, Field(title="Price")]
    price_overrides: Annotated[list[dict[str, Any]], Field(title="Price Overrides")]
    product_id: Annotated[str, Field(title="Product Id")]
    ref: Annotated[str | None, Field(title="Ref")]
    restrictions: Annotated[dict[str, Any] | None, Field(title="Restrictions")]
    tags: Annotated[list[str], Field(title="Tags")]
    volume: Annotated[str | None, Field(title="Volume")]
    weight: Annotated[str | None, Field(title="Weight")]


class Slot(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    from_: Annotated[
        str,
        Field(
            alias="from",
            examples=["06:00"],
            pattern="^([01][0-9]|2[0-3]):[0-5][0-9]$",
            title="From",
        ),
    ]
    to: Annotated[
        str,
        Field(examples=["06:00"], pattern="^([01][0-9]|2[0-3]):[0-5][0-9]$", title="To"),
    ]


class SlotOut(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    from_: Annotated[str, Field(alias="from", title="From")]
    to: Annotated[str, Field(title="To")]


class TestEvent(BaseModel):
    """
    The outcome of one POST of a test event to the callback URL.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    delivered: Annotated[
        bool,
        Field(
            description="Whether the receiver answered 200-499 in time",
            title="Delivered",
        ),
    ]
    error: Annotated[
        str | None,
        Field(
            description="Why no answer came (timeout, connect_error, refused: ...), or null",
            title="Error",
        ),
    ]
    event: Annotated[
        dict[str, Any],
        Field(description="The test event's body, as sent", title="Event"),
    ]
    status: Annotated[
        int | None,
        Field(description="The receiver's status, null without an answer", title="Status"),
    ]


class Timezone(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(description="IANA timezone name", title="Name")]
    offset: Annotated[
        int,
        Field(
            description="Deprecated: standard offset in seconds, ignoring daylight saving",
            title="Offset",
        ),
    ]


class TokenResponse(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    access_token: Annotated[str, Field(description="Send it in `X-Access-Token` (or as a Bearer token).")]
    account_id: Annotated[str | None, Field(description="The account the token is bound to.")] = None
    account_name: str | None = None
    catalog_id: Annotated[
        str | None,
        Field(description="The catalog the token is bound to, if its scope names one."),
    ] = None
    catalog_name: str | None = None
    customer_list_id: Annotated[
        str | None,
        Field(description="The customer list the token is bound to, if any."),
    ] = None
    customer_list_name: str | None = None
    location_id: Annotated[
        str | None,
        Field(description="The location the token is bound to (location level)."),
    ] = None
    location_name: str | None = None
    scope: Annotated[
        str | None,
        Field(description="The scope the user granted, e.g. `location[orders.read],profile`."),
    ] = None
    token_type: Literal["Bearer"]


class User(BaseModel):
    """
    The user who connected the application; `email` only with the profile_with_email scope.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    email: Annotated[
        str | None,
        Field(description="Present only with the profile_with_email scope", title="Email"),
    ] = None
    first_name: Annotated[str | None, Field(title="First Name")]
    id: Annotated[str, Field(title="Id")]
    last_name: Annotated[str | None, Field(title="Last Name")]
    locales: Annotated[list[str], Field(title="Locales")]
    timezone: Timezone


class ValidationErrorBody(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    error_type: Annotated[str, Field(title="Error Type")]
    errors: Annotated[list[FieldErrorBody], Field(title="Errors")]
    message: Annotated[str, Field(title="Message")]


class Variant(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    ref: Annotated[str, Field(title="Ref")]


class Customer(BaseModel):
    """
    A customer (read shape). `private_ref` is the reading client's own.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    address_1: Annotated[str | None, Field(title="Address 1")]
    address_2: Annotated[str | None, Field(title="Address 2")]
    anonymised: Annotated[bool, Field(title="Anonymised")]
    birth_date: Annotated[str | None, Field(title="Birth Date")]
    city: Annotated[str | None, Field(title="City")]
    company_name: Annotated[str | None, Field(title="Company Name")]
    country: Annotated[str | None, Field(title="Country")]
    created_at: Annotated[str, Field(title="Created At")]
    custom_fields: Annotated[dict[str, Any], Field(title="Custom Fields")]
    customer_list_id: Annotated[str, Field(title="Customer List Id")]
    delivery_notes: Annotated[str | None, Field(title="Delivery Notes")]
    email: Annotated[str | None, Field(title="Email")]
    email_marketing: Annotated[bool, Field(title="Email Marketing")]
    first_name: Annotated[str | None, Field(title="First Name")]
    first_order_date: Annotated[str | None, Field(title="First Order Date")]
    gender: Annotated[Literal["male", "female"] | None, Field(title="Gender")]
    id: Annotated[str, Field(title="Id")]
    last_name: Annotated[str | None, Field(title="Last Name")]
    last_order_date: Annotated[str | None, Field(title="Last Order Date")]
    latitude: Annotated[str | None, Field(title="Latitude")]
    longitude: Annotated[str | None, Field(title="Longitude")]
    loyalty_cards: Annotated[list[LoyaltyCardSummary], Field(title="Loyalty Cards")]
    nb_orders: Annotated[int, Field(title="Nb Orders")]
    order_total: Annotated[str, Field(title="Order Total")]
    phone: Annotated[str | None, Field(title="Phone")]
    phone_access_code: Annotated[str | None, Field(title="Phone Access Code")]
    postal_code: Annotated[str | None, Field(title="Postal Code")]
    private_ref: Annotated[str | None, Field(title="Private Ref")]
    sms_marketing: Annotated[bool, Field(title="Sms Marketing")]
    state: Annotated[str | None, Field(title="State")]


class ItemIn(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    customer_notes: Annotated[CustomerNotes | None, Field(title="Customer Notes")] = None
    deal_line: DealLineIn | None = None
    options: Annotated[list[OptionIn] | None, Field(max_length=1000, title="Options")] = None
    points_earned: Annotated[PointsEarned | float | None, Field(title="Points Earned")] = None
    points_used: Annotated[PointsUsed | float | None, Field(title="Points Used")] = None
    price: Annotated[
        str,
        Field(
            description="Amount, a space and an ISO 4217 currency; read back with 2 decimals.",
            examples=["12.50 EUR"],
            pattern="^\\d+(\\.\\d{1,2})? [A-Z]{3}$",
            title="Price",
        ),
    ]
    private_ref: Annotated[PrivateRef | None, Field(title="Private Ref")] = None
    product_name: Annotated[str, Field(max_length=255, title="Product Name")]
    quantity: Annotated[
        Quantity | float,
        Field(
            description='Exact decimal number: a string on read (integral values read back with one decimal place, e.g. "2.0"); a string or a JSON number on write.',
            examples=["13.5"],
            title="Quantity",
        ),
    ]
    sku_name: Annotated[SkuName | None, Field(title="Sku Name")] = None
    sku_ref: Annotated[SkuRef | None, Field(title="Sku Ref")] = None
    tax_rate: Annotated[TaxRate | float | None, Field(title="Tax Rate")] = None


class ItemOut(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    customer_notes: Annotated[str | None, Field(title="Customer Notes")]
    deal_line: DealLineOut | None
    deleted: Annotated[bool, Field(title="Deleted")]
    id: Annotated[str, Field(title="Id")]
    options: Annotated[list[OptionOut], Field(title="Options")]
    points_earned: Annotated[str | None, Field(title="Points Earned")]
    points_used: Annotated[str | None, Field(title="Points Used")]
    price: Annotated[str, Field(title="Price")]
    private_ref: Annotated[str | None, Field(title="Private Ref")]
    product_name: Annotated[str, Field(title="Product Name")]
    quantity: Annotated[str, Field(title="Quantity")]
    sku_name: Annotated[str | None, Field(title="Sku Name")]
    sku_ref: Annotated[str | None, Field(title="Sku Ref")]
    subset: Annotated[str | None, Field(title="Subset")]
    subtotal: Annotated[str, Field(title="Subtotal")]
    tax_rate: Annotated[str | None, Field(title="Tax Rate")]


class OpeningHours(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    friday: Annotated[list[SlotOut] | None, Field(title="Friday")] = None
    monday: Annotated[list[SlotOut] | None, Field(title="Monday")] = None
    saturday: Annotated[list[SlotOut] | None, Field(title="Saturday")] = None
    sunday: Annotated[list[SlotOut] | None, Field(title="Sunday")] = None
    thursday: Annotated[list[SlotOut] | None, Field(title="Thursday")] = None
    tuesday: Annotated[list[SlotOut] | None, Field(title="Tuesday")] = None
    wednesday: Annotated[list[SlotOut] | None, Field(title="Wednesday")] = None


class OpeningHoursUpdate(BaseModel):
    """
    Keys `monday` to `sunday`; a missing day or an empty array means closed.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    friday: Annotated[list[Slot] | None, Field(title="Friday")] = None
    monday: Annotated[list[Slot] | None, Field(title="Monday")] = None
    saturday: Annotated[list[Slot] | None, Field(title="Saturday")] = None
    sunday: Annotated[list[Slot] | None, Field(title="Sunday")] = None
    thursday: Annotated[list[Slot] | None, Field(title="Thursday")] = None
    tuesday: Annotated[list[Slot] | None, Field(title="Tuesday")] = None
    wednesday: Annotated[list[Slot] | None, Field(title="Wednesday")] = None


class Order(BaseModel):
    """
    An order (read shape).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    asap: Annotated[bool, Field(title="Asap")]
    channel: Annotated[str | None, Field(title="Channel")]
    charges: Annotated[list[ChargeOut], Field(title="Charges")]
    collection_code: Annotated[str | None, Field(title="Collection Code")]
    confirmed_time: Annotated[str | None, Field(title="Confirmed Time")]
    connection_name: Annotated[str | None, Field(title="Connection Name")]
    coupon_codes: Annotated[list[str], Field(title="Coupon Codes")]
    created_at: Annotated[str, Field(title="Created At")]
    created_by: Annotated[str, Field(title="Created By")]
    custom_fields: Annotated[dict[str, Any], Field(title="Custom Fields")]
    customer: OrderCustomer | None
    customer_id: Annotated[str | None, Field(title="Customer Id")]
    customer_list_id: Annotated[str | None, Field(title="Customer List Id")]
    customer_notes: Annotated[str | None, Field(title="Customer Notes")]
    deals: Annotated[dict[str, DealOut], Field(title="Deals")]
    delivery: Annotated[dict[str, Any] | None, Field(title="Delivery")]
    discounts: Annotated[list[DiscountOut], Field(title="Discounts")]
    driver_pickup_url: Annotated[str | None, Field(title="Driver Pickup Url")]
    expected_time: Annotated[str | None, Field(title="Expected Time")]
    expected_time_pickup: Annotated[bool, Field(title="Expected Time Pickup")]
    id: Annotated[str, Field(title="Id")]
    items: Annotated[list[ItemOut], Field(title="Items")]
    location_id: Annotated[str, Field(title="Location Id")]
    loyalty_operations: Annotated[list[LoyaltyOperationOut], Field(title="Loyalty Operations")]
    payment_discrepancy: Annotated[str, Field(description="Deprecated: do not use", title="Payment Discrepancy")]
    payments: Annotated[list[PaymentOut], Field(title="Payments")]
    private_ref: Annotated[str | None, Field(title="Private Ref")]
    ref: Annotated[str | None, Field(title="Ref")]
    seller_notes: Annotated[str | None, Field(title="Seller Notes")]
    service_type: Annotated[str | None, Field(title="Service Type")]
    service_type_ref: Annotated[str | None, Field(title="Service Type Ref")]
    status: Annotated[
        Literal[
            "new",
            "received",
            "accepted",
            "in_preparation",
            "awaiting_shipment",
            "awaiting_collection",
            "in_delivery",
            "completed",
            "rejected",
            "cancelled",
            "delivery_failed",
        ],
        Field(title="Status"),
    ]
    total: Annotated[str, Field(title="Total")]
    total_discrepancy: Annotated[str, Field(description="Deprecated: do not use", title="Total Discrepancy")]


class OrderCreate(BaseModel):
    """
    POST /locations/:id/orders: only `status` is required.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    asap: Annotated[bool | None, Field(title="Asap")] = None
    channel: Annotated[Channel | None, Field(title="Channel")] = None
    charges: Annotated[list[ChargeIn] | None, Field(max_length=1000, title="Charges")] = None
    collection_code: Annotated[CollectionCode | None, Field(title="Collection Code")] = None
    confirmed_time: Annotated[AwareDatetime | None, Field(title="Confirmed Time")] = None
    coupon_codes: Annotated[list[CouponCode] | None, Field(max_length=100, title="Coupon Codes")] = None
    custom_fields: Annotated[
        dict[str, Any] | None,
        Field(
            description="At most 8 KB as JSON. On update a null value removes the key, other keys are added or replaced, absent keys are kept.",
            title="Custom Fields",
        ),
    ] = None
    customer: GuestCustomer | None = None
    customer_id: Annotated[str | None, Field(title="Customer Id")] = None
    customer_list_id: Annotated[str | None, Field(title="Customer List Id")] = None
    customer_notes: Annotated[CustomerNotes | None, Field(title="Customer Notes")] = None
    customer_private_ref: Annotated[str | None, Field(title="Customer Private Ref")] = None
    deals: Annotated[dict[str, DealIn] | None, Field(title="Deals")] = None
    discounts: Annotated[list[DiscountIn] | None, Field(max_length=1000, title="Discounts")] = None
    driver_pickup_url: Annotated[DriverPickupUrl | None, Field(title="Driver Pickup Url")] = None
    expected_time: Annotated[AwareDatetime | None, Field(title="Expected Time")] = None
    expected_time_pickup: Annotated[bool | None, Field(title="Expected Time Pickup")] = False
    items: Annotated[list[ItemIn] | None, Field(max_length=1000, title="Items")] = None
    loyalty_operations: Annotated[
        list[LoyaltyOperationIn] | None,
        Field(max_length=100, title="Loyalty Operations"),
    ] = None
    payments: Annotated[list[PaymentIn] | None, Field(max_length=1000, title="Payments")] = None
    private_ref: Annotated[PrivateRef | None, Field(title="Private Ref")] = None
    ref: Annotated[Ref | None, Field(title="Ref")] = None
    seller_notes: Annotated[SellerNotes | None, Field(title="Seller Notes")] = None
    service_type: ServiceType | None = None
    service_type_ref: Annotated[ServiceTypeRef | None, Field(title="Service Type Ref")] = None
    status: Annotated[
        Literal[
            "new",
            "received",
            "accepted",
            "in_preparation",
            "awaiting_shipment",
            "awaiting_collection",
            "in_delivery",
            "completed",
            "rejected",
            "cancelled",
            "delivery_failed",
        ],
        Field(title="Status"),
    ]


class Product(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    category_id: Annotated[str, Field(title="Category Id")]
    category_ref: Annotated[str, Field(title="Category Ref")]
    description: Annotated[str | None, Field(title="Description")]
    id: Annotated[str, Field(title="Id")]
    image_ids: Annotated[list[str], Field(title="Image Ids")]
    name: Annotated[str, Field(title="Name")]
    nutrition: Annotated[dict[str, Any] | None, Field(title="Nutrition")]
    ref: Annotated[str | None, Field(title="Ref")]
    skus: Annotated[list[Sku], Field(title="Skus")]
    tags: Annotated[list[str], Field(title="Tags")]
    tax_rate: Annotated[dict[str, str] | None, Field(title="Tax Rate")]


class CatalogData(BaseModel):
    """
    A catalog's whole content, each section in its read order (docs/api/catalogs.md).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    categories: Annotated[list[Category], Field(title="Categories")]
    charges: Annotated[list[Charge], Field(title="Charges")]
    deals: Annotated[list[Deal], Field(title="Deals")]
    discounts: Annotated[list[Discount], Field(title="Discounts")]
    option_lists: Annotated[list[OptionList], Field(title="Option Lists")]
    products: Annotated[list[Product], Field(title="Products")]
    variants: Annotated[list[Variant], Field(title="Variants")]


class Location(BaseModel):
    """
    A location (read shape).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    account: Account
    address: Annotated[str | None, Field(title="Address")]
    city: Annotated[str | None, Field(title="City")]
    country: Annotated[str, Field(title="Country")]
    custom_fields: Annotated[dict[str, Any], Field(title="Custom Fields")]
    cutoff_time: Annotated[str, Field(title="Cutoff Time")]
    id: Annotated[str, Field(title="Id")]
    name: Annotated[str, Field(title="Name")]
    opening_hours: OpeningHours | None
    order_acceptance: OrderAcceptance
    postal_code: Annotated[str | None, Field(title="Postal Code")]
    preparation_time: Annotated[int, Field(title="Preparation Time")]
    timezone: Timezone


class LocationUpdate(BaseModel):
    """
    PATCH/PUT /locations/:id: only these fields; others are ignored. An absent
    field is unchanged; `opening_hours: null` unsets the opening hours.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    custom_fields: Annotated[
        dict[str, Any] | None,
        Field(
            description="At most 8 KB as JSON. On update a null value removes the key, other keys are added or replaced, absent keys are kept.",
            title="Custom Fields",
        ),
    ] = None
    cutoff_time: Annotated[
        str | None,
        Field(
            examples=["06:00"],
            pattern="^([01][0-9]|2[0-3]):[0-5][0-9]$",
            title="Cutoff Time",
        ),
    ] = None
    opening_hours: OpeningHoursUpdate | None = None
    order_acceptance: OrderAcceptanceUpdate | None = None
    preparation_time: Annotated[int | None, Field(title="Preparation Time")] = None


class Catalog(BaseModel):
    """
    A catalog; `data` is omitted by lists and by `hide_data=true`.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    account_id: Annotated[str | None, Field(title="Account Id")]
    created_at: Annotated[str, Field(title="Created At")]
    data: CatalogData | None = None
    id: Annotated[str, Field(title="Id")]
    location_id: Annotated[str | None, Field(title="Location Id")]
    name: Annotated[str, Field(title="Name")]
