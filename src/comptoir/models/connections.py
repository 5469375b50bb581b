from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.kit import ids
from comptoir.kit.crypto import GIVEN_SEED_LENGTH
from comptoir.models.base import NEVER_REUSE_IDS, PK, Base, UTCDateTime


class Connection(Base):
    """A client connected to a location or an account by a user (spec 1.2-1.3, 5.5).

    Identified by (client, location or account, name) (docs/api/oauth.md "Connections"): authorising
    it again gives the same token and replaces scope, catalog and customer list. `target`
    spells that location or account ("location:<pk>", "account:<pk>", or "user:<pk>" for a
    connection whose scope is only `profile`). The token is derived from the server key and
    `token_seed` (or, given by a sandbox's seed file, sealed in it: `kit.crypto.given_seed`);
    only its lookup hash is stored.
    """

    __tablename__ = "connections"
    __table_args__ = (
        UniqueConstraint("client_id", "target", "name"),
        Index("uq_connections_id_client_id", "id", "client_id", unique=True),  # orders refer to both
        NEVER_REUSE_IDS,
    )
    KIND = "connection"

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    client_id: Mapped[int] = mapped_column(ForeignKey("oauth_clients.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    level: Mapped[str] = mapped_column(String(10))  # location | account | user
    target: Mapped[str] = mapped_column(String(40))
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id"), index=True)
    location_id: Mapped[int | None] = mapped_column(ForeignKey("locations.id"), index=True)
    catalog_id: Mapped[int | None] = mapped_column(ForeignKey("catalogs.id", ondelete="SET NULL"), index=True)
    customer_list_id: Mapped[int | None] = mapped_column(
        ForeignKey("customer_lists.id", ondelete="SET NULL"), index=True
    )
    name: Mapped[str] = mapped_column(String(255), default="")
    scope: Mapped[str] = mapped_column(Text)
    token_seed: Mapped[str] = mapped_column(String(GIVEN_SEED_LENGTH))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    blocked: Mapped[bool] = mapped_column(Boolean, default=False)
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)  # within a second or so
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)

    @property
    def public_id(self) -> str:
        return ids.encode(self.KIND, self.id)


class CacheStamp(Base):
    """SQLite only: `stamp` is set to a new random number by triggers whenever a row that a
    process's connection cache holds changes (migration 0032), so a process learns of it with
    one read (`comptoir.db.connection_cache`). PostgreSQL notifies instead: no rows there."""

    __tablename__ = "cache_stamps"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)  # "connections"
    stamp: Mapped[int] = mapped_column(BigInteger)
