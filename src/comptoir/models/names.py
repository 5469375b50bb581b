from __future__ import annotations

from sqlalchemy import Boolean, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.models.base import PK, Base


class NameClaim(Base):
    """Who uses a name of catalog or customer list in an account (spec 2.4 rule 2, 2.6).

    One row per (kind, account, name): either one account-level holder (`account_level`), or
    `holders` location-level ones (each location at most once, by the kind's own unique
    constraint). The primary key is what makes two concurrent creations unable to both win:
    see `comptoir.core.names`."""

    __tablename__ = "name_claims"

    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    account_id: Mapped[int] = mapped_column(PK, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True)
    name: Mapped[str] = mapped_column(String(255), primary_key=True)
    account_level: Mapped[bool] = mapped_column(Boolean)
    holders: Mapped[int] = mapped_column(Integer)
