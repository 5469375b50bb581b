"""Dates, times and timezones of spec 2.1.

Time is UTC inside and local outside (docs/architecture.md "Times and money"). A Time sent
without an offset is taken in the location's timezone; times are returned in the location's
timezone with a numeric offset at second precision (`2026-06-24T17:07:53+02:00`,
docs/api/conventions.md "Times"), or in UTC (`+00:00`) for resources not tied to a location.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from datetime import timezone as dt_timezone
from functools import lru_cache
from typing import Annotated, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from pydantic import WithJsonSchema

from comptoir.kit import clock
from comptoir.kit.wire import WireError, shown, wire_type

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?", re.ASCII)
_HHMM = re.compile(r"([01]\d|2[0-3]):[0-5]\d", re.ASCII)


# Dates and times are taken between these (inclusive): far from the calendar's limits, so
# that reading a time in any timezone, or adding days to it, never leaves the calendar.
EARLIEST = date(1900, 1, 1)
LATEST = date(8999, 12, 31)
_OUT_OF_RANGE = f"is out of range (dates run from {EARLIEST} to {LATEST})"
# The same rules as the document states them: a year from 1900 to 8999, a month, a day of at
# most its month's length (29 February, of leap years only, is left out of the pattern).
_YEAR_MONTH_DAY = (
    "(19[0-9]{2}|[2-8][0-9]{3})-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])"
    "|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))"
)
DATE_PATTERN = f"^{_YEAR_MONTH_DAY}$"
_CLOCK = "([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?(Z|[+-]([01][0-9]|2[0-3]):?[0-5][0-9])?"
DATETIME_PATTERN = f"^{_YEAR_MONTH_DAY}[T ]{_CLOCK}$"


# --- Date -------------------------------------------------------------------------------


def parse_date(value: Any) -> date:
    if isinstance(value, str) and _DATE.fullmatch(value):
        try:
            parsed = date.fromisoformat(value)
        except ValueError:
            pass
        else:
            if not EARLIEST <= parsed <= LATEST:
                raise WireError(f"{shown(value)} {_OUT_OF_RANGE}")
            return parsed
    raise WireError(f"{shown(value)} is not a valid date (expected YYYY-MM-DD)")


DateStr = wire_type(
    date,
    parse_date,
    date.isoformat,
    {"type": "string", "format": "date", "pattern": DATE_PATTERN, "examples": ["2026-06-24"]},
)


# --- Time (date-time) -------------------------------------------------------------------


def parse_datetime(value: Any) -> datetime:
    """An ISO 8601 date-time; naive when sent without offset (see `localize`)."""
    if isinstance(value, str) and _DATETIME.fullmatch(value):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            pass
        else:
            if not EARLIEST <= parsed.date() <= LATEST:
                raise WireError(f"{shown(value)} {_OUT_OF_RANGE}")
            return parsed
    raise WireError(f'{shown(value)} is not a valid ISO 8601 time (expected e.g. "2026-06-24T17:07:53+02:00")')


def localize(value: datetime, timezone: str) -> datetime:
    """Aware UTC time of `value`, reading a naive value in `timezone` (spec 2.1 Time)."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=zone(timezone))
    return value.astimezone(UTC)


def future(value: datetime) -> datetime:
    """`value` (aware) when it is later than now, else a WireError: a time something resumes
    or comes back must be in the future when written (docs/api/locations-accounts.md "Order
    acceptance", docs/api/inventory.md "Entries")."""
    if value <= clock.now():
        raise WireError("must be in the future")
    return value


def render_datetime(value: datetime | None, timezone: str = "UTC") -> str | None:
    if value is None:
        return None
    if value.tzinfo is None:  # stored values are UTC
        value = value.replace(tzinfo=UTC)
    local = value.astimezone(zone(timezone))
    offset = local.utcoffset()
    if offset is not None and offset.seconds % 60:
        # a local mean time (Paris before 1911: +00:09:21): the same instant at the offset's
        # minute, as RFC 3339 writes offsets
        local = value.astimezone(dt_timezone(timedelta(minutes=round(offset.total_seconds() / 60))))
    return local.replace(microsecond=0).isoformat()


DATETIME_SCHEMA = {
    "type": "string",
    "pattern": DATETIME_PATTERN,
    "description": "ISO 8601 time, from 1900 to 8999; without offset it is read in the location's timezone.",
    "examples": ["2026-06-24T17:07:53+02:00"],
}
DateTimeStr = wire_type(datetime, parse_datetime, None, DATETIME_SCHEMA)
# In a query string a form encoder writes a space as `+`, which the `after` and `before`
# filters read as a plus sign (docs/api/conventions.md "Times"): there, `T` separates the day.
DATETIME_QUERY_SCHEMA = {**DATETIME_SCHEMA, "pattern": f"^{_YEAR_MONTH_DAY}T{_CLOCK}$"}
# A time as the API returns it: in the location's timezone (UTC elsewhere), its offset stated,
# to the second (docs/api/conventions.md "Times").
TimeOut = Annotated[
    str, WithJsonSchema({"type": "string", "format": "date-time", "examples": ["2026-06-24T17:07:53+02:00"]})
]
DateOut = Annotated[str, WithJsonSchema({"type": "string", "format": "date", "examples": ["2026-06-24"]})]


# --- HH:mm ------------------------------------------------------------------------------


def parse_hhmm(value: Any) -> str:
    if isinstance(value, str) and _HHMM.fullmatch(value):
        return value
    raise WireError(f'{shown(value)} is not a valid time of day (expected HH:mm, e.g. "06:00")')


def hhmm_minutes(value: str) -> int:
    return int(value[:2]) * 60 + int(value[3:])


HourMinute = wire_type(
    str, parse_hhmm, None, {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$", "examples": ["06:00"]}
)


# --- Timezone ---------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _names() -> frozenset[str]:
    return frozenset(n for n in available_timezones() if n not in {"localtime", "Factory"})


@lru_cache(maxsize=1)
def timezone_names() -> list[str]:
    """Every IANA name `parse_timezone_name` accepts, sorted (the back office's select)."""
    return sorted(_names())


@lru_cache(maxsize=1024)
def zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def parse_timezone_name(value: Any) -> str:
    if isinstance(value, str) and value in _names():
        try:
            zone(value)
            return value
        except (ZoneInfoNotFoundError, ValueError):
            pass
    raise WireError(f'{shown(value)} is not an IANA timezone name (e.g. "Europe/Paris")')


@lru_cache(maxsize=4096)
def _standard_offset(name: str, day: date) -> int:
    moment = datetime(day.year, day.month, day.day, 12, tzinfo=zone(name))
    utc_offset = moment.utcoffset() or timedelta(0)
    dst = moment.dst() or timedelta(0)
    return int((utc_offset - dst).total_seconds())


def standard_offset(name: str) -> int:
    """The deprecated `offset` of spec 2.1: the zone's standard offset in seconds, ignoring
    daylight saving (3600 for Europe/Paris all year, docs/api/conventions.md "Wire formats")."""
    return _standard_offset(name, clock.now().date())


def render_timezone(name: str) -> dict[str, Any]:
    return {"name": name, "offset": standard_offset(name)}


@lru_cache(maxsize=1)
def _country_zones() -> dict[str, str]:
    from importlib.resources import files

    table = files("tzdata").joinpath("zoneinfo", "zone.tab").read_text(encoding="utf-8")
    first: dict[str, str] = {}
    for line in table.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        country, _coords, name, *_ = line.split("\t")
        first.setdefault(country, name)
    return first


@lru_cache(maxsize=1)
def _zone_countries() -> dict[str, str]:
    from importlib.resources import files

    table = files("tzdata").joinpath("zoneinfo", "zone.tab").read_text(encoding="utf-8")
    countries: dict[str, str] = {}
    for line in table.splitlines():
        if not line.startswith("#") and line.strip():
            country, _coords, name, *_ = line.split("\t")
            countries.setdefault(name, country)
    return countries


def country_of_timezone(name: str) -> str | None:
    """The country a zone belongs to (None for UTC and other zones of no country)."""
    return _zone_countries().get(name)


def main_timezone(country: str) -> str:
    """The country's main zone (the first one `zone.tab` lists for it), else UTC."""
    return _country_zones().get(country, "UTC")
