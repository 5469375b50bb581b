"""The scope grammar of spec 5.1."""

from __future__ import annotations

import pytest

from comptoir.auth.scopes import ScopeError, binding_reachable, parse_scope


@pytest.mark.parametrize(
    ("text", "level", "permissions", "general"),
    [
        ("profile", None, (), ("profile",)),
        ("profile_with_email", None, (), ("profile_with_email",)),
        ("profile,profile_with_email", None, (), ("profile", "profile_with_email")),
        ("location[orders.read]", "location", ("orders.read",), ()),
        ("account[orders.write,all_catalogs.read]", "account", ("orders.write", "all_catalogs.read"), ()),
        (
            "location[orders.write,catalog.write,customer_list.write,inventory.write],profile_with_email",
            "location",
            ("orders.write", "catalog.write", "customer_list.write", "inventory.write"),
            ("profile_with_email",),
        ),
        ("profile,location[orders.read]", "location", ("orders.read",), ("profile",)),
        ("location[ orders.read , catalog.read ]", "location", ("orders.read", "catalog.read"), ()),
        ("location[orders.read,orders.read]", "location", ("orders.read",), ()),
    ],
)
def test_valid_scopes(text: str, level: str | None, permissions: tuple[str, ...], general: tuple[str, ...]) -> None:
    scope = parse_scope(text)
    assert (scope.level, scope.permissions, scope.general) == (level, permissions, general)
    assert parse_scope(str(scope)) == scope


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "scope is empty"),
        ("   ", "scope is empty"),
        ("location", "unknown scope element 'location'"),
        ("location[]", "location[] lists no permission"),
        ("location[orders.delete]", "unknown permission 'orders.delete'"),
        ("location[order.read]", "unknown permission 'order.read'"),
        ("location[orders]", "unknown permission 'orders'"),
        ("shop[orders.read]", "unknown scope element 'shop[orders.read]'"),
        ("location[orders.read],account[orders.read]", "at most one access-level set"),
        ("location[orders.read", "unbalanced '['"),
        ("location[orders.read]]", "unbalanced ']'"),
        ("location[[orders.read]]", "nested '['"),
        ("profile,", "empty element"),
        ("admin", "unknown scope element 'admin'"),
    ],
)
def test_invalid_scopes_say_why(text: str, message: str) -> None:
    with pytest.raises(ScopeError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_scope(text)


def test_write_implies_read() -> None:
    scope = parse_scope("location[orders.write,catalog.read]")
    assert scope.allows("orders", "read")
    assert scope.allows("orders", "write")
    assert scope.allows("catalog", "read")
    assert not scope.allows("catalog", "write")
    assert not scope.allows("inventory", "read")
    assert scope.has_any_write
    assert scope.has_any_permission
    assert not parse_scope("location[catalog.read]").has_any_write
    assert not parse_scope("profile").has_any_permission


@pytest.mark.parametrize(
    ("level", "row_account", "row_location", "expected"),
    [
        ("location", 1, 10, True),  # the location's own
        ("location", 1, None, True),  # its account's
        ("location", 1, 11, False),  # a sibling location's
        ("location", 2, None, False),  # another account's
        ("account", 1, 11, True),  # any location of the account
        ("account", 1, None, True),
        ("account", 2, None, False),
        (None, 1, None, False),  # a profile-only connection reaches none
    ],
)
def test_a_binding_is_reachable_within_the_connections_level(
    level: str | None, row_account: int, row_location: int | None, expected: bool
) -> None:
    assert binding_reachable(level, 1, 10 if level == "location" else None, row_account, row_location) is expected
