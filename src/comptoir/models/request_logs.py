from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.models.base import NEVER_REUSE_IDS, PK, Base, UTCDateTime


class RequestLog(Base):
    """One API request made with a connection's token (docs/operations.md "Request log"), kept 7 days: what the
    back office shows an integrator. Bodies are the first 10 KB, secrets masked; `*_bytes`
    is the whole body's size."""

    __tablename__ = "request_logs"
    __table_args__ = (Index("ix_request_logs_connection", "connection_id", "id"), NEVER_REUSE_IDS)

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    connection_id: Mapped[int] = mapped_column(ForeignKey("connections.id", ondelete="CASCADE"))
    at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    request_id: Mapped[str] = mapped_column(String(128))
    method: Mapped[str] = mapped_column(String(10))
    path: Mapped[str] = mapped_column(Text)  # with its query string, secrets masked
    status: Mapped[int] = mapped_column(Integer)
    duration_ms: Mapped[int] = mapped_column(Integer)
    request_body: Mapped[str] = mapped_column(Text)
    request_bytes: Mapped[int] = mapped_column(Integer)
    response_body: Mapped[str] = mapped_column(Text)
    response_bytes: Mapped[int] = mapped_column(Integer)
