"""The scope grammar of spec 5.1.

    scope       = part *("," part)                 ; at least one part
    part        = level-set / "profile" / "profile_with_email"
    level-set   = ("location" / "account") "[" permission *("," permission) "]"
    permission  = resource "." right
    resource    = "orders" / "customer_list" / "catalog" / "inventory"
                / "all_customer_lists" / "all_catalogs"
    right       = "read" / "write"

At most one level set. A write permission implies the read one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from comptoir.core import levels

RESOURCES = ("orders", "customer_list", "catalog", "inventory", "all_customer_lists", "all_catalogs")
RIGHTS = ("read", "write")
LEVELS = ("location", "account")
GENERAL = ("profile", "profile_with_email")

_LEVEL_SET = re.compile(r"(location|account)\[(.*)\]", re.DOTALL)


class ScopeError(ValueError):
    """An invalid scope; the message says what is wrong, for integrators."""


@dataclass(frozen=True, slots=True)
class Scope:
    level: str | None
    permissions: tuple[str, ...]  # "orders.write", ... in the order given, without repeats
    general: tuple[str, ...]  # "profile", "profile_with_email"

    def allows(self, resource: str, right: str = "read") -> bool:
        """Whether the scope grants `right` on `resource` (write implies read)."""
        if f"{resource}.write" in self.permissions:
            return True
        return right == "read" and f"{resource}.read" in self.permissions

    @property
    def has_any_permission(self) -> bool:
        return bool(self.permissions)

    @property
    def has_any_write(self) -> bool:
        return any(p.endswith(".write") for p in self.permissions)

    @property
    def profile(self) -> bool:
        return bool(self.general)

    @property
    def profile_with_email(self) -> bool:
        return "profile_with_email" in self.general

    def __str__(self) -> str:
        parts = [f"{self.level}[{','.join(self.permissions)}]"] if self.level else []
        return ",".join([*parts, *self.general])


def binding_reachable(
    level: str | None, account_id: int | None, location_id: int | None, row_account_id: int, row_location_id: int | None
) -> bool:
    """spec 5.1: whether a catalog or customer list (of `row_account_id`, at location
    `row_location_id` or account level) is within a connection's level: of the location or its
    account for a location-level connection, of the account or any of its locations for an
    account-level one."""
    if level == "location":
        return account_id is not None and levels.holds(account_id, location_id, row_account_id, row_location_id)
    return level == "account" and row_account_id == account_id  # any of the account's rows


def reaches_binding(
    scope: Scope,
    resource: str,
    right: str,
    *,
    bound: bool,
    level: str | None,
    account_id: int | None,
    location_id: int | None,
    row_account_id: int,
    row_location_id: int | None,
) -> bool:
    """spec 5.1: `catalog` (or `customer_list`) reaches the one bound to the connection,
    `all_catalogs` (or `all_customer_lists`) every one within its level; write implies read."""
    if not binding_reachable(level, account_id, location_id, row_account_id, row_location_id):
        return False
    return (bound and scope.allows(resource, right)) or scope.allows(f"all_{resource}s", right)


def _split_top_level(text: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "[":
            depth += 1
            if depth > 1:
                raise ScopeError("nested '[' in scope")
        elif char == "]":
            depth -= 1
            if depth < 0:
                raise ScopeError("unbalanced ']' in scope")
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    if depth != 0:
        raise ScopeError("unbalanced '[' in scope")
    parts.append("".join(current))
    return parts


CACHED_LENGTH = 256  # longer than any scope written without padding


def parse_scope(text: str) -> Scope:
    """Parse and validate a scope string (spec 5.1); raises ScopeError with a clear message.

    Scopes read back from connections repeat and are remembered. What a stranger sends to
    /oauth2/v1/authorize is too: a long text (spaces between the parts are allowed) is parsed
    each time, so the memory that remembering takes stays bounded."""
    if isinstance(text, str) and len(text) <= CACHED_LENGTH:
        return _parse_cached(text)
    return _parse(text)


@lru_cache(maxsize=4096)
def _parse_cached(text: str) -> Scope:
    return _parse(text)


def _parse(text: str) -> Scope:
    if not isinstance(text, str) or not text.strip():
        raise ScopeError("scope is empty: give an access-level set such as location[orders.read], or profile")
    level: str | None = None
    permissions: list[str] = []
    general: list[str] = []
    for raw in _split_top_level(text):
        part = raw.strip()
        if not part:
            raise ScopeError(f"empty element in scope {text!r}")
        if part in GENERAL:
            if part not in general:
                general.append(part)
            continue
        match = _LEVEL_SET.fullmatch(part)
        if match is None:
            raise ScopeError(
                f"unknown scope element {part!r}: expected location[...], account[...], profile or profile_with_email"
            )
        if level is not None:
            raise ScopeError("a scope holds at most one access-level set (location[...] or account[...])")
        level = match.group(1)
        items = [item.strip() for item in match.group(2).split(",")]
        if items == [""]:
            raise ScopeError(f"{level}[] lists no permission")
        for item in items:
            resource, dot, right = item.partition(".")
            if not dot or resource not in RESOURCES or right not in RIGHTS:
                raise ScopeError(
                    f"unknown permission {item!r}: expected resource.right with resource one of "
                    f"{', '.join(RESOURCES)} and right read or write"
                )
            if item not in permissions:
                permissions.append(item)
    return Scope(level=level, permissions=tuple(permissions), general=tuple(general))
