from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from comptoir.models.base import NEVER_REUSE_IDS, PK, Base, JSONValue, UTCDateTime


class Change(Base):
    """One recorded change of a resource: the outbox that events are made from (docs/architecture.md "Events").

    Written by `comptoir.events.record` in the writer's own transaction, together with the
    events it fans out to, so both exist exactly when the write committed. `ids` holds the
    public id fields of the event payload (docs/api/callbacks-events.md "Event payloads"); the integer
    columns let fan-out find the connections that can access the resource;
    `origin_connection_id` is the connection that created the resource (own_order).
    """

    __tablename__ = "changes"
    __table_args__ = (Index("ix_changes_created_at", "created_at"), NEVER_REUSE_IDS)

    id: Mapped[int] = mapped_column(PK, primary_key=True, autoincrement=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    resource_type: Mapped[str] = mapped_column(String(32))
    event_type: Mapped[str] = mapped_column(String(16))
    ids: Mapped[dict[str, Any]] = mapped_column(JSONValue)
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")  # for rendering times
    # No foreign keys (migration 0017): the ids come from the writing request's own context,
    # and checking them locked the same parent rows for every concurrent write.
    account_id: Mapped[int] = mapped_column(PK)
    location_id: Mapped[int | None] = mapped_column(PK)
    catalog_id: Mapped[int | None] = mapped_column(PK)
    customer_list_id: Mapped[int | None] = mapped_column(PK)
    # Written only through the JSON column type (`kit.jsonutil.dumps`) and never updated: an
    # event stream sends the stored text as it is (`kit.jsonutil.stored_text`), so a state
    # written any other way would reach a stream unlike `GET /callback/events/:id`.
    previous_state: Mapped[Any | None] = mapped_column(JSONValue)
    new_state: Mapped[Any | None] = mapped_column(JSONValue)
    state_change: Mapped[Any | None] = mapped_column(JSONValue)
    connection_id: Mapped[int | None] = mapped_column(PK)
    client_id: Mapped[int | None] = mapped_column(PK)
    origin_connection_id: Mapped[int | None] = mapped_column(PK)
    # the W3C trace context of the write, kept while tracing is on (docs/operations.md "Traces")
    traceparent: Mapped[str | None] = mapped_column(String(55))


class ChangePerson(Base):
    """The person who made a change from the back office (docs/back-office.md "Orders": an
    order's history names them). A change made through the API has none: its connection
    names the application. Goes with its change, or with the person."""

    __tablename__ = "change_people"

    change_id: Mapped[int] = mapped_column(PK, ForeignKey("changes.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(PK, ForeignKey("users.id", ondelete="CASCADE"), index=True)
