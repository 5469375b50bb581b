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
    """How a rejected value is quoted in an error message (bounded, JSON-like)."""
    if isinstance(value, str):
        text = value if len(value) <= 60 else value[:57] + "..."
        return "'" + text + "'"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value) if not isinstance(value, (dict, list)) else type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


def wire_type(
    python_type: Any,
    parse: Callable[[Any], Any],
    render: Callable[[Any], Any] | None,
    json_schema: dict[str, Any],
) -> Any:
    """`Annotated[python_type, ...]` validated by `parse`, serialised by `render`."""

    def validate(value: Any) -> Any:
        try:
            return parse(value)
        except WireError as exc:
            raise PydanticCustomError("invalid_format", str(exc)) from None

    metadata: list[Any] = [PlainValidator(validate), WithJsonSchema(json_schema)]
    if render is not None:
        metadata.append(PlainSerializer(render, when_used="json"))
    return Annotated[python_type, *metadata]
