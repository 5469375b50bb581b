"""The field readers of a catalog's bodies: a catalog upload (`catalogs.content`) and an
inventory's entries (`catalogs.inventory`), the two shapes read by hand rather than by a
pydantic model (docs/architecture.md "Request bodies"). Each reads one field of an object,
collecting an error at the field's path in the request's one `errors.FieldErrors` instead
of raising, and answers what it read.

Hot path: a realistic upload has 10,000 products, so each field is looked at once and a
price or a decimal already read is not parsed again.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from comptoir.errors import FieldErrors
from comptoir.kit.decimals import parse_decimal, render_decimal
from comptoir.kit.money import parse_money, render_money
from comptoir.kit.text import too_long
from comptoir.kit.wire import WireError, shown

NAME_MAX, TEXT_MAX = 255, 10_000
ZERO = Decimal(0)
_WIDE = decimal.Context(prec=1000)  # the default context fails to quantize past 28 digits


class FieldReader:
    """Reads fields of request objects, collecting errors at their paths in `errors`. A field
    sent as null is read as absent (docs/api/conventions.md "Null fields"): an optional one
    gets its default, a required one is an error naming it. `currency`: the account's, which
    every price must be in (a shape without prices gives none)."""

    def __init__(self, errors: FieldErrors | None = None, *, currency: str = "") -> None:
        self.currency = currency
        # the first errors, in order, and a count of the others (docs/api/conventions.md "Errors")
        self.errors = errors if errors is not None else FieldErrors()
        # Text already checked, by its value: how a price or a decimal reads back.
        self.read_back: dict[Any, str] = {}

    def add(self, path: str, message: str) -> None:
        self.errors.add(path, message)

    def obj(self, path: str, value: Any) -> dict[str, Any] | None:
        if isinstance(value, dict):
            return value
        self.add(path, f"must be an object, not {shown(value)}")
        return None

    def nested(self, obj: dict[str, Any], path: str, key: str) -> tuple[dict[str, Any] | None, str]:
        """An optional object field and its path (None when absent or not an object)."""
        value = obj.get(key)
        path = f"{path}.{key}"
        return (None if value is None else self.obj(path, value)), path

    def array(self, path: str, value: Any) -> list[Any]:
        if value is None:
            return []
        if isinstance(value, list):
            return value
        self.add(path, f"must be an array, not {shown(value)}")
        return []

    def text(
        self, obj: dict[str, Any], path: str, key: str, *, required: bool = False, limit: int = NAME_MAX
    ) -> str | None:
        value = obj.get(key)
        if value is None:
            if required:
                self.add(f"{path}.{key}", "is required")
            return None
        if not isinstance(value, str):
            self.add(f"{path}.{key}", f"must be a string, not {shown(value)}")
            return None
        if required and not value.strip():
            self.add(f"{path}.{key}", "must not be empty")
        elif len(value) > limit:
            self.add(f"{path}.{key}", too_long(value, limit) or "")
        return value

    def required_array(self, obj: dict[str, Any], path: str, key: str, what: str) -> list[Any]:
        """An array that must hold at least one `what`."""
        value = obj.get(key)
        if value is None or value == []:
            self.add(f"{path}.{key}", f"must hold at least one {what}")
        return self.array(f"{path}.{key}", value)

    def strings(self, obj: dict[str, Any], path: str, key: str) -> list[str]:
        value = obj.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            self.add(f"{path}.{key}", f"must be an array of strings, not {shown(value)}")
            return []
        for i, item in enumerate(value):
            if not isinstance(item, str):
                self.add(f"{path}.{key}[{i}]", f"must be a string, not {shown(item)}")
            elif len(item) > NAME_MAX:
                self.add(f"{path}.{key}[{i}]", too_long(item, NAME_MAX) or "")
        return value

    def parsed(
        self, obj: dict[str, Any], path: str, key: str, parse: Callable[[Any], Any], required: bool = False
    ) -> Any:
        value = obj.get(key)
        if value is None:
            if required:
                self.add(f"{path}.{key}", "is required")
            return None
        try:
            return parse(value)
        except WireError as exc:
            self.add(f"{path}.{key}", str(exc))
            return None

    def money(self, obj: dict[str, Any], path: str, key: str, *, required: bool = False) -> str | None:
        value = obj.get(key)
        known = self.read_back.get(value) if type(value) is str else None  # a catalog repeats its prices
        if known is not None:
            return known
        money = self.parsed(obj, path, key, parse_money, required)
        if money is None:
            return None
        if money.currency != self.currency:
            self.add(f"{path}.{key}", f"must be in the account's currency, {self.currency} (not {money.currency})")
            return render_money(money)
        rendered = self.read_back[value] = render_money(money)
        return rendered

    def amount(
        self,
        obj: dict[str, Any],
        path: str,
        key: str,
        *,
        low: Decimal = ZERO,
        places: int | None = None,
        required: bool = False,
    ) -> Decimal | None:
        """A decimal of at least `low` (0 unless said) with at most `places` decimals (any
        unless said); None when absent or not a decimal. A value breaking a bound is
        answered all the same, with its error."""
        parsed = self.parsed(obj, path, key, parse_decimal, required)
        if parsed is None:
            return None
        if parsed < low:
            self.add(f"{path}.{key}", f"must be at least {low}")
        elif places is not None and parsed != parsed.quantize(Decimal(1).scaleb(-places), context=_WIDE):
            self.add(f"{path}.{key}", f"must have at most {places} decimals")
        return parsed

    def decimal(self, obj: dict[str, Any], path: str, key: str, *, low: Decimal = ZERO) -> str | None:
        """An `amount` of at least `low`, as it reads back (the decimals rule)."""
        value = obj.get(key)
        known = self.read_back.get(("decimal", value)) if type(value) is str else None
        if known is not None:
            return known
        parsed = self.amount(obj, path, key, low=low)
        if parsed is None:
            return None
        rendered = render_decimal(parsed)
        if type(value) is str and low == ZERO and parsed >= low:
            self.read_back[("decimal", value)] = rendered
        return rendered

    def integer(self, obj: dict[str, Any], path: str, key: str, *, low: int = 0) -> int | None:
        value = obj.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < low or value > 2**31 - 1:
            self.add(f"{path}.{key}", f"must be an integer of at least {low}, not {shown(value)}")
            return None
        return value

    def boolean(self, obj: dict[str, Any], path: str, key: str, default: bool) -> bool:
        value = obj.get(key)
        if value is None:
            return default
        if not isinstance(value, bool):
            self.add(f"{path}.{key}", f"must be true or false, not {shown(value)}")
            return default
        return value

    def choice(self, obj: dict[str, Any], path: str, key: str, choices: tuple[str, ...], required: bool) -> str | None:
        value = obj.get(key)
        if value is None:
            if required:
                self.add(f"{path}.{key}", f"is required (one of {', '.join(choices)})")
            return None
        if value not in choices:
            self.add(f"{path}.{key}", f"must be one of {', '.join(choices)}, not {shown(value)}")
            return None
        return value
