"""Request and read shapes of spec 2.3 Location, OpeningHours and OrderAcceptance."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from comptoir.accounts.schemas import Account
from comptoir.kit.custom_fields import CustomFields
from comptoir.kit.decimals import WholeNumber
from comptoir.kit.ids import LocationId
from comptoir.kit.requests import RequestModel
from comptoir.kit.text import KEYS_WITHOUT_NUL, NO_NUL, body_schema
from comptoir.kit.times import DateTimeStr, HourMinute, TimeOut

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MAX_MINUTES = 7 * 24 * 60  # a preparation time, extra or not
MAX_REASON = 1000
_MINUTES: dict[str, Any] = {"minimum": 0, "maximum": MAX_MINUTES}


class Timezone(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="IANA timezone name")
    offset: int = Field(description="Deprecated: standard offset in seconds, ignoring daylight saving")


class Slot(RequestModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True, json_schema_extra=KEYS_WITHOUT_NUL)

    from_: HourMinute = Field(alias="from")
    to: HourMinute


class OpeningHoursUpdate(RequestModel):
    """Keys `monday` to `sunday`; a missing day or an empty array means closed, and the week
    has at least one slot. A time before the location's `cutoff_time` belongs to the next day:
    a slot's `to` follows its `from`, and the slots of a day do not overlap."""

    model_config = ConfigDict(
        extra="ignore",
        json_schema_extra={
            **KEYS_WITHOUT_NUL,
            "anyOf": [{"required": [day], "properties": {day: {"type": "array", "minItems": 1}}} for day in DAYS],
        },
    )

    monday: list[Slot] | None = None
    tuesday: list[Slot] | None = None
    wednesday: list[Slot] | None = None
    thursday: list[Slot] | None = None
    friday: list[Slot] | None = None
    saturday: list[Slot] | None = None
    sunday: list[Slot] | None = None

    def as_stored(self) -> dict[str, list[dict[str, str]]]:
        return {
            day: [{"from": slot.from_, "to": slot.to} for slot in slots]
            for day in DAYS
            if (slots := getattr(self, day)) is not None
        }


class OrderAcceptanceUpdate(RequestModel):
    """One of `{mode: normal}`, `{mode: busy, resume_at?, extra_preparation_time}`,
    `{mode: paused, resume_at?, reason?}` (docs/api/locations-accounts.md)."""

    model_config = ConfigDict(extra="ignore", json_schema_extra=lambda schema: _one_shape(schema))

    mode: Literal["normal", "busy", "paused"]
    resume_at: DateTimeStr | None = Field(default=None, description="In the future")
    extra_preparation_time: WholeNumber | None = Field(default=None, json_schema_extra=_MINUTES)
    reason: StrictStr | None = Field(default=None, json_schema_extra={"maxLength": MAX_REASON, "pattern": NO_NUL})


# the keys each order-acceptance mode takes (spec 2.3), read by the back office's form too
ACCEPTANCE_SHAPES = {"normal": (), "busy": ("resume_at", "extra_preparation_time"), "paused": ("resume_at", "reason")}


def _one_shape(schema: dict[str, Any]) -> None:
    """docs/api/locations-accounts.md "Order acceptance": each mode takes its own keys (those of
    another mode only as null), and `busy` requires `extra_preparation_time`."""
    shapes = []
    for mode, keys in ACCEPTANCE_SHAPES.items():
        properties: dict[str, Any] = {"mode": {"const": mode}}
        properties |= {
            key: {"type": "null"} for key in ("resume_at", "extra_preparation_time", "reason") if key not in keys
        }
        required = ["mode"]
        if mode == "busy":
            properties["extra_preparation_time"] = {"type": "integer"}
            required.append("extra_preparation_time")
        shapes.append({"properties": properties, "required": required})
    schema["oneOf"] = shapes
    schema |= KEYS_WITHOUT_NUL


class LocationUpdate(RequestModel):
    """PATCH/PUT /locations/:id: only these fields; others are ignored. An absent field,
    or one sent as null, is unchanged; but `opening_hours: null` unsets the opening hours
    (docs/api/conventions.md "Null fields")."""

    model_config = ConfigDict(
        extra="ignore",
        json_schema_extra=body_schema(
            {"preparation_time": 25, "order_acceptance": {"mode": "busy", "extra_preparation_time": 15}},
            {
                "cutoff_time": "06:00",
                "opening_hours": {"monday": [{"from": "11:30", "to": "14:30"}]},
            },
            {
                "order_acceptance": {
                    "mode": "paused",
                    "resume_at": "2026-06-24T21:00:00+02:00",
                    "reason": "Kitchen fire",
                }
            },
        ),
    )

    cutoff_time: HourMinute = None
    opening_hours: OpeningHoursUpdate | None = None
    preparation_time: WholeNumber = Field(default=None, json_schema_extra=_MINUTES)
    order_acceptance: OrderAcceptanceUpdate = None  # type: ignore[assignment]
    custom_fields: CustomFields = None


class SlotOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    from_: str = Field(alias="from")
    to: str


class OpeningHours(BaseModel):
    model_config = ConfigDict(extra="forbid")

    monday: list[SlotOut] | None = None
    tuesday: list[SlotOut] | None = None
    wednesday: list[SlotOut] | None = None
    thursday: list[SlotOut] | None = None
    friday: list[SlotOut] | None = None
    saturday: list[SlotOut] | None = None
    sunday: list[SlotOut] | None = None


class OrderAcceptance(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mode: Literal["normal", "busy", "paused"]
    resume_at: TimeOut | None = Field(description="Time at which the mode reverts to normal")
    extra_preparation_time: int | None
    reason: str | None


class Location(BaseModel):
    """A location (read shape)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "id": "4k3jxr-1",
                    "name": "Chez Ann, Bastille",
                    "account": {"id": "4k3jxr", "name": "Chez Ann", "currency": "EUR"},
                    "address": "12 rue de la Roquette",
                    "postal_code": "75011",
                    "city": "Paris",
                    "country": "FR",
                    "timezone": {"name": "Europe/Paris", "offset": 3600},
                    "cutoff_time": "06:00",
                    "opening_hours": {
                        "monday": [{"from": "11:30", "to": "14:30"}, {"from": "18:30", "to": "23:00"}],
                        "tuesday": [{"from": "11:30", "to": "14:30"}],
                    },
                    "preparation_time": 20,
                    "order_acceptance": {
                        "mode": "busy",
                        "resume_at": "2026-06-24T21:00:00+02:00",
                        "extra_preparation_time": 15,
                        "reason": None,
                    },
                    "custom_fields": {"pos_id": "B-11"},
                }
            ]
        },
    )

    id: LocationId
    name: str
    account: Account
    address: str | None
    postal_code: str | None
    city: str | None
    country: str
    timezone: Timezone
    cutoff_time: str
    opening_hours: OpeningHours | None
    preparation_time: int
    order_acceptance: OrderAcceptance
    custom_fields: dict[str, Any]
