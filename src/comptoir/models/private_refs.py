from __future__ import annotations

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.models.base import PK, Base


class PrivateRef(Base):
    """A client's private ref on one object (spec 2.2 item 7): visible to that client only,
    indexed for lookups by (client, resource type, ref). `scope_id`, when set, makes the
    ref unique among that client's refs of the scope (a customer's list)."""

    __tablename__ = "private_refs"
    __table_args__ = (
        Index("ix_private_refs_lookup", "client_id", "resource_type", "ref"),
        # A ref unique within a scope, e.g. a customer's within its list (docs/api/customers.md
        # "Private refs": per list and client); NULL scopes never conflict.
        Index("uq_private_refs_scoped", "resource_type", "client_id", "scope_id", "ref", unique=True),
    )

    resource_type: Mapped[str] = mapped_column(String(32), primary_key=True)
    resource_id: Mapped[int] = mapped_column(PK, primary_key=True)
    client_id: Mapped[int] = mapped_column(ForeignKey("oauth_clients.id", ondelete="CASCADE"), primary_key=True)
    ref: Mapped[str] = mapped_column(String(255))
    scope_id: Mapped[int | None] = mapped_column(PK)
