from __future__ import annotations

from datetime import datetime

from sqlalchemy import LargeBinary, String
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.models.base import PK, Base, UTCDateTime


class Installation(Base):
    """What makes this installation itself, one row written when its database is created:
    `id_key` keys its public ids (`comptoir.kit.ids`), so two installations hand out
    unrelated ids. "" in a database that held data before there were keys (its ids stay)."""

    __tablename__ = "installation"

    id_key: Mapped[str] = mapped_column(String(64), primary_key=True)


class ServerKeyWrap(Base):
    """The installation's data key, sealed under one server key it accepts
    (`comptoir.db.server_key`, docs/operations.md "Server key"): one row per accepted key."""

    __tablename__ = "server_key_wraps"

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    wrapped: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False)
