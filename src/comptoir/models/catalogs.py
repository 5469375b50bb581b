from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.kit import ids
from comptoir.models.base import NEVER_REUSE_IDS, PK, Base, UTCDateTime


class Catalog(Base):
    """A catalog at location level (`location_id` set) or account level (spec 2.4).
    Naming (spec 2.4 rule 2) is enforced by the database: `uq_catalogs_location_id_name`
    within a location, and a `name_claims` row for the account-wide rule (`comptoir.core.names`)."""

    __tablename__ = "catalogs"
    __table_args__ = (UniqueConstraint("location_id", "name"), NEVER_REUSE_IDS)
    KIND = "catalog"

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(255))
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    location_id: Mapped[int | None] = mapped_column(ForeignKey("locations.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)

    @property
    def public_id(self) -> str:
        return ids.encode(self.KIND, self.id)
