from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.kit import ids
from comptoir.models.base import NEVER_REUSE_IDS, PK, Base, ExactDecimal, UTCDateTime


class DeliveryQuote(Base):
    """A carrier's quote for delivering an order (spec 2.7). `accepted_at` is set once, at
    the first accept, and never changes (spec 3.3)."""

    __tablename__ = "delivery_quotes"
    __table_args__ = (Index("ix_delivery_quotes_order", "order_id", "id"), NEVER_REUSE_IDS)
    KIND = "delivery_quote"

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    order_id: Mapped[int] = mapped_column(ForeignKey("orders.id", ondelete="CASCADE"))
    carrier: Mapped[str] = mapped_column(String(255))
    carrier_ref: Mapped[str | None] = mapped_column(String(255))
    ref: Mapped[str | None] = mapped_column(String(255))
    fee: Mapped[str] = mapped_column(String(64))
    estimated_pickup_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    estimated_dropoff_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    accepted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)

    @property
    def public_id(self) -> str:
        return ids.encode(self.KIND, self.id)


class Delivery(Base):
    """The delivery of an order (spec 2.7): at most one per order, by a unique index."""

    __tablename__ = "deliveries"
    __table_args__ = NEVER_REUSE_IDS
    KIND = "delivery"

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    order_id: Mapped[int] = mapped_column(ForeignKey("orders.id", ondelete="CASCADE"), unique=True)
    carrier: Mapped[str] = mapped_column(String(255))
    carrier_ref: Mapped[str | None] = mapped_column(String(255))
    ref: Mapped[str | None] = mapped_column(String(255))
    status: Mapped[str] = mapped_column(String(32))
    fee: Mapped[str | None] = mapped_column(String(64))
    estimated_pickup_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    estimated_dropoff_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    tracking_url: Mapped[str | None] = mapped_column(Text)
    driver_name: Mapped[str | None] = mapped_column(String(255))
    driver_phone: Mapped[str | None] = mapped_column(String(64))
    driver_phone_access_code: Mapped[str | None] = mapped_column(String(64))
    driver_latitude: Mapped[Decimal | None] = mapped_column(ExactDecimal)
    driver_longitude: Mapped[Decimal | None] = mapped_column(ExactDecimal)
    driver_pickup_url: Mapped[str | None] = mapped_column(Text)
    assigned_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    pickup_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    delivered_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    cancelled_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    driver_position_updated_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)

    @property
    def public_id(self) -> str:
        return ids.encode(self.KIND, self.id)
