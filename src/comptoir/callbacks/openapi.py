"""The callbacks' POSTs in the OpenAPI document, as its `webhooks`: one entry per resource type
and event type a callback may subscribe to (`events.RESOURCE_EVENTS`), each with the event it
carries (docs/api/callbacks-events.md "Event payloads", "Delivery")."""

from __future__ import annotations

from typing import Any

from comptoir.events import RESOURCE_EVENTS

# The ids of an event's resource and of its parents, by resource type.
IDS: dict[str, tuple[str, ...]] = {
    "order": ("order_id", "location_id"),
    "own_order": ("order_id", "location_id"),
    "delivery": ("order_id", "location_id", "delivery_id"),
    "own_order_delivery": ("order_id", "location_id", "delivery_id"),
    "location": ("location_id", "account_id"),
    "catalog": ("catalog_id",),  # and location_id or account_id: the catalog's level
    "inventory": ("catalog_id", "location_id"),
    "customer_list": ("customer_list_id",),
    "customer": ("customer_id", "customer_list_id"),
}
_EXAMPLE_IDS = {
    "order_id": "a7d9kp",
    "location_id": "4k3jxr-1",
    "account_id": "4k3jxr",
    "delivery_id": "d2f7ka",
    "catalog_id": "r8dms9",
    "customer_list_id": "rqs3g7",
    "customer_id": "c4n8vd",
}
# What a state is: the resource's read shape (without private refs), by resource type.
_READ_SHAPES = {
    "order": "GET /v1/locations/{location_id}/orders/{order_id}",
    "own_order": "GET /v1/locations/{location_id}/orders/{order_id}",
    "delivery": "GET /v1/locations/{location_id}/orders/{order_id}/delivery",
    "own_order_delivery": "GET /v1/locations/{location_id}/orders/{order_id}/delivery",
    "location": "GET /v1/locations/{location_id}",
    "customer_list": "GET /v1/customer_lists/{customer_list_id}",
    "customer": "GET /v1/customer_lists/{customer_list_id}/customers/{customer_id}",
}
_STRING = {"type": "string"}

HEADERS: list[dict[str, Any]] = [
    {
        "name": "X-Service-Hmac-SHA256",
        "in": "header",
        "required": True,
        "description": "The lowercase hex HMAC-SHA-256 of the body, keyed with the client secret: recompute it "
        "over the bytes received and compare in constant time.",
        "schema": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
    },
    {
        "name": "X-Event-Id",
        "in": "header",
        "required": True,
        "description": "The event's id. Delivery is at least once: deduplicate on it.",
        "schema": _STRING,
    },
    {
        "name": "webhook-id",
        "in": "header",
        "required": True,
        "description": "Standard Webhooks: the message id (the event's id), the same on every resend.",
        "schema": _STRING,
    },
    {
        "name": "webhook-timestamp",
        "in": "header",
        "required": True,
        "description": "Standard Webhooks: when this attempt was sent, in seconds since 1970-01-01 UTC; refuse "
        "one too far from your clock.",
        "schema": {"type": "string", "pattern": "^[0-9]+$"},
    },
    {
        "name": "webhook-signature",
        "in": "header",
        "required": True,
        "description": "Standard Webhooks: space-separated `v1,<base64 HMAC-SHA-256>` signatures of "
        "`<webhook-id>.<webhook-timestamp>.<body>`, keyed with the client secret.",
        "schema": _STRING,
    },
]
RESPONSES = {
    "200": {
        "description": "Any answer from 200 to 499 received whole within the timeout (20 seconds by default) "
        "acknowledges the event; redirects are not followed."
    },
    "default": {
        "description": "Any other answer, or none in time, is retried after 1, 2, 4... times the base wait "
        "(60 seconds by default), at most six times."
    },
}


def _states(resource: str, event: str) -> dict[str, Any]:
    """The state fields of an event, and which are required."""
    if resource == "catalog":  # fetch the catalog to see it
        return {}
    if resource == "inventory":
        if event != "patch":
            return {}
        return {
            "state_change": {
                "type": "array",
                "items": {"type": "object"},
                "description": "The inventory entries that changed, as `PATCH .../inventory` takes them.",
            }
        }
    shape = f"The {resource.replace('_', ' ')} as `{_READ_SHAPES[resource]}` answers it, without private refs"
    states: dict[str, Any] = {}
    if event in ("create", "update"):
        states["new_state"] = {"type": "object", "description": f"{shape}, after the change."}
    if event in ("update", "delete"):
        states["previous_state"] = {"type": "object", "description": f"{shape}, before the change."}
    return states


def event_schema(resource: str, event: str) -> dict[str, Any]:
    """The body POSTed for `resource`.`event`: the same as `GET /v1/callback/events/{event_id}`."""
    ids = IDS[resource]
    states = _states(resource, event)
    properties: dict[str, Any] = {
        "id": {**_STRING, "description": "The event's id, also in `X-Event-Id`."},
        "resource_type": {"type": "string", "const": resource},
        "event_type": {"type": "string", "const": event},
        "created_at": {**_STRING, "format": "date-time", "description": "When the change happened."},
        **dict.fromkeys(ids, _STRING),
        **states,
    }
    if resource == "catalog":
        properties["location_id"] = {**_STRING, "description": "The catalog's location (location-level)."}
        properties["account_id"] = {**_STRING, "description": "The catalog's account (account-level)."}
    return {
        "type": "object",
        "required": ["id", "resource_type", "event_type", "created_at", *ids, *states],
        "properties": properties,
        "additionalProperties": False,
    }


def event_example(resource: str, event: str) -> dict[str, Any]:
    example: dict[str, Any] = {
        "id": "e5w2rq",
        "resource_type": resource,
        "event_type": event,
        "created_at": "2026-06-24T19:02:11+02:00",
        **{name: _EXAMPLE_IDS[name] for name in IDS[resource]},
    }
    if resource == "catalog":
        example["location_id"] = _EXAMPLE_IDS["location_id"]
    for name in _states(resource, event):
        if name == "state_change":
            example[name] = [{"sku_ref": "burger", "stock": "0", "expires_at": "2026-06-25T12:00:00+02:00"}]
        else:
            example[name] = {"id": _EXAMPLE_IDS.get(f"{resource.removeprefix('own_order_')}_id", "a7d9kp")}
    return example


def webhooks() -> dict[str, Any]:
    """`{"order.create": {"post": ...}, ...}`: every event a callback may receive."""
    found: dict[str, Any] = {}
    for resource, events in sorted(RESOURCE_EVENTS.items()):
        for event in sorted(events):
            name = f"{resource}.{event}"
            found[name] = {
                "post": {
                    "tags": ["Callbacks"],
                    "operationId": f"callback_{resource}_{event}",
                    "summary": f"The {event} event of a{'n' if resource[0] in 'aeiou' else ''} "
                    f"{resource.replace('_', ' ')}",
                    "description": f"POSTed to the connection's callback URL when its callback subscribes to "
                    f"`{resource}` with `{event}` (`POST /v1/callback`) and the connection can access the "
                    "resource; a client never receives the events it caused. The body is the event as "
                    "`GET /v1/callback/events/{event_id}` answers it. A connection's events go out one at a time, "
                    "oldest first.",
                    "parameters": HEADERS,
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": event_schema(resource, event),
                                "example": event_example(resource, event),
                            }
                        },
                    },
                    "responses": RESPONSES,
                }
            }
    return found
