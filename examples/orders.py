"""Create an order and walk the location's orders with the Python client (clients/python/README.md).
Run: COMPTOIR_TOKEN=... LOCATION_ID=... uv run python examples/orders.py"""

import os

from comptoir_client import Comptoir, UnprocessableEntity

HUB, LOCATION = os.environ.get("COMPTOIR_URL", "http://127.0.0.1:8000"), os.environ["LOCATION_ID"]

with Comptoir(token=os.environ["COMPTOIR_TOKEN"], base_url=HUB) as client:
    order = client.orders.create(
        LOCATION, {"status": "new", "items": [{"product_name": "Espresso", "price": "2.20 EUR", "quantity": 1}]}
    )
    print(f"created {order.id}: {order.total}")
    client.orders.set_status(LOCATION, order.id, "accepted")
    try:
        client.orders.create(LOCATION, {"status": "lost"})
    except UnprocessableEntity as refused:
        print("refused:", ", ".join(f"{error.field}: {error.message}" for error in refused.errors))
    accepted = sum(1 for _ in client.orders.list(LOCATION, status="accepted"))  # every page
    print(f"{accepted} accepted orders at {client.locations.get(LOCATION).name}")
