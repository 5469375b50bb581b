"""spec 2.1 Date, Time, Timezone; docs/api/conventions.md "Times" (times and offsets)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from comptoir.kit import clock
from comptoir.kit.times import (
    country_of_timezone,
    localize,
    main_timezone,
    parse_date,
    parse_datetime,
    parse_hhmm,
    parse_timezone_name,
    render_datetime,
    render_timezone,
)
from comptoir.kit.wire import WireError


def test_naive_times_are_read_in_the_location_timezone() -> None:
    summer = localize(parse_datetime("2026-06-24T17:07:53"), "Europe/Paris")
    assert summer == datetime(2026, 6, 24, 15, 7, 53, tzinfo=UTC)
    winter = localize(parse_datetime("2026-01-10T09:00:00"), "Europe/Paris")
    assert winter == datetime(2026, 1, 10, 8, 0, tzinfo=UTC)


def test_times_with_offset_keep_their_instant() -> None:
    assert localize(parse_datetime("2026-06-24T17:07:53Z"), "Europe/Paris") == datetime(
        2026, 6, 24, 17, 7, 53, tzinfo=UTC
    )
    assert localize(parse_datetime("2026-06-24T17:07:53-05:00"), "Europe/Paris") == datetime(
        2026, 6, 24, 22, 7, 53, tzinfo=UTC
    )


def test_times_render_in_the_zone_with_offset_at_second_precision() -> None:
    moment = datetime(2026, 6, 24, 15, 7, 53, 999999, tzinfo=UTC)
    assert render_datetime(moment, "Europe/Paris") == "2026-06-24T17:07:53+02:00"
    assert render_datetime(moment) == "2026-06-24T15:07:53+00:00"
    assert render_datetime(moment, "America/St_Johns") == "2026-06-24T12:37:53-02:30"
    assert render_datetime(None, "UTC") is None


@pytest.mark.parametrize(
    "bad", ["2026-06-24", "24/06/2026 10:00", "2026-13-01T00:00:00", "2026-06-24T25:00:00", "now", 1, None]
)
def test_invalid_times_are_refused(bad: object) -> None:
    with pytest.raises(WireError, match="not a valid ISO 8601 time"):
        parse_datetime(bad)


def test_dates() -> None:
    assert parse_date("2026-02-28") == date(2026, 2, 28)
    for bad in ("2026-02-30", "2026-2-3", "20260203", "2026-02-03T00:00:00", 5):
        with pytest.raises(WireError, match="YYYY-MM-DD"):
            parse_date(bad)


def test_hour_minute() -> None:
    assert parse_hhmm("00:00") == "00:00"
    assert parse_hhmm("23:59") == "23:59"
    for bad in ("24:00", "7:00", "07:60", "0700", "07:00:00", None):
        with pytest.raises(WireError, match="HH:mm"):
            parse_hhmm(bad)


def test_timezone_offset_is_the_standard_offset_all_year() -> None:
    clock.freeze(datetime(2026, 7, 1, tzinfo=UTC))
    assert render_timezone("Europe/Paris") == {"name": "Europe/Paris", "offset": 3600}
    assert render_timezone("Australia/Sydney") == {"name": "Australia/Sydney", "offset": 36000}
    clock.freeze(datetime(2026, 1, 1, tzinfo=UTC))
    assert render_timezone("Europe/Paris") == {"name": "Europe/Paris", "offset": 3600}
    assert render_timezone("Australia/Sydney") == {"name": "Australia/Sydney", "offset": 36000}
    assert render_timezone("Asia/Kolkata") == {"name": "Asia/Kolkata", "offset": 19800}


def test_timezone_names_must_be_iana() -> None:
    assert parse_timezone_name("America/Argentina/Buenos_Aires") == "America/Argentina/Buenos_Aires"
    for bad in ("Paris", "europe/paris", "UTC+1", "", "localtime", "../etc/passwd", None):
        with pytest.raises(WireError, match="IANA"):
            parse_timezone_name(bad)


def test_main_zone_of_a_country_and_country_of_a_zone() -> None:
    assert main_timezone("FR") == "Europe/Paris"
    assert main_timezone("US") == "America/New_York"
    assert main_timezone("GB") == "Europe/London"
    assert country_of_timezone("Europe/Berlin") == "DE"
    assert country_of_timezone("UTC") is None
