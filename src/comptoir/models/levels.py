"""The columns of a resource held at location level or account level: catalogs (spec 2.4) and
customer lists (spec 2.6). Each table adds its own `__table_args__` (its unique name within
a location) and `KIND`."""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.kit import ids
from comptoir.models.base import PK, UTCDateTime


class AtLevel:
    """`location_id` set: location level; None: account level. The name is unique within a
    location, and held across the account by `comptoir.core.names`."""

    KIND: ClassVar[str]

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(255))
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    location_id: Mapped[int | None] = mapped_column(ForeignKey("locations.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)

    @property
    def public_id(self) -> str:
        return ids.encode(self.KIND, self.id)
