"""Create an order and walk the location's orders with the Python client (clients/python/README.md).
Run: COMPTOIR_TOKEN=... uv run python examples/orders.py (a location's token: its calls need no location id)"""

import os

from comptoir_client import Comptoir, UnprocessableEntity

HUB = os.environ.get("COMPTOIR_URL", "http://127.0.0.1:8000")

with Comptoir(token=os.environ["COMPTOIR_TOKEN"], base_url=HUB) as client:
    order = client.orders.create(
        {"status": "new", "items": [{"product_name": "Espresso", "price": "2.20 EUR", "quantity": 1}]}
    )
    print(f"created {order.id}: {order.total}")
    client.orders.set_status(order.id, "accepted")
    try:
        client.orders.create({"status": "lost"})
    except UnprocessableEntity as refused:
        print("refused:", ", ".join(f"{error.field}: {error.message}" for error in refused.errors))
    accepted = sum(1 for _ in client.orders.list(status="accepted"))  # every page
    print(f"{accepted} accepted orders at {client.locations.get().name}")
