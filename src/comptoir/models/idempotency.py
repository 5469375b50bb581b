from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.models.base import PK, Base, UTCDateTime


class IdempotencyKey(Base):
    """The first answer to a creation sent with an `Idempotency-Key` (docs/api/conventions.md "Idempotency"):
    written in the creation's own transaction, so it exists exactly when the creation does."""

    __tablename__ = "idempotency_keys"
    __table_args__ = (Index("ix_idempotency_keys_created_at", "created_at"),)

    connection_id: Mapped[int] = mapped_column(PK, ForeignKey("connections.id", ondelete="CASCADE"), primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    request_hash: Mapped[str] = mapped_column(String(64))
    response: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
