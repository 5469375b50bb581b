"""Decimal (spec 2.1): exact numbers, strings on the wire, never floats.

docs/api/conventions.md "Wire formats": requests may carry a decimal as a JSON string or a JSON number
(taken by its exact text: request bodies are parsed with `parse_float=Decimal`); responses
show integral values with one decimal place ("2" -> "2.0") and others as given without
trailing-zero noise ("13.50" -> "13.5").
"""

from __future__ import annotations

import decimal
import re
from decimal import Decimal
from typing import Any

from comptoir.kit.wire import WireError, shown, wire_type

_DECIMAL_TEXT = re.compile(r"-?\d{1,30}(\.\d{1,30})?", re.ASCII)
_MAX_ADJUSTED = 30  # values up to 10**30, far beyond any amount, stock or coordinate


def parse_decimal(value: Any) -> Decimal:
    if isinstance(value, bool):
        raise WireError(f"{shown(value)} is not a valid decimal")
    if isinstance(value, str):
        if not _DECIMAL_TEXT.fullmatch(value):
            raise WireError(f'{shown(value)} is not a valid decimal (expected e.g. "13.5")')
        return Decimal(value)
    if isinstance(value, int):
        value = Decimal(value)
    if isinstance(value, Decimal):
        if not value.is_finite() or value.adjusted() > _MAX_ADJUSTED or value.as_tuple().exponent < -30:  # type: ignore[operator]
            raise WireError(f"{shown(str(value))} is out of the supported decimal range")
        return value
    raise WireError(f"{shown(value)} is not a valid decimal")


def render_decimal(value: Decimal) -> str:
    if value == value.to_integral_value():
        return f"{int(value)}.0"
    return format(value, "f").rstrip("0")


DecimalStr = wire_type(
    Decimal,
    parse_decimal,
    render_decimal,
    {
        "anyOf": [
            {"type": "string", "pattern": "^-?[0-9]{1,30}(\\.[0-9]{1,30})?$"},
            # at most 30 decimals: a multiple of 10**-30
            {"type": "number", "minimum": -(10**_MAX_ADJUSTED), "maximum": 10**_MAX_ADJUSTED, "multipleOf": 1e-30},
        ],
        "description": "Exact decimal number: a string on read (integral values read back "
        'with one decimal place, e.g. "2.0"); a string or a JSON number on write.',
        "examples": ["13.5"],
    },
    memo=True,
)


# Wide enough for any sum of values parse_decimal accepts; Inexact trapped so a sum is
# never silently rounded (the default context keeps only 28 digits).
_EXACT = decimal.Context(prec=1000, traps=[decimal.Inexact, decimal.InvalidOperation, decimal.Overflow])


def exact_add(a: Decimal, b: Decimal) -> Decimal:
    """a + b, exactly (balances: spec 2.1, never rounded)."""
    return _EXACT.add(a, b)


def exact_sub(a: Decimal, b: Decimal) -> Decimal:
    """a - b, exactly (plain `-` rounds to 28 digits)."""
    return _EXACT.subtract(a, b)


def exact_mul(a: Decimal, b: Decimal) -> Decimal:
    """a x b, exactly."""
    return _EXACT.multiply(a, b)


def parse_whole(value: Any) -> int:
    """An integer as JSON writes it: `5`, or an integral number such as `5.0` (the same
    integer in JSON Schema), never a string nor a boolean; at most 18 digits."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if (
        isinstance(value, Decimal)
        and value.is_finite()
        and value.adjusted() < 18
        and value == value.to_integral_value()
    ):
        return int(value)
    raise WireError("must be an integer")


WholeNumber = wire_type(int, parse_whole, None, {"type": "integer"})
