"""Where other features join the customer's lifecycle.

Orders sit above customers, so customers cannot call them; the orders feature joins here
instead (spec 4.6 items 3 and 4): anonymising a customer also anonymises the `customer`
object of each of its orders, with an `order.update` event per order, in the same
transaction, and a loyalty operation finds the order of its `order_id`. `create_app` joins
them (`orders.service.join_customers`), at one visible place rather than as a side effect of
an import: an application without orders would anonymise only the customer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from sqlalchemy.ext.asyncio import AsyncSession

if TYPE_CHECKING:
    from comptoir.auth.context import Ctx
    from comptoir.models import Customer

AnonymiseHook = Callable[["AsyncSession", "Ctx | None", "Customer"], Awaitable[None]]
# (session, customer list id, order public id) -> (order pk, order location pk), or None
OrderLookup = Callable[["AsyncSession", int, str], Awaitable["tuple[int, int] | None"]]

_on_anonymise: tuple[AnonymiseHook, ...] = ()
_order_lookup: OrderLookup | None = None


def join(*, on_anonymise: tuple[AnonymiseHook, ...], order_lookup: OrderLookup | None) -> None:
    """Who joins the customer's lifecycle: each `on_anonymise(session, ctx, customer)` runs
    after a customer is anonymised, and `order_lookup` finds a loyalty operation's order
    (spec 4.7). Each call replaces the last one's."""
    global _on_anonymise, _order_lookup
    _on_anonymise, _order_lookup = on_anonymise, order_lookup


async def customer_anonymised(session: AsyncSession, ctx: Ctx | None, customer: Customer) -> None:
    for hook in _on_anonymise:
        await hook(session, ctx, customer)


async def find_order(session: AsyncSession, customer_list_id: int, order_id: str) -> tuple[int, int] | None:
    """The order behind `order_id` for a loyalty operation: None while no order exists."""
    if _order_lookup is None:
        return None
    return await _order_lookup(session, customer_list_id, order_id)
