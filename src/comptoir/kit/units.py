"""Weight and Volume (spec 2.1): a positive number, a space, a unit."""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from comptoir.kit.wire import WireError, shown, wire_type

_QUANTITY = r"(\d{1,12}(?:\.\d{1,6})?) "


def _unit_parser(units: tuple[str, ...], what: str, example: str) -> Callable[[Any], str]:
    pattern = re.compile(_QUANTITY + "(" + "|".join(units) + ")", re.ASCII)

    def parse(value: Any) -> str:
        match = pattern.fullmatch(value) if isinstance(value, str) else None
        if match is None or Decimal(match.group(1)) <= 0:
            raise WireError(
                f"{shown(value)} is not a valid {what} (a positive number, a space and one of "
                f'{", ".join(units)}, e.g. "{example}")'
            )
        return value

    return parse


parse_weight = _unit_parser(("mg", "g", "kg"), "weight", "250 g")
parse_volume = _unit_parser(("ml", "cl", "l"), "volume", "33 cl")

Weight = wire_type(
    str, parse_weight, None, {"type": "string", "pattern": r"^\d+(\.\d+)? (mg|g|kg)$", "examples": ["250 g"]}
)
Volume = wire_type(
    str, parse_volume, None, {"type": "string", "pattern": r"^\d+(\.\d+)? (ml|cl|l)$", "examples": ["33 cl"]}
)
