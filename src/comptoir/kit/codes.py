"""Codes of spec 2.1: Country (ISO 3166-1 alpha-2), currency (ISO 4217), ServiceType."""

from __future__ import annotations

import enum
import re
from functools import lru_cache
from typing import Any

import pycountry

from comptoir.kit.wire import WireError, shown, wire_type

_TWO = re.compile(r"[A-Z]{2}")
_THREE = re.compile(r"[A-Z]{3}")


class ServiceType(enum.StrEnum):
    delivery = "delivery"
    collection = "collection"
    eat_in = "eat_in"


@lru_cache(maxsize=512)
def _is_country(code: str) -> bool:
    return pycountry.countries.get(alpha_2=code) is not None


@lru_cache(maxsize=512)
def _is_currency(code: str) -> bool:
    return pycountry.currencies.get(alpha_3=code) is not None


@lru_cache(maxsize=1)
def countries() -> list[tuple[str, str]]:
    """(code, name) of every country, by name (the pages' selects)."""
    return sorted(((c.alpha_2, c.name) for c in pycountry.countries), key=lambda pair: pair[1])


@lru_cache(maxsize=1)
def currencies() -> list[str]:
    """Every ISO 4217 code, sorted (the pages' selects)."""
    return sorted(c.alpha_3 for c in pycountry.currencies)


def parse_country(value: Any) -> str:
    if not isinstance(value, str) or not _TWO.fullmatch(value) or not _is_country(value):
        raise WireError(f'{shown(value)} is not an ISO 3166-1 alpha-2 country code (e.g. "FR")')
    return value


def parse_currency(value: Any) -> str:
    if not isinstance(value, str) or not _THREE.fullmatch(value) or not _is_currency(value):
        raise WireError(f'{shown(value)} is not an ISO 4217 currency code (e.g. "EUR")')
    return value


Country = wire_type(
    str,
    parse_country,
    None,
    {
        "type": "string",
        "enum": sorted(c.alpha_2 for c in pycountry.countries),
        "description": "ISO 3166-1 alpha-2 code",
        "examples": ["FR"],
    },
    memo=True,
)
Currency = wire_type(
    str,
    parse_currency,
    None,
    {
        "type": "string",
        "enum": sorted(c.alpha_3 for c in pycountry.currencies),
        "description": "ISO 4217 code",
        "examples": ["EUR"],
    },
    memo=True,
)


_EURO = "AD AT BE CY DE EE ES FI FR GR HR IE IT LT LU LV MC ME MT NL PT SI SK SM VA XK".split()  # noqa: SIM905
_CURRENCY_OF = dict.fromkeys(_EURO, "EUR") | {
    "GB": "GBP", "US": "USD", "CH": "CHF", "LI": "CHF", "CA": "CAD", "AU": "AUD", "NZ": "NZD", "JP": "JPY",
    "SE": "SEK", "NO": "NOK", "DK": "DKK", "PL": "PLN", "CZ": "CZK", "HU": "HUF", "RO": "RON", "BG": "BGN",
    "IS": "ISK", "TR": "TRY", "MA": "MAD", "TN": "TND", "DZ": "DZD", "ZA": "ZAR", "BR": "BRL", "MX": "MXN",
    "AR": "ARS", "CL": "CLP", "CO": "COP", "IN": "INR", "CN": "CNY", "HK": "HKD", "SG": "SGD", "KR": "KRW",
    "AE": "AED", "SA": "SAR", "IL": "ILS", "UA": "UAH", "RS": "RSD", "TH": "THB", "MY": "MYR", "ID": "IDR",
}  # fmt: skip


def currency_of(country: str) -> str | None:
    """The usual currency of a country, for the signup form's default (None: ask)."""
    return _CURRENCY_OF.get(country)
