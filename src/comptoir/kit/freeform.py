"""Free-form JSON objects that an integrator stores as given (`payments[].info`): bounded
in depth (`jsonutil.MAX_DEPTH`, as custom fields) and in size (`MAX_BYTES` as JSON), with a
422 naming the field beyond."""

from __future__ import annotations

from typing import Any

from comptoir.kit.jsonutil import MAX_DEPTH, depth, dumps
from comptoir.kit.text import NO_NUL
from comptoir.kit.wire import WireError, wire_type

MAX_BYTES = 64 * 1024


def bounded_object(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object nested at most MAX_DEPTH levels deep."""
    if not isinstance(value, dict):
        raise WireError("must be a JSON object")
    if depth(value) > MAX_DEPTH:
        raise WireError(f"must not nest objects and arrays more than {MAX_DEPTH} levels deep")
    return value


def check_json_size(value: dict[str, Any], max_bytes: int) -> None:
    size = len(dumps(value))
    if size > max_bytes:
        raise WireError(f"must not exceed {max_bytes} bytes as JSON (it is {size} bytes)")


def parse_free_object(value: Any) -> dict[str, Any]:
    check_json_size(bounded_object(value), MAX_BYTES)
    return value


FreeObject = wire_type(
    dict[str, Any],
    parse_free_object,
    None,
    {
        "type": "object",
        "additionalProperties": True,
        "propertyNames": {"pattern": NO_NUL},
        "description": f"Free-form JSON object, at most {MAX_BYTES // 1024} KB as JSON and {MAX_DEPTH} levels deep.",
    },
)
