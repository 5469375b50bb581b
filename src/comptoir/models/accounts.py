from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.kit import ids
from comptoir.models.base import PK, Base, UTCDateTime


class Account(Base):
    """A business: owns locations, catalogs and customer lists (spec 2.3 Account)."""

    __tablename__ = "accounts"
    KIND = "account"

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(255))
    currency: Mapped[str] = mapped_column(String(3))
    owner_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    # spec 5.6: tokens of a suspended account get 401 "... suspended for non payment ..."
    suspended: Mapped[bool] = mapped_column(Boolean, default=False)
    # Location numbers are allocated by an atomic increment of this counter.
    location_count: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)

    @property
    def public_id(self) -> str:
        return ids.encode(self.KIND, self.id)
