"""spec 2.8 Callback and spec 6.3 Event shapes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from comptoir.events import RESOURCE_EVENTS
from comptoir.kit.text import KEYS_WITHOUT_NUL

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

    model_config = ConfigDict(extra="ignore", json_schema_extra=KEYS_WITHOUT_NUL)

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
    model_config = ConfigDict(extra="forbid")

    url: str | None
    events: dict[str, list[str]]


class EventSummary(BaseModel):
    """An event as listed: without states (spec 6.3 item 6). The id fields present depend on
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
    """A full event (spec 6.3): new_state for create and update, previous_state for update
    and delete, state_change for inventory patch, no state for catalog events."""

    new_state: dict[str, Any] | None = None
    previous_state: dict[str, Any] | None = None
    state_change: list[dict[str, Any]] | None = None
