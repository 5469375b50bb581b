"""The order workflow the back office offers (docs/back-office.md "Orders"): from each status,
the statuses an order may move to next. The API enforces no transition (docs/api/orders.md
"Statuses"); the back office moves an order only along this table, through the API's own
update (`service.update_order`, caused by no client), so connected applications receive the
same `order.update` event as after a PATCH.

A move is refused, changing nothing, when the form is stale (it names the status the page
showed, and the order has moved since) or when the table does not allow it from the order's
current status; the order's row is locked first, so two clicks cannot both move it.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from comptoir.errors import BadRequest, Conflict, StaleForm
from comptoir.kit import clock
from comptoir.kit.wire import shown
from comptoir.models.locations import LocationRef
from comptoir.orders import service
from comptoir.orders.repository import OrderRepository
from comptoir.orders.schemas import STATUSES, OrderUpdate

# Statuses after which nothing more happens to an order: not on the board, no next status.
FINAL = ("completed", "rejected", "cancelled", "delivery_failed")
OPEN = tuple(status for status in STATUSES if status not in FINAL)
# The final statuses that end an order unmade or undelivered: the back office asks before
# such a move (docs/back-office.md "Orders", "Confirmations").
ENDINGS = ("rejected", "cancelled", "delivery_failed")
# A completion may be taken back this long after it (docs/back-office.md "Confirmations"): the
# kitchen's most frequent move, made without a question, has a short undo instead.
UNDO_SECONDS = 60

_NEXT: dict[str, tuple[str, ...]] = {
    "new": ("accepted", "rejected"),
    "received": ("accepted", "rejected"),
    "accepted": ("in_preparation", "cancelled"),
    "in_preparation": ("awaiting_collection", "awaiting_shipment", "in_delivery", "completed", "cancelled"),
    "awaiting_collection": ("completed", "cancelled"),
    "awaiting_shipment": ("in_delivery", "cancelled"),
    "in_delivery": ("completed", "delivery_failed"),
}
# Once prepared, an order of a known service type goes one way only.
_READY: dict[str, tuple[str, ...]] = {
    "collection": ("awaiting_collection", "cancelled"),
    "delivery": ("awaiting_shipment", "in_delivery", "cancelled"),
    "eat_in": ("completed", "cancelled"),
}


def next_statuses(status: str, service_type: str | None) -> tuple[str, ...]:
    """The statuses an order in `status` may move to from the back office, in the order its
    buttons show them (a final status has none)."""
    if status == "in_preparation" and service_type in _READY:
        return _READY[service_type]
    return _NEXT.get(status, ())


class NotAllowed(Conflict):
    """The workflow has no move from the order's status to the one asked."""

    def __init__(self, current: str, asked: str) -> None:
        super().__init__(f"status {shown(asked)} may not follow {shown(current)}")
        self.current, self.asked = current, asked


async def move(
    orders: OrderRepository, location: LocationRef, public_id: str, to: str, seen: str, by: int
) -> dict[str, Any]:
    """Move an order of `location` to status `to` from a form that showed it in status
    `seen`, as the person `by`: 404 for an unknown order, 400 for a value that is no status,
    `StaleForm` or `NotAllowed` (409) otherwise refused; else the API's update, caused by no
    client and made by `by`."""
    order = await service.order_for_update(orders, location.id, public_id)
    if to not in STATUSES:
        raise BadRequest(f"Status: {shown(to)} is not an order status")
    if order.status != seen:
        raise StaleForm("order", order.status)
    if to not in next_statuses(order.status, order.body.get("service_type")):
        raise NotAllowed(order.status, to)
    return await service.update_order(orders, None, location, order, OrderUpdate.model_validate({"status": to}), by=by)


class TooLate(Conflict):
    """A completion older than UNDO_SECONDS: it stands."""

    def __init__(self) -> None:
        super().__init__(f"a completion may be undone only within {UNDO_SECONDS} seconds")


def undo_refusal(order: Any, back_to: str) -> Conflict | None:
    """Why the completion of `order` may not be undone back to `back_to` (a status), or None
    (`undo_completion`): it is no longer completed, the workflow completes no order from
    `back_to`, or it was completed more than UNDO_SECONDS ago (its last change)."""
    if order.status != "completed":
        return StaleForm("order", order.status)
    if "completed" not in next_statuses(back_to, order.body.get("service_type")):
        return NotAllowed("completed", back_to)
    if clock.now() >= undoable_until(order):
        return TooLate()
    return None


def undoable_until(order: Any) -> Any:
    """When the completion of `order` (its last change) stops being undoable."""
    return order.updated_at + timedelta(seconds=UNDO_SECONDS)


async def undo_completion(
    orders: OrderRepository, location: LocationRef, public_id: str, back_to: str, by: int
) -> dict[str, Any]:
    """Move a completed order of `location` back to `back_to`, the status it was completed
    from, within UNDO_SECONDS of its completion (its last change), as the person `by`: 404 for
    an unknown order, 400 for a value that is no status, `StaleForm` (409) when the order is no
    longer completed, `NotAllowed` (409) when the workflow does not complete an order from
    `back_to`, `TooLate` (409) past the time; else the API's update, as `move`."""
    order = await service.order_for_update(orders, location.id, public_id)
    if back_to not in STATUSES:
        raise BadRequest(f"Status: {shown(back_to)} is not an order status")
    refusal = undo_refusal(order, back_to)
    if refusal is not None:
        raise refusal
    update = OrderUpdate.model_validate({"status": back_to})
    return await service.update_order(orders, None, location, order, update, by=by)
