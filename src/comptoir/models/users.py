from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import String, Text
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.kit import ids
from comptoir.models.base import NEVER_REUSE_IDS, PK, Base, JSONValue, UTCDateTime


class User(Base):
    """A person who owns accounts and authorises applications (spec 2.3 User)."""

    __tablename__ = "users"
    __table_args__ = NEVER_REUSE_IDS
    KIND = "user"

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    email: Mapped[str] = mapped_column(String(254), unique=True)  # as kit/emails.py normalises it
    password_hash: Mapped[str] = mapped_column(Text)
    first_name: Mapped[str | None] = mapped_column(String(255))
    last_name: Mapped[str | None] = mapped_column(String(255))
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    locales: Mapped[list[Any]] = mapped_column(JSONValue, default=lambda: ["en-GB"])
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)

    @property
    def public_id(self) -> str:
        return ids.encode(self.KIND, self.id)
