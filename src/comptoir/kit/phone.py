"""Phone (spec 2.1, 9.3): E.164 is required for new implementations.

decisions.md "Customers and loyalty": a value starting with `+` must be a valid E.164 number
(checked with `phonenumbers`); other formats are deprecated and stored as given.
"""

from __future__ import annotations

import re
from typing import Any

import phonenumbers

from comptoir.kit.wire import WireError, shown, wire_type

_E164 = re.compile(r"\+[1-9]\d{1,14}")


def parse_phone(value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 64:
        raise WireError(f"{shown(value)} is not a valid phone number")
    if value.startswith("+"):
        valid = False
        if _E164.fullmatch(value):
            try:
                valid = phonenumbers.is_valid_number(phonenumbers.parse(value, None))
            except phonenumbers.NumberParseException:
                valid = False
        if not valid:
            raise WireError(f'{shown(value)} is not a valid E.164 phone number (e.g. "+33612345678")')
    return value


Phone = wire_type(
    str,
    parse_phone,
    None,
    {"type": "string", "description": "E.164 (other formats are deprecated)", "examples": ["+33612345678"]},
)
