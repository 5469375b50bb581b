from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.kit import ids
from comptoir.kit.crypto import GIVEN_SEED_LENGTH
from comptoir.models.base import NEVER_REUSE_IDS, PK, Base, JSONValue, UTCDateTime


class OAuthClient(Base):
    """An application that integrators register (spec 5). Its secret is derived from the
    server key and `secret_seed`, never stored; regenerating the secret replaces the seed.
    A sandbox's seed file may give the secret: the seed then holds it sealed
    (`kit.crypto.given_seed`)."""

    __tablename__ = "oauth_clients"
    __table_args__ = NEVER_REUSE_IDS
    KIND = "client"

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(255))
    secret_seed: Mapped[str] = mapped_column(String(GIVEN_SEED_LENGTH))
    redirect_uris: Mapped[list[Any]] = mapped_column(JSONValue, default=list)
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)

    @property
    def public_id(self) -> str:
        return ids.encode(self.KIND, self.id)
