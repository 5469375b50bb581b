"""CustomFields (spec 2.2): a JSON object of at most 8 KB as JSON.

Updates merge (spec 2.2 item 4): a null value removes its key, a new key is added, an
existing key is replaced; keys absent from the update are kept.
"""

from __future__ import annotations

from typing import Any

from comptoir.kit.freeform import bounded_object, check_json_size
from comptoir.kit.text import NO_NUL
from comptoir.kit.wire import wire_type

MAX_BYTES = 8 * 1024


def parse_custom_fields(value: Any) -> dict[str, Any]:
    return bounded_object(value)


def check_size(fields: dict[str, Any]) -> None:
    check_json_size(fields, MAX_BYTES)


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
        "propertyNames": {"pattern": NO_NUL},
        "description": "At most 8 KB as JSON. On update a null value removes the key, other keys "
        "are added or replaced, absent keys are kept.",
    },
)
