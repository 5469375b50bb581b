"""Private refs (spec 2.2 item 7): at most 255 characters, visible only to the client that
set them. Storage and filtering live in `comptoir.core.private_refs`."""

from __future__ import annotations

from typing import Any

from comptoir.kit.text import NO_NUL, too_long
from comptoir.kit.wire import WireError, shown, wire_type

MAX_LENGTH = 255


def parse_private_ref(value: Any) -> str:
    if not isinstance(value, str):
        raise WireError(f"{shown(value)} is not a valid private ref (a string)")
    if problem := too_long(value, MAX_LENGTH):
        raise WireError(problem)
    return value


PRIVATE_REF_SCHEMA = {"type": "string", "maxLength": MAX_LENGTH, "pattern": NO_NUL}
PrivateRef = wire_type(str, parse_private_ref, None, PRIVATE_REF_SCHEMA)
