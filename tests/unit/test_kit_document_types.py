"""The kit's types as the document states them agree with their parsers, and what they
quote in messages reads as sent."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from comptoir.kit.decimals import WireError, parse_whole
from comptoir.kit.phone import Phone, e164
from comptoir.kit.times import DATE_PATTERN, DATETIME_PATTERN, parse_date, parse_datetime, render_datetime
from comptoir.kit.wire import shown


@pytest.mark.parametrize(
    ("value", "text"),
    [(Decimal("10.50"), "10.50"), (1.5, "1.5"), (7, "7"), ({"a": 1}, "an object"), ([1], "an array"), (None, "null")],
)
def test_a_value_is_shown_as_json_writes_it(value: object, text: str) -> None:
    assert shown(value) == text


@pytest.mark.parametrize(
    "text", ["2026-06-24T17:07:53+02:00", "2026-06-24 17:07", "1900-01-01T00:00Z", "8999-12-31T23:59:59.123456-0530"]
)
def test_a_time_the_pattern_allows_is_parsed(text: str) -> None:
    assert re.fullmatch(DATETIME_PATTERN.strip("^$"), text)
    parse_datetime(text)


@pytest.mark.parametrize("text", ["1899-12-31T23:59Z", "9000-01-01T00:00Z", "2026-02-30T10:00Z", "2026-06-24T24:00Z"])
def test_a_time_out_of_range_or_calendar_is_outside_the_pattern(text: str) -> None:
    assert re.fullmatch(DATETIME_PATTERN.strip("^$"), text) is None


def test_a_date_the_pattern_allows_is_parsed() -> None:
    assert re.fullmatch(DATE_PATTERN.strip("^$"), "2026-04-30")
    parse_date("2026-04-30")
    assert re.fullmatch(DATE_PATTERN.strip("^$"), "2026-04-31") is None


def test_a_local_mean_time_is_rendered_at_a_minute_offset() -> None:
    # Paris ran at +00:09:21 until 1911: RFC 3339 has no seconds in an offset
    assert render_datetime(datetime(1900, 2, 1, tzinfo=UTC), "Europe/Paris") == "1900-02-01T00:09:00+00:09"


def test_an_integral_json_number_is_an_integer() -> None:
    assert parse_whole(Decimal("405.0")) == 405
    for refused in (Decimal("1.5"), "5", True, Decimal("1e40")):
        with pytest.raises(WireError, match="must be an integer"):
            parse_whole(refused)


def test_the_phone_pattern_names_e164_numbers_the_parser_takes() -> None:
    pattern = Phone.__metadata__[1].json_schema["pattern"]
    for number in ("+33612345678", "+447700900123", "+14155550123"):
        assert re.fullmatch(pattern.strip("^$"), number)
        assert e164(number) == number
    assert re.fullmatch(pattern.strip("^$"), "+0123") is None
