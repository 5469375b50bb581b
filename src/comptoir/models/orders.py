from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import BigInteger, CheckConstraint, ForeignKey, ForeignKeyConstraint, Index, Sequence, String
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.kit import ids
from comptoir.models.base import NEVER_REUSE_IDS, PK, Base, ExactDecimal, JSONValue, StoredJSON, UTCDateTime

# Ids of order elements (items, discounts, charges, payments): one series for all, so an
# element id names one element (docs/api/conventions.md "Ids"). A sequence on PostgreSQL (no
# lock between concurrent orders); a counter row on SQLite, whose writers are serialised.
ORDER_ELEMENT_IDS = Sequence("order_elements_id_seq", metadata=Base.metadata)


class Order(Base):
    """An order (spec 2.5), kept as one document: the columns are what lists filter and sort
    on (each filter of spec 4.1 has an index ending in (created_at, id), newest first); `body`
    holds every other field, elements included (never edited in place, spec 2.5 rule 7);
    `refs` the private refs each client set on the order and its elements
    ({client id: {"order" | element id: ref}}), so a read is one row; `view` the rendered
    order, kept with every write, so a read (and a list of 100) does not render again."""

    __tablename__ = "orders"
    __table_args__ = (
        Index("ix_orders_location", "location_id", "created_at", "id"),
        Index("ix_orders_account", "account_id", "created_at", "id"),
        Index("ix_orders_location_status", "location_id", "status", "created_at", "id"),
        Index("ix_orders_location_created_by", "location_id", "created_by", "created_at", "id"),
        Index("ix_orders_customer", "customer_id", "created_at", "id"),
        # A location with its account, a connection with its client: one check (and one
        # parent row locked) for each pair instead of one per column (migration 0018).
        ForeignKeyConstraint(["location_id", "account_id"], ["locations.id", "locations.account_id"]),
        ForeignKeyConstraint(
            ["connection_id", "client_id"],
            ["connections.id", "connections.client_id"],
            ondelete="SET NULL",  # the connection goes with its client: both are emptied
        ),
        CheckConstraint("client_id IS NULL OR connection_id IS NOT NULL", name="client_with_connection"),
        NEVER_REUSE_IDS,
    )
    KIND = "order"

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(PK)
    location_id: Mapped[int] = mapped_column(PK)
    status: Mapped[str] = mapped_column(String(32))
    created_by: Mapped[str] = mapped_column(String(255))  # the creating client's name
    client_id: Mapped[int | None] = mapped_column(PK)
    connection_id: Mapped[int | None] = mapped_column(PK)
    customer_id: Mapped[int | None] = mapped_column(ForeignKey("customers.id", ondelete="SET NULL"))
    total: Mapped[Decimal] = mapped_column(ExactDecimal)
    body: Mapped[dict[str, Any]] = mapped_column(JSONValue)
    refs: Mapped[dict[str, Any]] = mapped_column(JSONValue)
    # The read shape as of the last write, without private refs and delivery, and the
    # timezone its times are in: reads patch it instead of rendering (see orders.service).
    view: Mapped[dict[str, Any] | None] = mapped_column(StoredJSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)

    @property
    def public_id(self) -> str:
        return ids.encode(self.KIND, self.id)


class IdCounter(Base):
    """Counters standing in for sequences on SQLite (`comptoir.db.ids`)."""

    __tablename__ = "id_counters"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[int] = mapped_column(BigInteger)
