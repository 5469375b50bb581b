"""Free-text fields with a maximum length: checked while the body is parsed, so
a 422 names every bad field at once, with the same limits on both databases."""

from __future__ import annotations

from decimal import Decimal
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import StringConstraints, WithJsonSchema
from pydantic.types import Strict

from comptoir.kit.decimals import parse_decimal, render_decimal
from comptoir.kit.wire import WireError, wire_type


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
    return Annotated[str, Strict(), StringConstraints(max_length=max_length), text_schema(max_length)]


# docs/api/conventions.md "Requests": no text of a body (nor key) holds a NUL character; the
# body is refused as it is read (`http.inputs.nul_fields`), and the document says so here.
NO_NUL = "^[^\\u0000]*$"
# A request body's object, whose unknown keys are ignored: no key may hold a NUL either.
KEYS_WITHOUT_NUL: dict[str, Any] = {"propertyNames": {"pattern": NO_NUL}}


def body_schema(*examples: dict[str, Any], **schema: Any) -> dict[str, Any]:
    """A request body's `json_schema_extra`: keys without NUL, `schema`, its `examples`."""
    return {**KEYS_WITHOUT_NUL, **schema, "examples": list(examples)}


NOT_BLANK = "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"  # and not only spaces (`errors.check_text`)


def text_json_schema(max_length: int, *, blank: bool = True) -> dict[str, Any]:
    """The document's schema of a text of at most `max_length` characters, without NUL;
    with `blank=False`, not empty nor only spaces."""
    if blank:
        return {"type": "string", "maxLength": max_length, "pattern": NO_NUL}
    return {"type": "string", "minLength": 1, "maxLength": max_length, "pattern": NOT_BLANK}


def text_schema(max_length: int, *, blank: bool = True) -> WithJsonSchema:
    return WithJsonSchema(text_json_schema(max_length, blank=blank))


# The limits fields use, as type aliases a type checker reads (`Text(n)` builds the same).
Text32 = Annotated[str, Strict(), StringConstraints(max_length=32), text_schema(32)]
Text64 = Annotated[str, Strict(), StringConstraints(max_length=64), text_schema(64)]
Text255 = Annotated[str, Strict(), StringConstraints(max_length=255), text_schema(255)]
Text1000 = Annotated[str, Strict(), StringConstraints(max_length=1000), text_schema(1000)]
Text2000 = Annotated[str, Strict(), StringConstraints(max_length=2000), text_schema(2000)]
Text5000 = Annotated[str, Strict(), StringConstraints(max_length=5000), text_schema(5000)]
# A catalog's or a customer list's name (`errors.check_text`, by their services): required,
# not blank, at most 255 characters.
Label = Annotated[str, Strict(), text_schema(255, blank=False)]
# A string of a body with no limit of its own (an id, a key): strict, without NUL.
Str = Annotated[str, Strict(), WithJsonSchema({"type": "string", "pattern": NO_NUL})]


@cache
def BoundedDecimal(limit: int, pattern: str) -> Any:
    """A Decimal between -limit and limit (coordinates); `pattern`: its texts in that range."""

    def parse(value: Any) -> Decimal:
        number = parse_decimal(value)
        if abs(number) > limit:
            raise WireError(f"must be between -{limit} and {limit}")
        return number

    return wire_type(
        Decimal,
        parse,
        render_decimal,
        {
            "anyOf": [
                {"type": "string", "pattern": pattern},
                {"type": "number", "minimum": -limit, "maximum": limit, "multipleOf": 1e-30},
            ],
            "description": f"Exact decimal between -{limit} and {limit}: a string, or a JSON number on write.",
        },
    )


_FRACTION = "(\\.[0-9]{1,30})?"
if TYPE_CHECKING:  # what a type checker reads of them
    Latitude = Decimal
    Longitude = Decimal
else:
    Latitude = BoundedDecimal(90, f"^-?(90(\\.0{{1,30}})?|[0-8]?[0-9]{_FRACTION})$")
    Longitude = BoundedDecimal(180, f"^-?(180(\\.0{{1,30}})?|(1[0-7][0-9]|[0-9]{{1,2}}){_FRACTION})$")
