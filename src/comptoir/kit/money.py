"""Money (spec 2.1): a non-negative amount with 2 decimal digits, a space, an ISO 4217 code.

docs/api/conventions.md "Wire formats": requests may omit the decimals ("10 EUR"); responses always show two
("10.00 EUR"). Amounts are `Decimal`, never float.
"""

from __future__ import annotations

import decimal
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from comptoir.kit.codes import parse_currency
from comptoir.kit.wire import WireError, shown, wire_type

_MONEY = re.compile(r"(\d{1,15})(\.\d{1,2})? ([A-Z]{3})", re.ASCII)
_CENT = Decimal("0.01")
_WIDE = decimal.Context(prec=1000)  # quantize in the default context fails beyond 28 digits


@dataclass(frozen=True, slots=True)
class Money:
    amount: Decimal
    currency: str

    def __str__(self) -> str:
        return render_money(self)

    def __add__(self, other: Money) -> Money:
        if other.currency != self.currency:
            raise ValueError("cannot add amounts of different currencies")
        return Money(self.amount + other.amount, self.currency)


def parse_money(value: Any) -> Money:
    if isinstance(value, Money):
        return value
    match = _MONEY.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise WireError(f'{shown(value)} is not a valid monetary amount (expected e.g. "12.50 EUR")')
    try:
        currency = parse_currency(match.group(3))
    except WireError:
        raise WireError(f"{shown(value)} does not name an ISO 4217 currency") from None
    return Money(Decimal(match.group(1) + (match.group(2) or "")).quantize(_CENT), currency)


def render_money(money: Money) -> str:
    return money_text(money.amount, money.currency)


def money_text(amount: Decimal, currency: str) -> str:
    """`render_money` of an amount and currency, without making a Money of them."""
    return f"{amount.quantize(_CENT, context=_WIDE)} {currency}"


MoneyStr = wire_type(
    Money,
    parse_money,
    render_money,
    {
        "type": "string",
        "pattern": "^[0-9]{1,15}(\\.[0-9]{1,2})? [A-Z]{3}$",
        "description": "Amount, a space and an ISO 4217 currency; read back with 2 decimals.",
        "examples": ["12.50 EUR"],
    },
    memo=True,
)
