"""What the orders repository hands out: an order's columns, as a row or a plain object."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

from comptoir.kit import ids
from comptoir.models import Order


class OrderRow(SimpleNamespace):
    """An order's columns read or built without the ORM's instrumentation (a tenth of the
    cost of an `Order` instance): what rendering reads of an order."""

    id: Any
    account_id: int
    location_id: int
    status: str
    created_by: str
    client_id: int | None
    connection_id: int | None
    customer_id: int | None
    total: Decimal
    body: dict[str, Any]
    refs: dict[str, Any]
    view: Any
    created_at: datetime
    updated_at: datetime
    # a list's rows: the view as the database holds it, decoded into `view` only when needed
    # (`render.view_json`)
    view_text: str | None = None

    @property
    def public_id(self) -> str:
        return ids.encode(Order.KIND, self.id)


OrderLike = Order | OrderRow  # what rendering and the rules read of an order
