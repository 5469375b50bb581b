"""The event payload of spec 6.3, one renderer for `GET /callback/events/:id`, the events
list, the body POSTed to active callbacks (spec 6.1 item 1: the same body) and the `data:`
of a stream's message (docs/api/callbacks-events.md "Stream": the same body).

A change's state is given decoded, or as the JSON text the database holds
(`kit.jsonutil.stored_text`): written as it is, it is the same bytes as its decoded value
written by `kit.jsonutil.dumps` (that text is `dumps`' own), without decoding the text and
encoding it again."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from comptoir.kit import ids
from comptoir.kit.times import render_datetime
from comptoir.models import Event


class EventFields(Protocol):
    """What the payload reads of an event (an `Event`, or a row the delivery worker read)."""

    @property
    def public_id(self) -> str: ...
    @property
    def resource_type(self) -> str: ...
    @property
    def event_type(self) -> str: ...


class ChangeFields(Protocol):
    """What the payload reads of the event's change (a `Change`, or a row)."""

    @property
    def created_at(self) -> datetime: ...
    @property
    def timezone(self) -> str: ...
    @property
    def ids(self) -> dict[str, Any]: ...
    @property
    def resource_type(self) -> str: ...
    @property
    def previous_state(self) -> Any: ...
    @property
    def new_state(self) -> Any: ...
    @property
    def state_change(self) -> Any: ...


def render_event(event: EventFields, change: ChangeFields, *, full: bool) -> dict[str, Any]:
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


class EventRow:
    """An event as a read of columns gives it (`id`, `resource_type`, `event_type`), for
    `render_event`."""

    __slots__ = ("event_type", "public_id", "resource_type")

    def __init__(self, row: dict[str, Any]) -> None:
        self.public_id = ids.encode(Event.KIND, row["id"])
        self.resource_type: str = row["resource_type"]
        self.event_type: str = row["event_type"]


class ChangeRow:
    """The event's change as the same read gives it (`change_created_at`, `timezone`, `ids`,
    `change_resource_type` and the three states), for `render_event`."""

    __slots__ = ("created_at", "ids", "new_state", "previous_state", "resource_type", "state_change", "timezone")

    def __init__(self, row: dict[str, Any]) -> None:
        self.created_at: datetime = row["change_created_at"]
        self.timezone: str = row["timezone"]
        self.ids: dict[str, Any] = row["ids"]
        self.resource_type: str = row["change_resource_type"]
        self.previous_state: Any = row["previous_state"]
        self.new_state: Any = row["new_state"]
        self.state_change: Any = row["state_change"]
