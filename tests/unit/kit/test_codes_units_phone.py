"""spec 2.1: DOW, Weight, Volume, Country, currency, ServiceType, Phone (E.164)."""

from __future__ import annotations

import pytest

from comptoir.kit.codes import ServiceType, parse_country, parse_currency
from comptoir.kit.dow import includes, parse_dow
from comptoir.kit.phone import parse_phone
from comptoir.kit.units import parse_volume, parse_weight
from comptoir.kit.wire import WireError


def test_dow() -> None:
    assert parse_dow("1234567") == "1234567"
    assert parse_dow("12345--") == "12345--"
    assert parse_dow("-------") == "-------"
    assert includes("1-3----", 3)
    assert not includes("1-3----", 2)
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


def test_phones_starting_with_plus_must_be_valid_e164() -> None:
    assert parse_phone("+33612345678") == "+33612345678"
    assert parse_phone("+447911123456") == "+447911123456"
    for bad in ("+33 6 12 34 56 78", "+3361234", "+0012345678", "+", "+33612345678999999"):
        with pytest.raises(WireError, match=r"E\.164"):
            parse_phone(bad)


def test_other_phone_formats_are_kept_as_given() -> None:
    # deprecated (spec 9.3) but accepted: decisions.md "Customers and loyalty"
    assert parse_phone("06 12 34 56 78") == "06 12 34 56 78"
    assert parse_phone("(555) 123-4567") == "(555) 123-4567"
    for bad in ("", "   ", 612345678, None):
        with pytest.raises(WireError):
            parse_phone(bad)
