"""Inventory (docs/api/inventory.md "Entries"): per catalog and location, one entry per sku ref or
option ref with a stock; no entry means unlimited stock."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.models.base import Base, ExactDecimal, UTCDateTime


class InventoryEntry(Base):
    __tablename__ = "inventory_entries"
    # the worker's lookup of entries coming back (`expires_at` set only with stock 0)
    __table_args__ = (Index("ix_inventory_entries_expiry", "expires_at"),)

    catalog_id: Mapped[int] = mapped_column(ForeignKey("catalogs.id", ondelete="CASCADE"), primary_key=True)
    location_id: Mapped[int] = mapped_column(ForeignKey("locations.id", ondelete="CASCADE"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8), primary_key=True)  # "sku" or "option"
    ref: Mapped[str] = mapped_column(String(255), primary_key=True)
    stock: Mapped[Decimal] = mapped_column(ExactDecimal)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
