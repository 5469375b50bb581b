"""spec 2.1: DOW, Weight, Volume, Country, currency, ServiceType, Phone (E.164)."""

from __future__ import annotations

import pytest

from comptoir.kit.codes import ServiceType, parse_country, parse_currency
from comptoir.kit.dow import parse_dow
from comptoir.kit.patterns import is_range
from comptoir.kit.phone import parse_order_phone, parse_phone, phone_pattern
from comptoir.kit.units import parse_volume, parse_weight
from comptoir.kit.wire import WireError


def test_dow() -> None:
    assert parse_dow("1234567") == "1234567"
    assert parse_dow("12345--") == "12345--"
    assert parse_dow("-------") == "-------"
    for bad in ("123456", "12345678", "2234567", "1234576", "abcdefg", 1234567):
        with pytest.raises(WireError, match="DOW"):
            parse_dow(bad)


def test_weight_and_volume() -> None:
    assert parse_weight("250 g") == "250 g"
    assert parse_weight("1.5 kg") == "1.5 kg"
    assert parse_volume("33 cl") == "33 cl"
    assert parse_volume("0.5 l") == "0.5 l"
    for bad in ("0 g", "-1 g", "250g", "250 lb", "g", "1.5 l"):
        with pytest.raises(WireError):
            parse_weight(bad)
    for bad in ("0 ml", "33 cL", "1 kg"):
        with pytest.raises(WireError):
            parse_volume(bad)


def test_country_and_currency_codes() -> None:
    assert parse_country("FR") == "FR"
    assert parse_currency("EUR") == "EUR"
    for bad in ("fr", "FRA", "XX", "", None):
        with pytest.raises(WireError, match="ISO 3166-1"):
            parse_country(bad)
    for bad in ("eur", "EU", "XYZ", None):
        with pytest.raises(WireError, match="ISO 4217"):
            parse_currency(bad)


def test_service_types() -> None:
    assert [t.value for t in ServiceType] == ["delivery", "collection", "eat_in"]


def test_phones_starting_with_plus_must_be_possible_e164_numbers() -> None:
    assert parse_phone("+33612345678") == "+33612345678"
    assert parse_phone("+447911123456") == "+447911123456"
    assert parse_phone("+447700900123") == "+447700900123"  # possible, though never allocated
    assert parse_phone("+33 6.12-34 56 78") == "+33612345678"  # separators dropped
    for bad in (
        "+3361234",
        "+0012345678",
        "+",
        "+33612345678999999",
        "+99912345678",
        "+4412345",
        "+33(6)12345678",
        "+３３612345678",
    ):
        with pytest.raises(WireError, match=r"E\.164"):
            parse_phone(bad)


def test_an_order_phone_is_normalised_when_possible_and_kept_as_given_otherwise() -> None:
    assert parse_order_phone("+44 7700 900-123") == "+447700900123"
    for kept in ("+1234", "+99912345678", "+12345678901234567", "06 12 34 56 78", ""):
        assert parse_order_phone(kept) == kept


def test_a_plus_phone_filter_drops_separators_and_stays_an_index_range() -> None:
    assert phone_pattern("+44 7700.900-1*") == "+4477009001*"
    assert is_range(phone_pattern("+44 7700*"))
    assert phone_pattern("020 7946*") == "020 7946*"
    assert phone_pattern("*900-123") == "*900-123"
    assert phone_pattern(None) is None


def test_other_phone_formats_are_kept_as_given() -> None:
    # deprecated (spec 9.3) but accepted: docs/api/conventions.md "Phones"
    assert parse_phone("06 12 34 56 78") == "06 12 34 56 78"
    assert parse_phone("(555) 123-4567") == "(555) 123-4567"
    for bad in ("", "   ", 612345678, None):
        with pytest.raises(WireError):
            parse_phone(bad)
