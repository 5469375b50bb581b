"""docs/api/permissions.md, written from the routes' own declarations: each API route with
the permission its `auth.access.require(...)` declares, in words. The page is generated
(`uv run python scripts/permission_table.py`) and a test fails when it drifts from the code
(tests/unit/test_permission_table.py)."""

from __future__ import annotations

from collections.abc import Sequence

from fastapi.routing import APIRoute, iter_route_contexts
from starlette.routing import BaseRoute

from comptoir.auth.access import ANY, ANY_WRITE, PROFILE, TOKEN, KindByQuery, Need, PerLevel, Permission, WriteOn
from comptoir.http.routing import declared_permission

HEADER = """# Permissions

<!-- Generated from each route's `require(...)` by `uv run python scripts/permission_table.py`;
do not edit by hand (tests/unit/test_permission_table.py fails when it drifts). -->

What each route of the API needs, as the route declares it. The rules behind the words are in
[conventions](conventions.md#access): the token first (401), then the rate limit (429), then
the token's level and scope (403), then the rule on the catalog or customer list the path
names (401, 403). An id out of the connection's reach is a 404 as soon as the token's level
and scope allow the route, whether or not the rule on that catalog or list would refuse it.

- **Token**: the token levels the route serves; another level is a 403.
- **Scope**: what the token's scope must hold; `a` or `b` means either. `write` implies
  `read`.
- **Rate limit**: the limits the request counts in ([conventions](conventions.md#rate-limits)).
"""

_NEEDS = {
    ANY: "any permission at the token's level",
    ANY_WRITE: "any write permission at the token's level",
    PROFILE: "`profile` or `profile_with_email`",
    TOKEN: "a valid token, nothing more",
}


def _need(need: Need, allowed: tuple[str, ...] | None) -> str:
    if isinstance(need, PerLevel):
        if allowed is not None and len(allowed) == 1:
            return _need(need.at(allowed[0]), allowed)
        return f"location-level: {_need(need.location, allowed)}; account-level: {_need(need.account, allowed)}"
    return _NEEDS.get(need) or " or ".join(f"`{permission}`" for permission in need.split("|"))


def _write_on(on: WriteOn) -> str:
    """The rule alone: it is stricter than the route's need, which it implies."""
    noun, param = on.resource.replace("_", " "), f"`{{{on.param}}}`"
    words = (
        f"`{on.resource}.write` when {param} is the {noun} the connection is bound to, else `all_{on.resource}s.write`"
    )
    if on.change is not None:
        words += f"; a location-level token may not {on.change} an account-level {noun} (401)"
        if on.bound_change:
            words += f", unless it is bound to it with `{on.resource}.write`"
    return words


def _kind(permission: Permission) -> str:
    kind = permission.kind
    if isinstance(kind, KindByQuery):
        values = " or ".join(f"`{kind.param}={value}`" for value in kind.values)
        return f"{kind.otherwise}; {kind.kind} with {values}"
    return kind


def describe(permission: Permission) -> tuple[str, str, str]:
    """The token levels, the scope needed and the rate limit of `permission`, in words."""
    allowed = permission.allowed
    levels = "any" if allowed is None else ", ".join(allowed)
    scope = _need(permission.need, allowed) if permission.on is None else _write_on(permission.on)
    return levels, scope, _kind(permission)


def page(routes: Sequence[BaseRoute]) -> str:
    """The whole page for the API routes among `routes` (an application's): one table per
    OpenAPI tag, routes in declaration order, the methods of a path that declare the same
    permission on one line."""
    sections: dict[str, list[list[str]]] = {}
    for context in iter_route_contexts(routes):
        route, path = context.original_route, context.path
        if not isinstance(route, APIRoute) or path is None or not path.startswith("/v1/"):
            continue
        permission = declared_permission(route)
        if permission is None:
            continue
        tag = str(route.tags[0]) if route.tags else "Other"
        rows = sections.setdefault(tag, [])
        method = ", ".join(sorted(route.methods or ()))
        cells = [path, *describe(permission)]
        same = next((row for row in rows if row[1:] == cells), None)
        if same is not None:
            same[0] += f", {method}"
        else:
            rows.append([method, *cells])
    lines = [HEADER]
    for tag, rows in sections.items():
        lines += [f"## {tag}", "", "| Route | Token | Scope | Rate limit |", "|---|---|---|---|"]
        lines += [f"| `{method} {path}` | {levels} | {scope} | {kind} |" for method, path, levels, scope, kind in rows]
        lines.append("")
    return "\n".join(lines)
