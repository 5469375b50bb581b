from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Boolean, Date, ForeignKey, Index, Integer, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.kit import ids
from comptoir.models.base import NEVER_REUSE_IDS, PK, Base, ExactDecimal, JSONValue, UTCDateTime, search_text
from comptoir.models.levels import AtLevel


class CustomerList(AtLevel, Base):
    """A customer list at location level (`location_id` set) or account level (spec 2.6).

    Naming (spec 2.6) is enforced by the database: `uq_customer_lists_location_id_name` for
    names within a location, and a `name_claims` row for the account-wide rule
    (`comptoir.core.names`)."""

    __tablename__ = "customer_lists"
    __table_args__ = (UniqueConstraint("location_id", "name"), NEVER_REUSE_IDS)
    KIND = "customer_list"


class Customer(Base):
    """A customer of a list (spec 2.6). `email_lower` is the email as searched (filters are
    case-insensitive); it and `phone` have (list, value, id) indexes so `email=john*` is an
    index range, whatever the list's size. Order counters are kept by the Orders feature."""

    __tablename__ = "customers"
    __table_args__ = (
        Index("ix_customers_list", "customer_list_id", "id"),
        Index("ix_customers_email", "customer_list_id", "email_lower", "id"),
        Index("ix_customers_phone", "customer_list_id", "phone", "id"),
        NEVER_REUSE_IDS,
    )
    KIND = "customer"

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    customer_list_id: Mapped[int] = mapped_column(ForeignKey("customer_lists.id", ondelete="CASCADE"))
    email: Mapped[str | None] = mapped_column(String(255))
    email_lower: Mapped[str | None] = mapped_column(search_text(255))
    first_name: Mapped[str | None] = mapped_column(String(255))
    last_name: Mapped[str | None] = mapped_column(String(255))
    gender: Mapped[str | None] = mapped_column(String(6))
    birth_date: Mapped[date | None] = mapped_column(Date)
    company_name: Mapped[str | None] = mapped_column(String(255))
    phone: Mapped[str | None] = mapped_column(search_text(64))
    phone_access_code: Mapped[str | None] = mapped_column(String(64))
    address_1: Mapped[str | None] = mapped_column(String(1000))
    address_2: Mapped[str | None] = mapped_column(String(1000))
    postal_code: Mapped[str | None] = mapped_column(String(32))
    city: Mapped[str | None] = mapped_column(String(255))
    state: Mapped[str | None] = mapped_column(String(255))
    country: Mapped[str | None] = mapped_column(String(2))
    latitude: Mapped[Decimal | None] = mapped_column(ExactDecimal)
    longitude: Mapped[Decimal | None] = mapped_column(ExactDecimal)
    delivery_notes: Mapped[str | None] = mapped_column(Text)
    sms_marketing: Mapped[bool] = mapped_column(Boolean, default=False)
    email_marketing: Mapped[bool] = mapped_column(Boolean, default=False)
    custom_fields: Mapped[dict[str, Any]] = mapped_column(JSONValue)
    anonymised: Mapped[bool] = mapped_column(Boolean, default=False)
    nb_orders: Mapped[int] = mapped_column(Integer, default=0)
    order_total: Mapped[Decimal] = mapped_column(ExactDecimal)
    first_order_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_order_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)

    @property
    def public_id(self) -> str:
        return ids.encode(self.KIND, self.id)


class LoyaltyCard(Base):
    """A customer's loyalty card (spec 2.6). `ref` is unique per customer, and at most one
    card of a customer has a null ref: both are indexes, so concurrent creates cannot both
    win. `balance` changes only with an operation, under the card's row lock."""

    __tablename__ = "loyalty_cards"
    __table_args__ = (
        UniqueConstraint("customer_id", "ref"),
        Index(
            "uq_loyalty_cards_null_ref",
            "customer_id",
            unique=True,
            sqlite_where=text("ref IS NULL"),
            postgresql_where=text("ref IS NULL"),
        ),
        Index("ix_loyalty_cards_list", "customer_list_id", "id"),
        NEVER_REUSE_IDS,
    )
    KIND = "loyalty_card"

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    customer_list_id: Mapped[int] = mapped_column(ForeignKey("customer_lists.id", ondelete="CASCADE"))
    customer_id: Mapped[int] = mapped_column(ForeignKey("customers.id", ondelete="CASCADE"))
    name: Mapped[str | None] = mapped_column(String(255))
    ref: Mapped[str | None] = mapped_column(String(255))
    balance: Mapped[Decimal] = mapped_column(ExactDecimal)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)

    @property
    def public_id(self) -> str:
        return ids.encode(self.KIND, self.id)


class LoyaltyOperation(Base):
    """One change of a card's balance (spec 2.6): never updated or deleted; a reversal is a
    new, opposite operation. `new_balance` is the card's balance right after it."""

    __tablename__ = "loyalty_operations"
    __table_args__ = (Index("ix_loyalty_operations_card", "loyalty_card_id", "id"), NEVER_REUSE_IDS)
    KIND = "loyalty_operation"

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    loyalty_card_id: Mapped[int] = mapped_column(ForeignKey("loyalty_cards.id", ondelete="CASCADE"))
    customer_id: Mapped[int] = mapped_column(ForeignKey("customers.id", ondelete="CASCADE"), index=True)
    delta: Mapped[Decimal] = mapped_column(ExactDecimal)
    new_balance: Mapped[Decimal] = mapped_column(ExactDecimal)
    reason: Mapped[str | None] = mapped_column(Text)
    order_id: Mapped[int | None] = mapped_column(PK)  # orders come with the Orders feature
    order_location_id: Mapped[int | None] = mapped_column(ForeignKey("locations.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)

    @property
    def public_id(self) -> str:
        return ids.encode(self.KIND, self.id)
