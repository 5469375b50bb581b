from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.models.base import NEVER_REUSE_IDS, PK, Base, UTCDateTime


class AuthorizationCode(Base):
    """An authorisation code (spec 5.2 items 3-4): single use, valid 10 minutes, bound to its
    client and redirect URI, carrying what the user approved. Only the code's lookup HMAC is
    stored. The connection itself is created or updated when the code is exchanged."""

    __tablename__ = "authorization_codes"
    __table_args__ = NEVER_REUSE_IDS

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    client_id: Mapped[int] = mapped_column(ForeignKey("oauth_clients.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    redirect_uri: Mapped[str] = mapped_column(Text)
    scope: Mapped[str] = mapped_column(Text)
    # what was chosen: the account of an account[...] scope, the location of a location[...] one
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    location_id: Mapped[int | None] = mapped_column(ForeignKey("locations.id", ondelete="CASCADE"))
    catalog_id: Mapped[int | None] = mapped_column(ForeignKey("catalogs.id", ondelete="CASCADE"))
    customer_list_id: Mapped[int | None] = mapped_column(ForeignKey("customer_lists.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(255), default="")
    code_challenge: Mapped[str | None] = mapped_column(String(128))  # PKCE S256 (RFC 7636)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # the lookup hash of the token the exchange gave: a replay of the code revokes it
    token_hash: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
