"""A kitchen display in a terminal: each new order printed as it arrives, from the connection's
event stream (clients/python/README.md "Event stream"). Gives the connection a passive
callback of new orders if it has no callback yet; acknowledges each event once printed.
Run: COMPTOIR_TOKEN=... uv run python examples/kitchen_display.py   (Ctrl-C to stop)"""

import os
from typing import Any

from comptoir_client import Comptoir, NotFound
from comptoir_client.models import Event

HUB = os.environ.get("COMPTOIR_URL", "http://127.0.0.1:8000")


def ticket(client: Comptoir, event: Event) -> str:
    order: dict[str, Any] = event.new_state or {}
    if "items" not in order:  # an event without the order's details: ask for them
        order = client.orders.get(str(event.location_id), str(event.order_id)).model_dump()
    lines = [f"{item['quantity']} x {item['product_name']}" for item in order["items"]]
    notes = [f"   note: {order['seller_notes']}"] if order.get("seller_notes") else []
    return "\n".join([f"== order {order['ref'] or order['id']}  {order['total']}", *lines, *notes])


with Comptoir(token=os.environ["COMPTOIR_TOKEN"], base_url=HUB) as client:
    try:
        client.callback.get()
    except NotFound:
        client.callback.set(None, {"order": ["create"]})  # passive: its events are read, not POSTed
    try:
        with client.callback.stream() as events:
            for event in events:  # those waiting first, then each new one
                if (event.resource_type, event.event_type) == ("order", "create"):
                    print(ticket(client, event), flush=True)
                client.callback.acknowledge(event.id)  # handled: no longer pending
    except KeyboardInterrupt:
        print("closed")
