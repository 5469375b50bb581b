"""spec 2.8 Callback and spec 6.3 Event shapes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from comptoir.events import RESOURCE_EVENTS
from comptoir.kit.ids import Id
from comptoir.kit.requests import RequestModel
from comptoir.kit.text import body_schema
from comptoir.kit.times import TimeOut

# docs/api/callbacks-events.md "Callbacks": the resource types and, for each, its event types
_EVENTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        resource: {"type": "array", "items": {"type": "string", "enum": list(event_types)}}
        for resource, event_types in RESOURCE_EVENTS.items()
    },
    "additionalProperties": False,
}
MAX_URL = 2048


class CallbackUpdate(RequestModel):
    """POST /callback: `url` (null or absent: passive, polling) and the `events` map."""

    model_config = ConfigDict(
        extra="ignore",
        json_schema_extra=body_schema(
            {"url": "https://pos.example.com/comptoir/events", "events": {"order": ["create", "update"]}},
            {"url": None, "events": {"catalog": ["update"], "inventory": ["patch"]}},
        ),
    )

    url: Any = Field(
        default=None,
        json_schema_extra={
            "anyOf": [
                {"type": "string", "maxLength": MAX_URL, "pattern": "^https?://[^\\s#\\u0000]+$", "format": "uri"},
                {"type": "null"},
            ]
        },
        description="HTTP(S) URL to POST events to, on a public address (unless the operator allows its network); "
        "null for a passive callback",
    )
    events: Any = Field(
        json_schema_extra=_EVENTS_SCHEMA,
        description='Resource type -> event types, e.g. {"order": ["create", "update"]}',
    )


class Callback(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "url": "https://pos.example.com/comptoir/events",
                    "events": {"order": ["create", "update"]},
                    "disabled_at": None,
                    "disabled_reason": None,
                }
            ]
        },
    )

    url: str | None
    events: dict[str, list[str]]
    disabled_at: TimeOut | None = Field(description="When deliveries were disabled after failing; null while enabled")
    disabled_reason: str | None = Field(description="Why deliveries were disabled; null while enabled")


class SigningSecret(BaseModel):
    """The secret of the `webhook-signature` header (docs/api/callbacks-events.md "Verifying a callback")."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "secret": "whsec_c2VjcmV0LXNpZ25pbmcta2V5LTI0LWI=",
                    "previous_secret_expires_at": "2026-06-25T17:07:53+00:00",
                }
            ]
        },
    )

    secret: str = Field(description="`whsec_` and the standard base64 of the key's bytes")
    previous_secret_expires_at: TimeOut | None = Field(
        description="Until when the previous secret signs too, after a rotation; null when it no longer does"
    )


class TestEvent(BaseModel):
    """The outcome of one POST of a test event to the callback URL."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "delivered": True,
                    "status": 200,
                    "error": None,
                    "event": {
                        "id": "9h3kf7q2mdx4w",
                        "resource_type": "callback",
                        "event_type": "test",
                        "created_at": "2026-06-24T17:07:53+00:00",
                    },
                }
            ]
        },
    )

    delivered: bool = Field(description="Whether the receiver answered 200-499 in time")
    status: int | None = Field(description="The receiver's status, null without an answer")
    error: str | None = Field(description="Why no answer came (timeout, connect_error, refused: ...), or null")
    event: dict[str, Any] = Field(description="The test event's body, as sent")


class Queued(BaseModel):
    """Events queued for one more delivery, marked as redeliveries."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"count": 2}]})

    count: int = Field(description="How many events were queued for redelivery")


class ReplayRange(RequestModel):
    """POST /callback/replay: the events created from `from` (included) to `to` (excluded)."""

    model_config = ConfigDict(
        extra="ignore",
        populate_by_name=True,
        json_schema_extra={"examples": [{"from": "2026-06-24T00:00:00Z", "to": "2026-06-25T00:00:00Z"}]},
    )

    start: Any = Field(default=None, alias="from", description="ISO 8601 time; UTC when it has no offset")
    end: Any = Field(default=None, alias="to", description="ISO 8601 time, at most 31 days after from")


class EventSummary(BaseModel):
    """An event as listed: without its states. The id fields present depend on
    the resource type (docs/api/callbacks-events.md "Event payloads")."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "id": "8cq2wn",
                    "resource_type": "order",
                    "event_type": "create",
                    "created_at": "2026-06-24T17:07:53+00:00",
                    "location_id": "4k3jxr-1",
                    "order_id": "a7d9kp",
                }
            ]
        },
    )

    id: Id
    resource_type: str
    event_type: str
    created_at: TimeOut
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
