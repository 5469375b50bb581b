"""spec 2.1 Decimal and docs/api/conventions.md "Wire formats": exact, strings on the wire."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from comptoir.kit.decimals import parse_decimal, render_decimal
from comptoir.kit.jsonutil import dumps, dumps_checked, loads, loads_stored, plain_fragment, stored_text
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


@pytest.mark.parametrize(
    ("value", "plain"),
    [
        ({"n": 12, "s": "10.50 EUR", "l": [1, -2, None, True], "d": {"x": "1.5"}}, True),
        ({"n": [1, Decimal("2.5")]}, False),
        ({"n": Decimal("-1E+2")}, False),
        ({"big": Decimal("123456789012345678901234567890")}, False),
        ({"big": 2**63 - 1}, True),
        ({"big": -(2**63)}, True),
        ({"s": "\u00e9t\u00e9 a:1.5"}, True),
        ({"f": 0.1}, True),  # a float (never in a request's JSON) reads back as the same float
    ],
)
def test_stored_json_reads_back_exactly_whichever_parser_reads_it(value: dict, plain: bool) -> None:
    stored = dumps(plain_fragment(value))
    assert stored.startswith(b" ") is plain
    assert dumps_checked(value) == (dumps(value), plain)
    assert dumps(value).strip() == stored.strip()
    read = loads_stored(stored)
    assert read == value
    assert [type(v) for v in read.values()] == [type(v) for v in value.values()]


def test_only_what_plain_fragment_marked_skips_the_exact_parser() -> None:
    assert loads_stored(b'{"a": 0.1}') == {"a": Decimal("0.1")}
    assert loads(b' {"a": 0.1}') == {"a": Decimal("0.1")}  # request bodies: always exact


def test_stored_json_without_numbers_reads_the_same() -> None:
    assert loads_stored(b'{"a": ["x", true, null], "b": {}}') == {"a": ["x", True, None], "b": {}}
    assert loads_stored("{}") == {}


def test_bodies_in_other_unicode_encodings_are_read() -> None:
    assert loads('{"a": 1.5}'.encode("utf-16")) == {"a": Decimal("1.5")}
    assert loads('\ufeff{"a": 1}'.encode()) == {"a": 1}  # as json.loads: a UTF-8 BOM is skipped
    with pytest.raises(ValueError, match="BOM"):
        loads('\ufeff{"a": 1}')


_JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.decimals(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=["Cs"])),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)


@given(_JSON_VALUES, st.booleans())
def test_stored_text_is_written_as_its_value_read_back_would_be(value: object, marked: bool) -> None:
    stored = dumps(plain_fragment(value) if marked else value)
    assert dumps({"state": stored_text(stored)}) == dumps({"state": loads_stored(stored)})


def test_a_negative_zero_stored_is_written_as_read_back() -> None:
    assert dumps([stored_text(dumps([Decimal("-0"), Decimal("-0.0"), "-0"]))]) == b'[[0,-0.0,"-0"]]'
