from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.models.base import PK, Base, UTCDateTime


class BrowserSession(Base):
    """A signed-in browser (the OAuth pages and the back office): the cookie carries the
    session id, this row says it is still valid. Logging out deletes it, so a copied cookie
    stops working at once. Only a hash of the id is stored. `flash`: what the next page of
    this browser shows once (`users.sessions.flash`, `take_flash`), never a secret itself."""

    __tablename__ = "browser_sessions"

    sid_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(PK, ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    flash: Mapped[str | None] = mapped_column(String(100))
