from __future__ import annotations

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.models.base import PK, Base


class PrivateRef(Base):
    """A client's private ref on one object (spec 2.2 item 7): visible to that client only,
    indexed for lookups by (client, resource type, ref)."""

    __tablename__ = "private_refs"
    __table_args__ = (Index("ix_private_refs_lookup", "client_id", "resource_type", "ref"),)

    resource_type: Mapped[str] = mapped_column(String(32), primary_key=True)
    resource_id: Mapped[int] = mapped_column(PK, primary_key=True)
    client_id: Mapped[int] = mapped_column(ForeignKey("oauth_clients.id", ondelete="CASCADE"), primary_key=True)
    ref: Mapped[str] = mapped_column(String(255))
