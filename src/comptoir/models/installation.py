from __future__ import annotations

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.models.base import Base


class Installation(Base):
    """What makes this installation itself, one row written when its database is created:
    `id_key` keys its public ids (`comptoir.kit.ids`), so two installations hand out
    unrelated ids. "" in a database that held data before there were keys (its ids stay)."""

    __tablename__ = "installation"

    id_key: Mapped[str] = mapped_column(String(64), primary_key=True)
