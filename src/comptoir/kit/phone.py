"""Phone (spec 2.1, 9.3): E.164 is required for new implementations.

A value starting with `+` must have E.164 syntax (`+`, a country code, at most 15 digits;
spaces, dots and dashes are dropped) and a length possible for that country; whether the
range is allocated is not checked, so reserved fiction ranges (`+447700900123`) and
documented examples (`+44123456789`) are accepted. It is stored without its separators.
Other formats are deprecated and stored as given.

On an order (its guest customer) a phone never makes the request fail: one that breaks the
rule above is stored as given (`OrderPhone`).
"""

from __future__ import annotations

import re
from typing import Any

import phonenumbers

from comptoir.kit.wire import WireError, shown, wire_type

_E164 = re.compile(r"\+[1-9][0-9]{1,14}")
_SEPARATORS = str.maketrans("", "", " .-")
MAX_PHONE = 64  # the column's width


def e164(value: str) -> str | None:
    """`value` (starting with `+`) without its spaces, dots and dashes, when that is an
    E.164 number of a length possible for its country code; else None."""
    compact = value.translate(_SEPARATORS)
    if not _E164.fullmatch(compact):
        return None
    try:
        number = phonenumbers.parse(compact, None)
    except phonenumbers.NumberParseException:  # no such country code
        return None
    # IS_POSSIBLE only: IS_POSSIBLE_LOCAL_ONLY lacks the area code an international number has
    if phonenumbers.is_possible_number_with_reason(number) != phonenumbers.ValidationResult.IS_POSSIBLE:
        return None
    return compact


def parse_phone(value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_PHONE:
        raise WireError(f"{shown(value)} is not a valid phone number")
    if value.startswith("+"):
        number = e164(value)
        if number is None:
            raise WireError(f'{shown(value)} is not a valid E.164 phone number (e.g. "+33612345678")')
        return number
    return value


def parse_order_phone(value: Any) -> str:
    """An order's phone: normalised like `parse_phone` when it follows the rule, else as given."""
    if not isinstance(value, str):
        raise WireError(f"{shown(value)} is not a valid phone number")
    if value.startswith("+"):
        return e164(value) or value
    return value


def phone_pattern(pattern: str | None) -> str | None:
    """A `phone=` filter as phones are stored: a `+` pattern without spaces, dots and dashes."""
    return pattern.translate(_SEPARATORS) if pattern and pattern.startswith("+") else pattern


_SCHEMA = {"type": "string", "description": "E.164 (other formats are deprecated)", "examples": ["+33612345678"]}


def _e164_pattern() -> str:
    """`+`, a country code and a national number of a length between the shortest and the
    longest its country allows (the libphonenumber metadata `e164` reads)."""
    lengths: dict[int, set[int]] = {}
    for region in phonenumbers.SUPPORTED_REGIONS:
        metadata = phonenumbers.PhoneMetadata.metadata_for_region(region)
        if metadata is not None and metadata.general_desc is not None and metadata.country_code is not None:
            lengths.setdefault(metadata.country_code, set()).update(metadata.general_desc.possible_length)
    for code in phonenumbers.COUNTRY_CODES_FOR_NON_GEO_REGIONS:
        metadata = phonenumbers.PhoneMetadata.metadata_for_nongeo_region(code)
        if metadata is not None and metadata.general_desc is not None:
            lengths.setdefault(code, set()).update(metadata.general_desc.possible_length)
    spans = (f"{code}[0-9]{{{min(found)},{max(found)}}}" for code, found in sorted(lengths.items()) if found)
    return "\\+(" + "|".join(spans) + ")"


# The texts `parse_phone` takes: E.164 (a length the country allows; separators are dropped,
# the document names the compact form), or another format that starts with neither `+` nor a space.
Phone = wire_type(
    str,
    parse_phone,
    None,
    {**_SCHEMA, "maxLength": MAX_PHONE, "pattern": f"^({_e164_pattern()}|[^+\\s\\u0000][^\\u0000]*)$"},
)
OrderPhone = wire_type(
    str,
    parse_order_phone,
    None,
    {**_SCHEMA, "description": "E.164 (other formats are deprecated); never refused on an order"},
)
