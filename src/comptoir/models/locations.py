from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.kit import ids
from comptoir.models.base import NEVER_REUSE_IDS, PK, Base, JSONValue, UTCDateTime


class Location(Base):
    """A shop or restaurant of an account (spec 2.3 Location).

    Its public id is its account's id, a dash and its number within the account
    (docs/api/conventions.md "Ids": `3r4s3-1`).
    """

    __tablename__ = "locations"
    __table_args__ = (
        UniqueConstraint("account_id", "number"),
        Index("uq_locations_id_account_id", "id", "account_id", unique=True),  # orders refer to both
        NEVER_REUSE_IDS,
    )

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    number: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(255))
    address: Mapped[str | None] = mapped_column(Text)
    postal_code: Mapped[str | None] = mapped_column(String(32))
    city: Mapped[str | None] = mapped_column(String(255))
    country: Mapped[str] = mapped_column(String(2))
    timezone: Mapped[str] = mapped_column(String(64))
    cutoff_time: Mapped[str] = mapped_column(String(5), default="06:00")
    opening_hours: Mapped[dict[str, Any] | None] = mapped_column(JSONValue)
    preparation_time: Mapped[int] = mapped_column(Integer)
    # OrderAcceptance (spec 2.3), flattened so the resume_at job can use an index.
    acceptance_mode: Mapped[str] = mapped_column(String(10), default="normal")
    acceptance_resume_at: Mapped[datetime | None] = mapped_column(UTCDateTime, index=True)
    acceptance_extra_preparation_time: Mapped[int | None] = mapped_column(Integer)
    acceptance_reason: Mapped[str | None] = mapped_column(Text)
    custom_fields: Mapped[dict[str, Any]] = mapped_column(JSONValue, default=dict)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)

    @property
    def public_id(self) -> str:
        return location_public_id(self.account_id, self.number)


class LocationView:
    """A read-only copy of a location row, as fast reads return it (no ORM instrumentation);
    renders like a Location."""

    __slots__ = tuple(c.key for c in Location.__table__.columns)
    id: int
    account_id: int
    number: int
    name: str
    address: str | None
    postal_code: str | None
    city: str | None
    country: str
    timezone: str
    cutoff_time: str
    opening_hours: dict[str, Any] | None
    preparation_time: int
    acceptance_mode: str
    acceptance_resume_at: datetime | None
    acceptance_extra_preparation_time: int | None
    acceptance_reason: str | None
    custom_fields: dict[str, Any]
    created_at: datetime
    updated_at: datetime

    def __init__(self, **values: Any) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"LocationView is read-only ({name})")

    @property
    def public_id(self) -> str:
        return location_public_id(self.account_id, self.number)


class LocationRef(Protocol):
    """What reading code needs of a location: a `Location` row or a `LocationView` copy."""

    @property
    def id(self) -> int: ...
    @property
    def account_id(self) -> int: ...
    @property
    def number(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def country(self) -> str: ...
    @property
    def timezone(self) -> str: ...
    @property
    def public_id(self) -> str: ...


def location_public_id(account_pk: int, number: int) -> str:
    return f"{ids.encode('account', account_pk)}-{number}"


def parse_location_id(public_id: str) -> tuple[int, int] | None:
    """(account pk, number) behind a location id, or None when malformed."""
    account_part, dash, number_part = public_id.partition("-")
    if not dash or not number_part.isdigit() or number_part.startswith("0") or len(number_part) > 9:
        return None
    account_pk = ids.decode("account", account_part)
    return (account_pk, int(number_part)) if account_pk is not None else None
