"""DOW (spec 2.1): 7 characters, Monday to Sunday; each is the day's digit or `-`."""

from __future__ import annotations

from typing import Any

from comptoir.kit.wire import WireError, shown


def parse_dow(value: Any) -> str:
    if isinstance(value, str) and len(value) == 7 and all(c in (str(i + 1), "-") for i, c in enumerate(value)):
        return value
    raise WireError(f"{shown(value)} is not a valid DOW (7 characters, day digit or '-', e.g. \"12345--\")")
