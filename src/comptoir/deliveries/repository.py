"""All the SQL of delivery quotes and deliveries; the rules are in `deliveries/service.py`."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.models import Delivery, DeliveryQuote


async def save(session: AsyncSession, row: Delivery | DeliveryQuote) -> None:
    """Write a new or changed quote or delivery now (a new one gets its id)."""
    session.add(row)
    await session.flush()


async def quote_of(
    session: AsyncSession, order_pk: int, quote_pk: int, *, for_update: bool = False
) -> DeliveryQuote | None:
    """One of the order's quotes."""
    stmt = select(DeliveryQuote).where(DeliveryQuote.id == quote_pk, DeliveryQuote.order_id == order_pk)
    if for_update:
        stmt = stmt.with_for_update()
    return await session.scalar(stmt.execution_options(populate_existing=True))


async def quotes_of(session: AsyncSession, order_pk: int) -> list[DeliveryQuote]:
    """The order's quotes, oldest first."""
    quotes = await session.scalars(
        select(DeliveryQuote).where(DeliveryQuote.order_id == order_pk).order_by(DeliveryQuote.id)
    )
    return list(quotes)


async def delivery_of(session: AsyncSession, order_pk: int, *, for_update: bool = False) -> Delivery | None:
    """The order's delivery (at most one), read afresh."""
    stmt = select(Delivery).where(Delivery.order_id == order_pk)
    if for_update:
        stmt = stmt.with_for_update()
    return await session.scalar(stmt.execution_options(populate_existing=True))
