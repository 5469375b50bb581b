"""Who receives an event of a change: spec 6.2 triggers ("a ... the connection can access"),
with the access rules of spec 5.1 and docs/api/callbacks-events.md "Who receives an event".

A connection receives an event when its callback subscribes to the (resource type, event
type), it can access the resource, and it does not belong to the client that caused the
change (docs/api/callbacks-events.md "Who receives an event": suppression is per client,
spec 1.6 and 6.1.4).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from comptoir.auth.scopes import Scope, reaches_binding

# The subscriptions a change of each resource type can match (spec 6.2): own_order and
# own_order_delivery select the changes of orders the connection created.
SUBSCRIPTIONS: dict[str, tuple[str, ...]] = {
    "order": ("order", "own_order"),
    "delivery": ("delivery", "own_order_delivery"),
}


class ChangeFacts(Protocol):
    """What deciding who receives a change reads of it (a `Change` row or a new change)."""

    resource_type: str
    account_id: int
    location_id: int | None
    catalog_id: int | None
    customer_list_id: int | None
    client_id: int | None
    origin_connection_id: int | None


@dataclass(frozen=True, slots=True)
class Candidate:
    """A connection with a callback, as fan-out sees it."""

    connection_id: int
    client_id: int
    level: str
    account_id: int | None
    location_id: int | None
    catalog_id: int | None
    customer_list_id: int | None
    scope: Scope


def subscription_keys(resource_type: str) -> tuple[str, ...]:
    """The subscription keys a change of `resource_type` can match."""
    return SUBSCRIPTIONS.get(resource_type, (resource_type,))


def receives(change: ChangeFacts, candidate: Candidate, key: str) -> bool:
    """Whether `candidate`, subscribed under `key` to the change's event type, gets its event.
    The change's `location_id` is its resource's location (None: account-level), `client_id`
    the causing client (None: the service), `origin_connection_id` the resource's creator."""
    if change.client_id is not None and candidate.client_id == change.client_id:
        return False
    return can_access(change, candidate, key)


def can_access(change: ChangeFacts, candidate: Candidate, key: str) -> bool:
    """Whether `candidate`'s level, scope and bindings reach the change's resource under the
    subscription `key`: what fan-out asks of each subscriber (`receives`), and what decides,
    once a connection's grant changed, which of its events it keeps
    (`comptoir.events.drop_out_of_reach`)."""
    scope = candidate.scope
    kind = change.resource_type
    if key in ("own_order", "own_order_delivery"):
        own = candidate.connection_id == change.origin_connection_id
        return own and _reaches_location(change, candidate) and scope.allows("orders", "read")
    if kind == "location":
        return _reaches_location(change, candidate) and scope.has_any_permission
    if kind in ("order", "delivery"):
        return _reaches_location(change, candidate) and scope.allows("orders", "read")
    if kind == "inventory":
        # spec 5.1: inventory scopes at either level; the deprecated location[catalog.*] scopes
        # also grant the location's inventory.
        deprecated = candidate.level == "location" and scope.allows("catalog")
        return _reaches_location(change, candidate) and (scope.allows("inventory") or deprecated)
    if kind == "catalog":
        return _bound_or_all(change, candidate, "catalog", candidate.catalog_id == change.catalog_id)
    if kind in ("customer_list", "customer"):
        bound = candidate.customer_list_id == change.customer_list_id
        return _bound_or_all(change, candidate, "customer_list", bound)
    return False


def _reaches_location(change: ChangeFacts, candidate: Candidate) -> bool:
    if candidate.level == "location":
        return candidate.location_id == change.location_id
    return candidate.level == "account" and candidate.account_id == change.account_id


def _bound_or_all(change: ChangeFacts, candidate: Candidate, resource: str, bound: bool) -> bool:
    return reaches_binding(
        candidate.scope,
        resource,
        "read",
        bound=bound,
        level=candidate.level,
        account_id=candidate.account_id,
        location_id=candidate.location_id,
        row_account_id=change.account_id,
        row_location_id=change.location_id,
    )
