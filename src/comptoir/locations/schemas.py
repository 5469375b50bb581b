"""Request and read shapes of spec 2.3 Location, OpeningHours and OrderAcceptance."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from comptoir.accounts.schemas import Account
from comptoir.kit.custom_fields import CustomFields
from comptoir.kit.times import DateTimeStr, HourMinute

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


class Timezone(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="IANA timezone name")
    offset: int = Field(description="Deprecated: standard offset in seconds, ignoring daylight saving")


class Slot(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    from_: HourMinute = Field(alias="from")
    to: HourMinute


class OpeningHoursUpdate(BaseModel):
    """Keys `monday` to `sunday`; a missing day or an empty array means closed."""

    model_config = ConfigDict(extra="ignore")

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


class OrderAcceptanceUpdate(BaseModel):
    """One of `{mode: normal}`, `{mode: busy, resume_at?, extra_preparation_time}`,
    `{mode: paused, resume_at?, reason?}` (docs/api/locations-accounts.md)."""

    model_config = ConfigDict(extra="ignore")

    mode: Literal["normal", "busy", "paused"]
    resume_at: DateTimeStr | None = None
    extra_preparation_time: StrictInt | None = None
    reason: StrictStr | None = None


class LocationUpdate(BaseModel):
    """PATCH/PUT /locations/:id: only these fields; others are ignored. An absent
    field is unchanged; `opening_hours: null` unsets the opening hours."""

    model_config = ConfigDict(extra="ignore")

    cutoff_time: HourMinute = None
    opening_hours: OpeningHoursUpdate | None = None
    # Not nullable: an explicit null is refused (absent means unchanged).
    preparation_time: StrictInt = None  # type: ignore[assignment]
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
    resume_at: str | None = Field(description="Time at which the mode reverts to normal")
    extra_preparation_time: int | None
    reason: str | None


class Location(BaseModel):
    """A location (read shape)."""

    model_config = ConfigDict(extra="forbid")

    id: str
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
