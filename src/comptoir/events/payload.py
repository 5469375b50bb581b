"""The event payload of spec 6.3, one renderer for `GET /callback/events/:id`, the events
list and the body POSTed to active callbacks (spec 6.1 item 1: the same body)."""

from __future__ import annotations

from typing import Any

from comptoir.kit.times import render_datetime
from comptoir.models import Change, Event


def render_event(event: Event, change: Change, *, full: bool) -> dict[str, Any]:
    """`full=False` gives the list shape, which omits states (spec 6.3 item 6)."""
    body: dict[str, Any] = {
        "id": event.public_id,
        "resource_type": event.resource_type,
        "event_type": event.event_type,
        "created_at": render_datetime(change.created_at, change.timezone),
        **change.ids,
    }
    if not full or change.resource_type == "catalog":  # spec 6.3 item 3: fetch the catalog
        return body
    if change.resource_type == "inventory":  # item 4: a state only for patch
        if event.event_type == "patch":
            body["state_change"] = change.state_change
        return body
    if event.event_type in ("create", "update"):  # item 1
        body["new_state"] = change.new_state
    if event.event_type in ("update", "delete"):  # item 2
        body["previous_state"] = change.previous_state
    return body
