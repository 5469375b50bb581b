"""JSON in and out, exact for decimals: bodies are parsed with `parse_float=Decimal` (a JSON
number is taken by its exact text, decisions.md "Wire formats") and Decimals are written back
as the same JSON number text."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import orjson


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


def loads(data: str | bytes) -> Any:
    """Parse JSON keeping every number exact (Decimal for non-integers); NaN/Infinity refused."""
    return json.loads(data, parse_float=Decimal, parse_constant=_reject_constant)
