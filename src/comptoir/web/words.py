"""The back office's words: order statuses, quantities, scopes and times as a person reads
them, the same on every page (docs/back-office.md "Layout, navigation and words").

Each is a plain function, registered as a Jinja filter by `web.render`:
`{{ order.status | status_words }}`, `{{ item.quantity | quantity }}`,
`{{ order.created_at | when(location.timezone) }}`.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from zoneinfo import ZoneInfo

# spec 3.1, every order status
STATUS_WORDS = {
    "new": "New",
    "received": "Received",
    "accepted": "Accepted",
    "in_preparation": "In preparation",
    "awaiting_shipment": "Awaiting shipment",
    "awaiting_collection": "Ready for collection",
    "in_delivery": "Out for delivery",
    "completed": "Completed",
    "rejected": "Rejected",
    "cancelled": "Cancelled",
    "delivery_failed": "Delivery failed",
}


def status_words(status: str | None) -> str:
    """ "in_preparation" -> "In preparation"; a status unknown here reads as its words."""
    if not status:
        return ""
    return STATUS_WORDS.get(status) or status.replace("_", " ").capitalize()


# What a move to each status did, as an order's history says it ("Accepted by ...").
STATUS_DONE = {
    "new": "Marked new",
    "received": "Marked received",
    "accepted": "Accepted",
    "in_preparation": "Preparation started",
    "awaiting_shipment": "Ready to ship",
    "awaiting_collection": "Ready for collection",
    "in_delivery": "Sent out for delivery",
    "completed": "Completed",
    "rejected": "Rejected",
    "cancelled": "Cancelled",
    "delivery_failed": "Delivery failed",
}


def status_done(status: str | None) -> str:
    """ "accepted" -> "Accepted", "in_preparation" -> "Preparation started"."""
    return STATUS_DONE.get(status or "") or f"Moved to {status_words(status)}"


SERVICE_TYPE_WORDS = {"delivery": "Delivery", "collection": "Collection", "eat_in": "Eat in"}


def service_type_words(service_type: str | None) -> str:
    """ "eat_in" -> "Eat in"; a type unknown here reads as its words."""
    if not service_type:
        return ""
    return SERVICE_TYPE_WORDS.get(service_type) or service_type.replace("_", " ").capitalize()


def quantity(value: Decimal | str | int | float | None) -> str:
    """A quantity without its useless zeros: "2.0" -> "2", "0.500" -> "0.5", "1E+1" -> "10"."""
    if value is None or value == "":
        return ""
    try:
        number = value if isinstance(value, Decimal) else Decimal(str(value))
    except InvalidOperation:
        return str(value)
    if not number.is_finite():
        return str(value)
    text = f"{number.normalize():f}"
    return "0" if text in ("-0", "0") else text


def zone_name(moment: datetime) -> str:
    """The zone of an aware time as people read it: "CET", "BST", "UTC", or "UTC+03" where
    the zone has no letters of its own."""
    name = moment.tzname() or ""
    if name[:1] in ("+", "-"):
        return f"UTC{name}"
    return name or "UTC"


def local_time(value: datetime | str | None, timezone: str | None = None, seconds: bool = False) -> str:
    """Every time a page shows, in one format: "27 Nov 2026, 16:05 CET".

    `value`: a datetime (UTC inside) or an API time ("2026-06-24T17:07:53+02:00");
    `timezone`: the location's, or the user's on pages without a location (None: the value's
    own offset). The zone is always shown, so a time is never ambiguous."""
    if value is None or value == "":
        return "never"
    if isinstance(value, str) and len(value) == 10:  # a day ("2026-06-24"): no time, no zone
        try:
            day = date.fromisoformat(value)
        except ValueError:
            return value
        return f"{day.day} {day.strftime('%b %Y')}"
    moment = _moment(value, timezone)
    if moment is None:
        return str(value)
    clock = "%H:%M:%S" if seconds else "%H:%M"
    return f"{moment.day} {moment.strftime(f'%b %Y, {clock}')} {zone_name(moment)}"


def _moment(value: datetime | str, timezone: str | None) -> datetime | None:
    """`value` as an aware time in `timezone` (None: its own offset); None when it is no time."""
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    else:
        moment = value
    if moment.tzinfo is None:  # stored as naive UTC (SQLite)
        moment = moment.replace(tzinfo=ZoneInfo("UTC"))
    return moment.astimezone(ZoneInfo(timezone)) if timezone else moment


def when(value: datetime | str | None, timezone: str | None = None, seconds: bool = False) -> str:
    """`local_time` as a filter: `{{ order.created_at | when(location.timezone) }}`; "" for none."""
    if value is None or value == "":
        return ""
    return local_time(value, timezone, seconds)


def clock_time(value: datetime | str | None, timezone: str | None = None) -> str:
    """The time of day alone, "16:05", for a page that shows one day and names its zone once
    (the board)."""
    moment = _moment(value, timezone) if value else None
    return moment.strftime("%H:%M") if moment is not None else local_time(value, timezone)
