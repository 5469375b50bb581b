"""Local days in SQL, the same on SQLite and PostgreSQL: the figures of a chart per day in a
time zone (docs/back-office.md "Connections, logs and charts").

SQLite knows no time zone, so a statement does not convert times: the caller computes in
Python the UTC instants where each local day starts (`day_starts`, daylight saving time
included: a day may last 23 or 25 hours), and `day_number` numbers a UTC column's row by the
day it falls in, with one CASE over those instants. Grouped by that number, one statement
gives every day's figures; its WHERE keeps the range, so an index on the time serves it.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import ColumnElement, case


def day_starts(timezone: str, last_day: date, days: int) -> list[datetime]:
    """The `days + 1` instants (aware, UTC) where the `days` local days ending with
    `last_day` start, and where the day after `last_day` starts."""
    zone = ZoneInfo(timezone)
    first = last_day - timedelta(days=days - 1)
    return [
        datetime.combine(first + timedelta(days=i), time(), zone).astimezone(ZoneInfo("UTC")) for i in range(days + 1)
    ]


def day_number(column: Any, starts: list[datetime]) -> ColumnElement[int]:
    """0 for a time in the first day of `starts`, 1 in the second...; the caller keeps the rows
    within `starts[0] <= column < starts[-1]`."""
    return case(*((column < start, number) for number, start in enumerate(starts[1:-1])), else_=len(starts) - 2)
