from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, ForeignKey, Index, Integer, LargeBinary, String, Text, false, text
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.kit import ids
from comptoir.models.base import NEVER_REUSE_IDS, PK, Base, JSONValue, UTCDateTime


class Callback(Base):
    """A connection's one callback (spec 4.9, 6.1): `url` null means passive (polling).

    The row is also the connection's delivery lane: a worker that holds the lease
    (`lease_owner` until `leased_until`) is the only one sending this connection's events,
    one after the other, oldest first.

    Its signing secrets (docs/api/callbacks-events.md "Verifying a callback") are sealed under
    the server key (`callbacks/signing.py`); after a rotation the previous one signs too until
    `previous_secret_expires_at`. A callback whose every attempt failed since `failing_since`
    for COMPTOIR_CALLBACK_DISABLE_AFTER_SECONDS is disabled (`disabled_at`, `disabled_reason`).
    """

    __tablename__ = "callbacks"

    connection_id: Mapped[int] = mapped_column(ForeignKey("connections.id", ondelete="CASCADE"), primary_key=True)
    url: Mapped[str | None] = mapped_column(Text)
    events: Mapped[dict[str, Any]] = mapped_column(JSONValue)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    lease_owner: Mapped[str | None] = mapped_column(String(80))
    leased_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    signing_secret: Mapped[bytes | None] = mapped_column(LargeBinary)
    previous_secret: Mapped[bytes | None] = mapped_column(LargeBinary)
    previous_secret_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    failing_since: Mapped[datetime | None] = mapped_column(UTCDateTime)
    disabled_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    disabled_reason: Mapped[str | None] = mapped_column(Text)


class Subscription(Base):
    """One (resource type, event type) a callback subscribes to: what fan-out looks up, so
    each write reads only the connections that want its event."""

    __tablename__ = "callback_subscriptions"
    __table_args__ = (Index("ix_callback_subscriptions_lookup", "resource_type", "event_type", "connection_id"),)

    connection_id: Mapped[int] = mapped_column(
        ForeignKey("callbacks.connection_id", ondelete="CASCADE"), primary_key=True
    )
    resource_type: Mapped[str] = mapped_column(String(32), primary_key=True)
    event_type: Mapped[str] = mapped_column(String(16), primary_key=True)


class Event(Base):
    """One event for one connection: a recorded change seen through one subscription; the
    payload comes from the change. It is pending (listed, `next_attempt_at` set) until
    acknowledged by DELETE (then deleted), or by a 200-499 answer to its POST, or until its
    last resend fails: then it is kept, done (`done_at` set, `next_attempt_at` null), hidden
    from the list, so that it can be resent (docs/api/callbacks-events.md "Testing, resending
    and replaying"). `redelivery`: its next POST is a resend asked for by the client."""

    __tablename__ = "events"
    __table_args__ = (
        Index("ix_events_connection", "connection_id", "id"),
        Index("ix_events_due", "connection_id", "next_attempt_at"),
        # the pending list (GET /callback/events) reads past no done event
        Index(
            "ix_events_pending",
            "connection_id",
            "id",
            postgresql_where=text("done_at IS NULL"),
            sqlite_where=text("done_at IS NULL"),
        ),
        # a lane's due events in the order they go out (`callbacks.repository.DUE_EVENTS`):
        # a batch reads its 100 entries, not every queued event sorted
        Index(
            "ix_events_queue",
            "connection_id",
            "created_at",
            "id",
            postgresql_where=text("next_attempt_at IS NOT NULL"),
            sqlite_where=text("next_attempt_at IS NOT NULL"),
        ),
        # the hourly purge of events done more than 30 days ago
        Index(
            "ix_events_done",
            "done_at",
            postgresql_where=text("done_at IS NOT NULL"),
            sqlite_where=text("done_at IS NOT NULL"),
        ),
        NEVER_REUSE_IDS,
    )
    KIND = "event"

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    connection_id: Mapped[int] = mapped_column(ForeignKey("connections.id", ondelete="CASCADE"))
    change_id: Mapped[int] = mapped_column(ForeignKey("changes.id", ondelete="CASCADE"), index=True)
    resource_type: Mapped[str] = mapped_column(String(32))  # as subscribed, e.g. own_order
    event_type: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    attempts: Mapped[int] = mapped_column(Integer, default=0)  # failed POSTs so far
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    done_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    redelivery: Mapped[bool] = mapped_column(Boolean, server_default=false())

    @property
    def public_id(self) -> str:
        return ids.encode(self.KIND, self.id)


class DeliveryAttempt(Base):
    """The delivery log: one row per POST to a callback, kept 30 days."""

    __tablename__ = "delivery_attempts"
    __table_args__ = (Index("ix_delivery_attempts_connection", "connection_id", "id"), NEVER_REUSE_IDS)

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    connection_id: Mapped[int] = mapped_column(ForeignKey("connections.id", ondelete="CASCADE"))
    event_id: Mapped[int] = mapped_column(PK)  # not a foreign key: events go, the log stays
    attempt: Mapped[int] = mapped_column(Integer)  # 1 for the first POST, 2 for the first resend...
    attempted_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    duration_ms: Mapped[int] = mapped_column(Integer)
    url: Mapped[str] = mapped_column(Text)
    status_code: Mapped[int | None] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(String(80))
    # what the receiver answered: its size in bytes and a short text-only excerpt
    response_bytes: Mapped[int | None] = mapped_column(Integer)
    response_excerpt: Mapped[str | None] = mapped_column(Text)
    outcome: Mapped[str] = mapped_column(String(16))  # acknowledged | retry | dropped


class Notice(Base):
    """A notice to the users of an account, shown on its back office pages until dismissed
    (an automatically disabled callback: docs/api/callbacks-events.md "Automatic disable")."""

    __tablename__ = "notices"
    __table_args__ = (Index("ix_notices_account", "account_id", "id"), NEVER_REUSE_IDS)

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    connection_id: Mapped[int | None] = mapped_column(ForeignKey("connections.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    text: Mapped[str] = mapped_column(Text)
    dismissed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
