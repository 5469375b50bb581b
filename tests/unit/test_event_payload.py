"""spec 6.3: which states an event payload carries."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from comptoir.events.payload import render_event
from comptoir.models import Change, Event

STATE = {"k": 1}


def render(change_type: str, resource_type: str, event_type: str, *, full: bool = True) -> dict[str, object]:
    change = Change(
        id=1,
        resource_type=change_type,
        event_type=event_type,
        created_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        timezone="Europe/Paris",
        ids={"x_id": "abc"},
        new_state=STATE,
        previous_state={"k": 0},
        state_change=[{"sku_ref": "a", "previous_stock": "1.0", "stock": "0.0", "expires_at": None}],
    )
    event = Event(id=7, resource_type=resource_type, event_type=event_type)
    return render_event(event, change, full=full)


def states(body: dict[str, object]) -> set[str]:
    return set(body) & {"new_state", "previous_state", "state_change"}


@pytest.mark.parametrize(
    ("change_type", "resource_type", "event_type", "expected"),
    [
        ("order", "order", "create", {"new_state"}),
        ("order", "order", "update", {"new_state", "previous_state"}),
        ("order", "own_order", "update", {"new_state", "previous_state"}),
        ("customer_list", "customer_list", "delete", {"previous_state"}),
        ("catalog", "catalog", "create", set()),
        ("catalog", "catalog", "update", set()),
        ("catalog", "catalog", "delete", set()),
        ("inventory", "inventory", "update", set()),
        ("inventory", "inventory", "patch", {"state_change"}),
    ],
)
def test_states_by_resource_and_event_type(
    change_type: str, resource_type: str, event_type: str, expected: set[str]
) -> None:
    assert states(render(change_type, resource_type, event_type)) == expected


def test_the_list_shape_omits_every_state() -> None:
    body = render("order", "order", "update", full=False)
    assert body == {
        "id": body["id"],
        "resource_type": "order",
        "event_type": "update",
        "created_at": "2026-01-02T04:04:05+01:00",
        "x_id": "abc",
    }
