"""Filter patterns with `*` wildcards (spec 4.5: customer `email` and `phone` filters).

`john*` (a trailing wildcard) becomes an index range, `col >= 'john' AND col < 'joho'`,
exact for byte-wise comparison (the column is `models.base.search_text`): it costs the same
among a million rows as among ten. A pattern without `*` is an equality; any other use of
`*` (leading or inside) becomes LIKE, which may scan (docs/api/customers.md "Filters").
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_
from sqlalchemy.sql.elements import ColumnElement

WILDCARD = "*"
MAX_PATTERN = 255


def _successor(prefix: str) -> str | None:
    """The smallest string greater than every string starting with `prefix`, or None."""
    chars = list(prefix)
    while chars:
        code = ord(chars[-1]) + 1
        if 0xD800 <= code <= 0xDFFF:  # surrogates are not characters
            code = 0xE000
        if code <= 0x10FFFF:
            chars[-1] = chr(code)
            return "".join(chars)
        chars.pop()
    return None


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def is_range(pattern: str) -> bool:
    """Whether `pattern` is an equality or a trailing-wildcard range (index-backed)."""
    return WILDCARD not in pattern.rstrip(WILDCARD) and pattern.rstrip(WILDCARD) != ""


def matches(column: Any, pattern: str) -> ColumnElement[bool]:
    """A condition on `column` for `pattern` (see the module docstring)."""
    if WILDCARD not in pattern:
        return column == pattern
    prefix = pattern.rstrip(WILDCARD)
    if WILDCARD not in prefix:
        if not prefix:
            return column.is_not(None)
        upper = _successor(prefix)
        return column >= prefix if upper is None else and_(column >= prefix, column < upper)
    like = "%".join(_like_escape(part) for part in pattern.split(WILDCARD))
    return column.like(like, escape="\\")
