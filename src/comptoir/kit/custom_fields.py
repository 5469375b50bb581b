"""CustomFields (spec 2.2): a JSON object of at most 8 KB as JSON.

Updates merge (spec 2.2 item 4): a null value removes its key, a new key is added, an
existing key is replaced; keys absent from the update are kept (decisions.md, item 5).
"""

from __future__ import annotations

from typing import Any

from comptoir.kit.jsonutil import MAX_DEPTH, depth, dumps
from comptoir.kit.wire import WireError, wire_type

MAX_BYTES = 8 * 1024


def parse_custom_fields(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise WireError("must be a JSON object")
    if depth(value) > MAX_DEPTH:
        raise WireError(f"must not nest objects and arrays more than {MAX_DEPTH} levels deep")
    return value


def check_size(fields: dict[str, Any]) -> None:
    size = len(dumps(fields))
    if size > MAX_BYTES:
        raise WireError(f"must not exceed {MAX_BYTES} bytes as JSON (it is {size} bytes)")


def merge(current: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    """The custom fields after `update` (spec 2.2 item 4); raises WireError when too large."""
    merged = dict(current)
    for key, value in update.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    check_size(merged)
    return merged


CustomFields = wire_type(
    dict[str, Any],
    parse_custom_fields,
    None,
    {
        "type": "object",
        "additionalProperties": True,
        "description": "At most 8 KB as JSON. On update a null value removes the key, other keys "
        "are added or replaced, absent keys are kept.",
    },
)
