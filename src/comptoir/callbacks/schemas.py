"""spec 2.8 Callback and spec 6.3 Event shapes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class CallbackUpdate(BaseModel):
    """POST /callback: `url` (null or absent: passive, polling) and the `events` map."""

    model_config = ConfigDict(extra="ignore")

    url: Any = Field(
        default=None,
        description="HTTP(S) URL to POST events to, on a public address (unless the operator allows its network); "
        "null for a passive callback",
    )
    events: Any = Field(description='Resource type -> event types, e.g. {"order": ["create", "update"]}')


class Callback(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str | None
    events: dict[str, list[str]]
    disabled_at: str | None = Field(description="When deliveries were disabled after failing; null while enabled")
    disabled_reason: str | None = Field(description="Why deliveries were disabled; null while enabled")


class SigningSecret(BaseModel):
    """The secret of the `webhook-signature` header (docs/api/callbacks-events.md "Verifying a callback")."""

    model_config = ConfigDict(extra="forbid")

    secret: str = Field(description="`whsec_` and the standard base64 of the key's bytes")
    previous_secret_expires_at: str | None = Field(
        description="Until when the previous secret signs too, after a rotation; null when it no longer does"
    )


class TestEvent(BaseModel):
    """The outcome of one POST of a test event to the callback URL."""

    model_config = ConfigDict(extra="forbid")

    delivered: bool = Field(description="Whether the receiver answered 200-499 in time")
    status: int | None = Field(description="The receiver's status, null without an answer")
    error: str | None = Field(description="Why no answer came (timeout, connect_error, refused: ...), or null")
    event: dict[str, Any] = Field(description="The test event's body, as sent")


class Queued(BaseModel):
    model_config = ConfigDict(extra="forbid")

    count: int = Field(description="How many events were queued for redelivery")


class ReplayRange(BaseModel):
    """POST /callback/replay: the events created from `from` (included) to `to` (excluded)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    start: Any = Field(default=None, alias="from", description="ISO 8601 time; UTC when it has no offset")
    end: Any = Field(default=None, alias="to", description="ISO 8601 time, at most 31 days after from")


class EventSummary(BaseModel):
    """An event as listed: without its states. The id fields present depend on
    the resource type (docs/api/callbacks-events.md "Event payloads")."""

    model_config = ConfigDict(extra="forbid")

    id: str
    resource_type: str
    event_type: str
    created_at: str
    account_id: str | None = None
    location_id: str | None = None
    order_id: str | None = None
    delivery_id: str | None = None
    catalog_id: str | None = None
    customer_list_id: str | None = None
    customer_id: str | None = None


class Event(EventSummary):
    """A full event: new_state for create and update, previous_state for update
    and delete, state_change for inventory patch, no state for catalog events."""

    new_state: dict[str, Any] | None = None
    previous_state: dict[str, Any] | None = None
    state_change: list[dict[str, Any]] | None = None
