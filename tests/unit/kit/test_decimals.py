"""spec 2.1 Decimal and decisions.md "Wire formats": exact, strings on the wire."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from comptoir.kit.decimals import parse_decimal, render_decimal
from comptoir.kit.jsonutil import dumps, loads
from comptoir.kit.wire import WireError


@pytest.mark.parametrize(
    ("given_value", "rendered"),
    [
        ("2", "2.0"),
        ("13.5", "13.5"),
        ("13.50", "13.5"),
        ("48.858951", "48.858951"),
        ("-3", "-3.0"),
        ("-0.0", "0.0"),
        ("0.001", "0.001"),
        ("20", "20.0"),
    ],
)
def test_rendering_of_decimal_strings(given_value: str, rendered: str) -> None:
    assert render_decimal(parse_decimal(given_value)) == rendered


def test_json_numbers_are_taken_by_their_exact_text() -> None:
    body = loads(b'{"a": 0.1, "b": 2, "c": 1.10, "d": 1e2}')
    assert [render_decimal(parse_decimal(body[k])) for k in "abcd"] == ["0.1", "2.0", "1.1", "100.0"]
    assert isinstance(body["a"], Decimal)


@pytest.mark.parametrize("bad", ["", "1,5", "1.", ".5", "+1", "1e3", "abc", " 1", True, None, [1], "1" * 40])
def test_invalid_decimals_are_refused(bad: object) -> None:
    with pytest.raises(WireError):
        parse_decimal(bad)


def test_nan_and_infinity_are_refused_at_json_parsing() -> None:
    for text in (b'{"a": NaN}', b'{"a": Infinity}', b'{"a": -Infinity}'):
        with pytest.raises(ValueError, match="not valid JSON"):
            loads(text)


def test_huge_exponents_are_refused() -> None:
    with pytest.raises(WireError):
        parse_decimal(loads(b"1e999999"))


@given(st.decimals(allow_nan=False, allow_infinity=False, min_value=-(10**12), max_value=10**12, places=6))
def test_render_then_parse_is_exact(value: Decimal) -> None:
    assert parse_decimal(render_decimal(value)) == value


@given(st.decimals(allow_nan=False, allow_infinity=False, min_value=-(10**12), max_value=10**12, places=8))
def test_json_round_trip_keeps_the_exact_value(value: Decimal) -> None:
    assert loads(dumps({"v": value}))["v"] == value
