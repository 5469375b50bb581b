"""Shared base of the wire-format types of spec 2.1: one error type and one way to turn a
parse function into a pydantic type whose failures read as clear 422 messages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic import PlainSerializer, PlainValidator, WithJsonSchema
from pydantic_core import PydanticCustomError


class WireError(ValueError):
    """A value that does not follow its wire format; the message is shown to integrators."""


def shown(value: Any) -> str:
    """How a rejected value is quoted in an error message: as the user sent it, in JSON's
    words, bounded; never a Python representation (`10.5`, not `Decimal('10.5')`)."""
    if isinstance(value, str):
        text = value if len(value) <= 60 else value[:57] + "..."
        return "'" + text + "'"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    text = str(value)  # a JSON number by its text (a Decimal's str, never its repr)
    return text if len(text) <= 60 else text[:57] + "..."


MEMO_SIZE = 4096  # distinct texts remembered per memoised type; forgotten all at once when full


def wire_type(
    python_type: Any,
    parse: Callable[[Any], Any],
    render: Callable[[Any], Any] | None,
    json_schema: dict[str, Any],
    *,
    memo: bool = False,
) -> Any:
    """`Annotated[python_type, ...]` validated by `parse`, serialised by `render`.

    `memo`: remember what `parse` made of each accepted string, for types whose texts repeat
    from request to request (amounts: a menu's prices come back in every order; quantities;
    codes) and whose values are immutable. Only strings are remembered (a JSON number's
    Decimal equals its other spellings, "1" and "1.0"), and never a refusal."""

    def validate(value: Any) -> Any:
        try:
            return parse(value)
        except WireError as exc:
            raise PydanticCustomError("invalid_format", str(exc)) from None

    if memo:
        known: dict[str, Any] = {}
        parse_once = validate

        def validate(value: Any) -> Any:
            if type(value) is not str:
                return parse_once(value)
            parsed = known.get(value)
            if parsed is None:
                parsed = parse_once(value)
                if len(known) >= MEMO_SIZE:
                    known.clear()
                known[value] = parsed
            return parsed

    metadata: list[Any] = [PlainValidator(validate), WithJsonSchema(json_schema)]
    if render is not None:
        metadata.append(PlainSerializer(render, when_used="json"))
    return Annotated[python_type, *metadata]
