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
