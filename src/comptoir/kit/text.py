"""Free-text fields with a maximum length, and emails: checked while the body is parsed, so
a 422 names every bad field at once, with the same limits on both databases."""

from __future__ import annotations

import re
from decimal import Decimal
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import StringConstraints
from pydantic.types import Strict

from comptoir.kit.decimals import parse_decimal, render_decimal
from comptoir.kit.wire import WireError, shown, wire_type

_EMAIL = re.compile(r"[^@\s]+@[^@\s]+")


def too_long(value: str, max_length: int) -> str | None:
    """The one message for a text over its limit (None when it fits)."""
    return f"must be at most {max_length} characters (it has {len(value)})" if len(value) > max_length else None


def _text(value: Any, max_length: int) -> str:
    if not isinstance(value, str):
        raise WireError("must be a string")
    if problem := too_long(value, max_length):
        raise WireError(problem)
    return value


@cache
def Text(max_length: int) -> Any:
    """A string of at most `max_length` characters. Checked by pydantic-core itself (a
    Python validator per field cost a fifth of an order creation's validation); its errors
    read as `_text`'s (`errors.validation_message`)."""
    return Annotated[str, Strict(), StringConstraints(max_length=max_length)]


def parse_email(value: Any) -> str:
    text = _text(value, 255)
    if not _EMAIL.fullmatch(text):
        raise WireError(f"{shown(text)} is not a valid email address")
    return text


Email = wire_type(str, parse_email, None, {"type": "string", "format": "email", "maxLength": 255})


@cache
def BoundedDecimal(limit: int) -> Any:
    """A Decimal between -limit and limit (coordinates)."""

    def parse(value: Any) -> Decimal:
        number = parse_decimal(value)
        if abs(number) > limit:
            raise WireError(f"must be between -{limit} and {limit}")
        return number

    return wire_type(Decimal, parse, render_decimal, {"anyOf": [{"type": "string"}, {"type": "number"}]})


# The limited types by name, for schemas: a call such as `Text(255)` is not a type to mypy,
# which sees each name as its value type; pydantic sees the limited type (the same object
# as the call returns).
if TYPE_CHECKING:
    Text32 = str
    Text64 = str
    Text255 = str
    Text1000 = str
    Text2000 = str
    Text5000 = str
    Latitude = Decimal
    Longitude = Decimal
else:
    Text32, Text64, Text255, Text1000, Text2000, Text5000 = (Text(n) for n in (32, 64, 255, 1000, 2000, 5000))
    Latitude, Longitude = BoundedDecimal(90), BoundedDecimal(180)
