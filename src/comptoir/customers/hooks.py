"""Where other features join the customer's lifecycle.

The Orders feature registers here (spec 4.6 item 3 and 4): anonymising a customer also
anonymises the `customer` object of each of its orders, with an `order.update` event per
order, in the same transaction. Until an order feature registers, anonymisation touches
only the customer. Loyalty operations find the order of an `order_id` the same way.
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

_on_anonymise: list[AnonymiseHook] = []
_order_lookup: OrderLookup | None = None


def on_anonymise(hook: AnonymiseHook) -> AnonymiseHook:
    """Register `hook(session, ctx, customer)`, run after the customer is anonymised."""
    _on_anonymise.append(hook)
    return hook


def order_lookup(lookup: OrderLookup) -> OrderLookup:
    """Register how a loyalty operation's `order_id` is found (spec 4.7)."""
    global _order_lookup
    _order_lookup = lookup
    return lookup


async def customer_anonymised(session: AsyncSession, ctx: Ctx | None, customer: Customer) -> None:
    for hook in _on_anonymise:
        await hook(session, ctx, customer)


async def find_order(session: AsyncSession, customer_list_id: int, order_id: str) -> tuple[int, int] | None:
    """The order behind `order_id` for a loyalty operation: None while no order exists."""
    if _order_lookup is None:
        return None
    return await _order_lookup(session, customer_list_id, order_id)
