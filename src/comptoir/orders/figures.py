"""A location's orders per local day, as the back office's chart shows them (docs/back-office.md
"Connections, logs and charts").

A day is the location's: an order belongs to the day of its `created_at` in the location's
time zone. Each day counts every order received, and its revenue is the sum of their
totals except the rejected and cancelled orders' (nothing was sold); every other status
counts, a failed delivery too (the order was made).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.db.days import day_starts
from comptoir.kit import clock
from comptoir.kit.times import zone
from comptoir.models import Location
from comptoir.orders import repository

NOT_REVENUE = ("rejected", "cancelled")


@dataclass(frozen=True, slots=True)
class Day:
    day: date
    orders: int
    revenue: Decimal


async def daily_figures(session: AsyncSession, location: Location, days: int = 30) -> list[Day]:
    """The last `days` local days of the location, today last, each with its figures (zero
    for a day without orders): one statement."""
    today = clock.now().astimezone(zone(location.timezone)).date()
    starts = day_starts(location.timezone, today, days)
    found = await repository.daily_figures(session, location.id, starts, NOT_REVENUE)
    first = today - timedelta(days=days - 1)
    return [Day(first + timedelta(days=i), *found.get(i, (0, Decimal(0)))) for i in range(days)]
