"""JSON in and out, exact for decimals: bodies are parsed with `parse_float=Decimal` (a JSON
number is taken by its exact text, docs/api/conventions.md "Wire formats") and Decimals are written back
as the same JSON number text."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

import orjson

MAX_DEPTH = 64  # free-form values (custom fields) nested deeper are refused; orjson writes 254
MAX_WALK = 512  # objects and arrays a streamed body (kit.jsonstream) walks, nested deeper, are refused
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # the same, in text
# Stored JSON that starts with a space was written by `stored_fragment`: it holds no number
# orjson would read inexactly, so orjson reads it, three times faster than the exact parser.
# `dumps` never writes a leading space, so nothing else is read that way.
_PLAIN_MARK = b" "
_DIGIT = re.compile(rb"[0-9]")
# `-0` ending a number in `dumps`' text (or in a string): `stored_text` looks for it (a search
# with a literal start, ten times faster than one for the character before it too)
_NEGATIVE_ZERO = re.compile(rb"-0[,\]}]")


def _default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return orjson.Fragment(str(value).encode())
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def dumps(value: Any) -> bytes:
    return orjson.dumps(value, default=_default)


def dumps_str(value: Any) -> str:
    return dumps(value).decode()


def _parse_int(text: str) -> int | Decimal:
    # Integers beyond 64 bits stay exact as Decimal (orjson writes them back as they came).
    value = int(text)
    return value if -(2**63) <= value < 2**63 else Decimal(text)


parse_int, reject_constant = _parse_int, _reject_constant  # the decoder's options, for kit.jsonstream


def loads(data: str | bytes) -> Any:
    """Parse JSON keeping every number exact (Decimal for non-integers and huge integers).

    Raises ValueError for what is not storable JSON: NaN/Infinity, nesting too deep for the
    parser, strings with a lone surrogate (a valid escape, but not Unicode text)."""
    try:
        value = json.loads(data, parse_float=Decimal, parse_int=_parse_int, parse_constant=_reject_constant)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    raw = data.encode() if isinstance(data, str) else data
    if _SURROGATE_ESCAPE.search(raw):  # rare: only then walk the strings
        _check_strings(value)
    return value


def dumps_checked(value: Any) -> tuple[bytes, bool]:
    """`dumps(value)`, and whether orjson reads that text back exactly: true unless a
    Decimal was written (fractions, and integers beyond 64 bits as `loads` gives them). One
    pass: the Decimals are found while writing."""
    exact = False

    def default(item: Any) -> Any:
        nonlocal exact
        if isinstance(item, Decimal):
            exact = True
        return _default(item)

    text = orjson.dumps(value, default=default)
    return text, not exact


def stored_fragment(text: bytes, plain: bool) -> orjson.Fragment:
    """JSON text as the database keeps it: marked for `loads_stored` when `plain`."""
    return orjson.Fragment(_PLAIN_MARK + text if plain else text)


def plain_fragment(value: Any) -> orjson.Fragment:
    """What to store for `value`: its JSON text, marked when orjson reads it back exactly.
    A Fragment is taken as already in that form."""
    if isinstance(value, orjson.Fragment):
        return value
    return stored_fragment(*dumps_checked(value))


def loads_stored(data: str | bytes) -> Any:
    """`loads` for JSON the database holds, which `dumps` or `plain_fragment` wrote."""
    raw = data.encode() if isinstance(data, str) else data
    if raw.startswith(_PLAIN_MARK) or not _DIGIT.search(raw):  # no number at all: nothing inexact
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return loads(raw)


def stored_text(text: str | bytes) -> orjson.Fragment:
    """JSON the database holds (which `dumps` or `plain_fragment` wrote), to be written as it
    is, undecoded: the same bytes as `dumps(loads_stored(text))`, since that text is `dumps`'
    own (`stored_fragment`'s mark left out), but for one number: a Decimal negative zero
    without a fraction (`-0e0` sent) is written `-0`, which `loads` reads as the integer 0.
    A text that may hold one (rare) is decoded and written again."""
    raw = text.encode() if isinstance(text, str) else text
    if raw.startswith(_PLAIN_MARK):
        raw = raw[1:]
    if _NEGATIVE_ZERO.search(raw) or raw == b"-0":
        return orjson.Fragment(dumps(loads_stored(raw)))
    return orjson.Fragment(raw)


def check_strings(value: Any) -> None:
    """ValueError when a string (or key) of `value` holds a lone UTF-16 surrogate."""
    _check_strings(value)


def _check_strings(value: Any) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _check_strings(key)
            _check_strings(item)
    elif isinstance(value, list):
        for item in value:
            _check_strings(item)
    elif isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("a string holds a lone UTF-16 surrogate") from None


def depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """Nesting depth of objects and arrays in `value`, counting up to `limit + 1` at most."""
    if limit < 0 or not isinstance(value, (dict, list)):
        return 0
    items = value.values() if isinstance(value, dict) else value
    return 1 + max((depth(item, limit - 1) for item in items), default=0)
