"""spec 2.8 Callback and spec 6.3 Event shapes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from comptoir.events import RESOURCE_EVENTS
from comptoir.kit.ids import Id
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


class CallbackUpdate(BaseModel):
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
            "examples": [{"url": "https://pos.example.com/comptoir/events", "events": {"order": ["create", "update"]}}]
        },
    )

    url: str | None
    events: dict[str, list[str]]


class EventSummary(BaseModel):
    """An event as listed: without states. The id fields present depend on
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
