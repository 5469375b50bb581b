"""Change recording: the outbox every write path calls inside its own transaction (STYLE 7).

`record()` writes one `Change` row; the Callbacks issue turns changes into events for the
subscribed connections and delivers them. Because the row is part of the writer's
transaction, a change exists exactly when its write committed: none is lost on a crash and
none exists for a rolled-back write.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.auth.context import Ctx
from comptoir.kit import clock
from comptoir.models import Change

RESOURCE_EVENTS: dict[str, tuple[str, ...]] = {
    # spec 6.2: the allowed (resource type, event type) combinations
    "catalog": ("create", "delete", "update"),
    "customer": ("create", "update"),
    "customer_list": ("create", "delete", "update"),
    "delivery": ("create", "update"),
    "own_order_delivery": ("create", "update"),
    "inventory": ("patch", "update"),
    "location": ("update",),
    "order": ("create", "update"),
    "own_order": ("update",),
}


def record(
    session: AsyncSession,
    *,
    resource_type: str,
    event_type: str,
    ids: dict[str, str],
    account_id: int,
    location_id: int | None = None,
    catalog_id: int | None = None,
    customer_list_id: int | None = None,
    timezone: str = "UTC",
    previous_state: Any = None,
    new_state: Any = None,
    state_change: Any = None,
    ctx: Ctx | None = None,
) -> Change:
    """Record one change of a resource in the current transaction.

    `ids` are the public id fields of the event payload (decisions.md "Orders", last item);
    states are the resource's read shape before and after, already rendered for the wire.
    `ctx` is the causing connection (None for the service itself, e.g. a resume_at reversion),
    used to spare the causing client its own events (spec 1.6, 6.1.4).
    """
    assert event_type in RESOURCE_EVENTS.get(resource_type, ()), (resource_type, event_type)
    change = Change(
        created_at=clock.now(),
        resource_type=resource_type,
        event_type=event_type,
        ids=ids,
        timezone=timezone,
        account_id=account_id,
        location_id=location_id,
        catalog_id=catalog_id,
        customer_list_id=customer_list_id,
        previous_state=previous_state,
        new_state=new_state,
        state_change=state_change,
        connection_id=ctx.connection_id if ctx else None,
        client_id=ctx.client_id if ctx else None,
    )
    session.add(change)
    return change
