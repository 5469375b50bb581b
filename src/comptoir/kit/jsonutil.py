"""JSON in and out, exact for decimals: bodies are parsed with `parse_float=Decimal` (a JSON
number is taken by its exact text, decisions.md "Wire formats") and Decimals are written back
as the same JSON number text."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

import orjson

MAX_DEPTH = 64  # free-form values (custom fields) nested deeper are refused; orjson writes 254
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
# Stored JSON that starts with a space was written by `plain_fragment`: it holds no number
# orjson would read inexactly, so orjson reads it, three times faster than the exact parser.
# `dumps` never writes a leading space, so nothing else is read that way.
_PLAIN_MARK = b" "
_DIGIT = re.compile(rb"[0-9]")


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


def is_plain(value: Any) -> bool:
    """True when orjson would read `dumps(value)` back exactly: no Decimal (fractions, or
    integers beyond 64 bits as `loads` gives them), no float, no integer beyond 64 bits."""
    kind = type(value)
    if kind is dict:
        return all(is_plain(item) for item in value.values())
    if kind is list:
        return all(is_plain(item) for item in value)
    if kind is int:
        return -(2**63) <= value < 2**63
    return kind is not Decimal and kind is not float


def plain_fragment(value: Any) -> Any:
    """What to store for `value`: when `is_plain`, its JSON text marked for `loads_stored`
    (a leading space, which JSON allows), else `value` itself."""
    return orjson.Fragment(_PLAIN_MARK + dumps(value)) if is_plain(value) else value


def loads_stored(data: str | bytes) -> Any:
    """`loads` for JSON the database holds, which `dumps` or `plain_fragment` wrote."""
    raw = data.encode() if isinstance(data, str) else data
    if raw.startswith(_PLAIN_MARK) or not _DIGIT.search(raw):  # no number at all: nothing inexact
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return loads(raw)


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
