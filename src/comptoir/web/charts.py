"""The back office's charts: small bar and line charts drawn on the server as inline SVG (no
script, nothing fetched), read in light and dark mode alike (docs/back-office.md
"Connections, logs and charts").

`chart(...)` lays a chart out (`Chart`: every coordinate computed here, rounded to 0.1) and
`bo_chart.html` draws it (`render(chart)`), escaped like any page. A
chart is a `<figure>`: the SVG is `role="img"` named by its `<title>` and `<desc>` (the
figures summed up), and a visually hidden table holds every figure for a screen reader.
Colours are CSS variables and `currentColor` (`bo_chart_style.html`), so a dark page draws
light text and axes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any, Literal

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.callbacks.service import attempts_per_day
from comptoir.models import Location
from comptoir.orders.figures import daily_figures
from comptoir.web.render import templates

Number = int | Decimal
Kind = Literal["bars", "stacked", "line"]

WIDTH = 480  # drawn at most 42rem wide (bo_chart_style.html): its text stays legible on a phone
HEIGHT = 200
LEFT = 44  # room for the value axis' labels
RIGHT = 8
TOP = 10
BOTTOM = 24  # room for the day labels
PLOT_W = WIDTH - LEFT - RIGHT
PLOT_H = HEIGHT - TOP - BOTTOM
MOST_LABELS = 6  # day labels under the axis; the table has them all


@dataclass(frozen=True, slots=True)
class Series:
    """One row of figures, one per label; `tone` picks its colour: "a" (the accent), "ok",
    "bad"."""

    name: str
    values: tuple[Number, ...]
    tone: str = "a"


@dataclass(frozen=True, slots=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    tone: str
    tip: str  # "27 Nov, Orders: 3", the bar's own <title>


@dataclass(frozen=True, slots=True)
class Line:
    points: str  # "x,y x,y ..." for <polyline>
    tone: str


@dataclass(frozen=True, slots=True)
class Tick:
    at: float  # x (a label under the axis) or y (a value beside it)
    text: str


@dataclass(frozen=True, slots=True)
class Note:
    """A figure written on the chart, above its bar or point."""

    x: float
    y: float
    text: str
    anchor: str = "middle"  # "end" near the right edge: the text stays inside the chart


def _note(x: float, y: float, text: str) -> Note:
    if x > WIDTH - RIGHT - 24:
        return Note(_r(WIDTH - RIGHT), y, text, "end")
    return Note(x, y, text)


@dataclass(frozen=True, slots=True)
class Chart:
    id: str
    title: str
    description: str
    labels: tuple[str, ...]
    series: tuple[Series, ...]
    shown: tuple[tuple[str, ...], ...]  # the table: one row per label, each value written
    bars: tuple[Bar, ...]
    lines: tuple[Line, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    notes: tuple[Note, ...] = ()  # the figures written on it: the highest, and the last (today)
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right_edge: int = WIDTH - RIGHT
    baseline: int = TOP + PLOT_H


def nice_top(largest: Number) -> Decimal:
    """The value axis' top: the smallest 1, 2 or 5 x 10^k at least `largest` (1 for none)."""
    value = Decimal(largest)
    if value <= 0:
        return Decimal(1)
    power = Decimal(10) ** math.floor(math.log10(value))
    for step in (1, 2, 5, 10):
        if value <= step * power:
            return step * power
    raise AssertionError("unreachable")  # pragma: no cover


def _r(value: float) -> float:
    return round(value, 1)


def _plain(value: Number) -> str:
    return str(value)


def chart(
    id: str,
    title: str,
    description: str,
    labels: Sequence[str],
    series: Sequence[Series],
    *,
    kind: Kind = "bars",
    fmt: Callable[[Number], str] = _plain,
    axis_fmt: Callable[[Number], str] | None = None,
) -> Chart:
    """A chart of `series` over `labels` (one value per label in each series). "bars": the
    series side by side; "stacked": one bar per label, the series piled up; "line": one
    line per series. `id`: unique in its page (the SVG's title and desc are named by it);
    `fmt` writes a value (tips, table), `axis_fmt` the value axis' marks (default `fmt`)."""
    for one in series:
        if len(one.values) != len(labels):
            raise ValueError(f"{one.name}: {len(one.values)} values for {len(labels)} labels")
    n = max(len(labels), 1)
    if kind == "stacked":
        largest: Number = max((sum(one.values[i] for one in series) for i in range(len(labels))), default=0)
    else:
        largest = max((value for one in series for value in one.values), default=0)
    top = nice_top(largest)
    slot = PLOT_W / n

    def y_of(value: Number) -> float:
        return TOP + PLOT_H - float(Decimal(value) / top) * PLOT_H

    bars: list[Bar] = []
    lines: list[Line] = []
    if kind == "line":
        for one in series:
            points = " ".join(f"{_r(LEFT + slot * (i + 0.5))},{_r(y_of(v))}" for i, v in enumerate(one.values))
            lines.append(Line(points, one.tone))
    else:
        inner = slot * 0.7
        for i, label in enumerate(labels):
            floor = Decimal(0)
            for k, one in enumerate(series):
                value = one.values[i]
                if kind == "stacked":
                    width, x = inner, LEFT + slot * i + slot * 0.15
                    low, high = floor, floor + Decimal(value)
                    floor = high
                else:
                    width = inner / len(series)
                    x = LEFT + slot * i + slot * 0.15 + width * k
                    low, high = Decimal(0), Decimal(value)
                if value:
                    y = y_of(high)
                    bars.append(
                        Bar(_r(x), _r(y), _r(width), _r(y_of(low) - y), one.tone, f"{label}, {one.name}: {fmt(value)}")
                    )
    step = max(1, math.ceil(n / MOST_LABELS))
    x_ticks = tuple(Tick(_r(LEFT + slot * (i + 0.5)), label) for i, label in enumerate(labels) if i % step == 0)
    whole = all(isinstance(value, int) for one in series for value in one.values)
    middle = top / 2
    marks = (Decimal(0), middle, top) if middle == middle.to_integral_value() or not whole else (Decimal(0), top)
    mark = axis_fmt or fmt
    y_ticks = tuple(Tick(_r(y_of(value)), mark(int(value) if whole else value)) for value in marks)
    shown = tuple((label, *(fmt(one.values[i]) for one in series)) for i, label in enumerate(labels))
    notes: list[Note] = []
    if kind == "line" and len(series) == 1:
        values = series[0].values
        marked = {max(range(len(values)), key=lambda i: values[i]), len(values) - 1} if values else set()
        notes = [_note(_r(LEFT + slot * (i + 0.5)), _r(y_of(values[i]) - 6), fmt(values[i])) for i in sorted(marked)]
    elif labels:
        totals = [sum(Decimal(one.values[i]) for one in series) for i in range(len(labels))]
        marked = {max(range(len(totals)), key=lambda i: totals[i]), len(totals) - 1}
        notes = [
            _note(_r(LEFT + slot * (i + 0.5)), _r(y_of(totals[i]) - 4), fmt(int(totals[i]) if whole else totals[i]))
            for i in sorted(marked)
        ]
    return Chart(
        id=id,
        title=title,
        description=description,
        labels=tuple(labels),
        series=tuple(series),
        shown=shown,
        bars=tuple(bars),
        lines=tuple(lines),
        x_ticks=x_ticks,
        y_ticks=y_ticks,
        notes=tuple(notes),
    )


def render(drawn: Chart) -> str:
    """The chart as a `<figure>`, as a page includes it:
    `{% with chart=... %}{% include "bo_chart.html" %}{% endwith %}` (and, once per page,
    `{% include "bo_chart_style.html" %}`). Titles and labels are text, escaped."""
    return templates.get_template("bo_chart.html").render(chart=drawn)


# --- the pages' charts ------------------------------------------------------------------


def day_label(day: date) -> str:
    """A chart's day: "7 Nov"."""
    return f"{day.day} {day:%b}"


def _amount(value: Number) -> str:
    return str(Decimal(value).quantize(Decimal("0.01")))


def _round_amount(value: Number) -> str:
    """An axis mark: "20", "2.5", "1000" (marks are 1, 2 or 5 times a power of ten)."""
    return f"{Decimal(value).normalize():f}"


async def location_charts(db: AsyncSession, location: Location, currency: str) -> dict[str, Any]:
    """The location page's figures (its partial `bo_location_chart.html`): orders and revenue
    per day over the last 30 days, days in the location's time zone (`orders.figures`)."""
    days = await daily_figures(db, location)
    labels = [day_label(d.day) for d in days]
    orders = sum(d.orders for d in days)
    revenue = sum((d.revenue for d in days), Decimal(0))
    span = f"{labels[0]} to {labels[-1]}"
    busiest = max(days, key=lambda d: d.orders)
    best = max(days, key=lambda d: d.revenue)
    today = days[-1]
    return {
        "timezone": location.timezone,
        "orders": orders,
        "revenue": f"{_amount(revenue)} {currency}",
        "today_orders": today.orders,
        "today_revenue": f"{_amount(today.revenue)} {currency}",
        "orders_chart": chart(
            "orders-per-day",
            "Orders per day, last 30 days",
            f"{orders} orders from {span}; the most on {day_label(busiest.day)}: {busiest.orders}.",
            labels,
            [Series("Orders", tuple(d.orders for d in days))],
        ),
        "revenue_chart": chart(
            "revenue-per-day",
            f"Revenue per day ({currency}), last 30 days",
            f"{_amount(revenue)} {currency} from {span}; the most on {day_label(best.day)}: "
            f"{_amount(best.revenue)} {currency}.",
            labels,
            [Series(f"Revenue ({currency})", tuple(d.revenue for d in days))],
            kind="line",
            fmt=_amount,
            axis_fmt=_round_amount,
        ),
    }


async def delivery_chart(db: AsyncSession, connection_id: int, timezone: str) -> Chart | None:
    """A callback's delivery attempts per day over the last 30 days (in `timezone`): those
    the receiver acknowledged and those that failed; None without any attempt."""
    days = await attempts_per_day(db, connection_id, timezone)
    delivered, failed = sum(d[1] for d in days), sum(d[2] for d in days)
    if not delivered + failed:
        return None
    labels = [day_label(d[0]) for d in days]
    return chart(
        "deliveries-per-day",
        "Callback deliveries per day, last 30 days",
        f"{delivered} delivered and {failed} failed attempts from {labels[0]} to {labels[-1]}.",
        labels,
        [Series("Delivered", tuple(d[1] for d in days), "ok"), Series("Failed", tuple(d[2] for d in days), "bad")],
        kind="stacked",
    )
