"""Which route answers a request, found without walking every router (docs/performance.md
"Routing").

FastAPI's router tries its routes in order until one matches the whole request: every router
included in `app.py` (the API's eleven, the OAuth server's, the back office's nine) and, in
each, every route before the one that answers; each included router is walked twice (once to
find that it matches, once to find which of its routes does), with bookkeeping in the scope
around every route tried. A `GET /v1/location` tried seven routers before its own.

`RouteIndex` knows every route of the application, in the router's own order: the routes of an
included router one by one, anything else (a mount, a nested inclusion) as one. For a request
it tries only those whose templates can match its first two path segments (`/v1/location`,
`/v1/orders`, `/oauth2/v1`) and its number of segments (a parameter matches one whole
segment), so the first that matches in full is the one the router's whole walk chooses: a
route whose template starts otherwise, or is longer or shorter, cannot match the path
(tests/unit/test_dispatch.py checks every route and method against the walk). The chosen
route is handled as the router handles it (the scope it leaves is the same). A request none of
them matches in full (a 405, a redirect, the 404) goes through the router's whole walk, as
before.
"""

from __future__ import annotations

from typing import Any

from fastapi.routing import (
    _FASTAPI_EFFECTIVE_ROUTE_CONTEXT_KEY,
    _FASTAPI_INCLUDED_ROUTER_KEY,
    _FASTAPI_SCOPE_KEY,
    APIRoute,
    _IncludedRouter,
    _route_selected,
    _update_scope,
)
from starlette.routing import Match, Mount
from starlette.types import ASGIApp, Receive, Scope, Send

Key = tuple[str | None, str | None, int]
_ANY = "{"  # a template segment holding a parameter matches any one segment
_KEPT_KEYS = 4096  # paths with ids in their first two segments (back office pages) are many


def request_key(path: str) -> Key:
    """The first two segments of a path (None where the path has fewer), and how many it has."""
    parts = path.split("/")
    return (parts[1] if len(parts) > 1 else None, parts[2] if len(parts) > 2 else None, len(parts) - 1)


def template_key(template: str) -> Key | None:
    """A route template's `request_key`, `_ANY` for a segment holding a parameter (which
    matches one whole segment, never a `/`); None for a template with a `:path` parameter,
    which can match any number of segments."""
    if ":path}" in template:
        return None
    first, second, count = request_key(template)
    return (
        _ANY if first is not None and "{" in first else first,
        _ANY if second is not None and "{" in second else second,
        count,
    )


def _fits(template: Key, request: Key) -> bool:
    if template[2] != request[2]:
        return False
    for wanted, given in zip(template[:2], request[:2], strict=True):
        if wanted == _ANY:
            if not given:
                return False
        elif wanted != given:
            return False
    return True


class _Route:
    """A route of an included router, tried and handled as the router does."""

    __slots__ = ("context", "included", "keys", "route")

    def __init__(self, included: Any, context: Any) -> None:
        self.included, self.context, self.route = included, context, context.original_route
        key = template_key(str(context.path_format))
        self.keys = None if key is None else [key]

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child_scope = self.context.matches(scope)
        if match != Match.NONE:
            child_scope["route"] = self.route  # as APIRoute.matches
        return match, child_scope

    async def handle(self, scope: Scope, child_scope: Scope, receive: Receive, send: Send) -> None:
        # _IncludedRouter.handle, then its _handle_selected for an APIRoute
        fastapi_scope = scope.setdefault(_FASTAPI_SCOPE_KEY, {})
        fastapi_scope[_FASTAPI_INCLUDED_ROUTER_KEY] = self.included
        _update_scope(scope, child_scope)
        context = self.context
        _route_selected(scope=scope, path=getattr(context.starlette_route, "path_format", None) or context.path_format)
        fastapi_scope[_FASTAPI_EFFECTIVE_ROUTE_CONTEXT_KEY] = context
        scope["route"] = self.route
        await self.route.handle(scope, receive, send)


class _Whole:
    """A route of the router tried and handled as one (a mount, a router with inclusions)."""

    __slots__ = ("keys", "route")

    def __init__(self, route: Any) -> None:
        self.route = route
        self.keys: list[Key] | None = None
        if isinstance(route, Mount):
            return
        if isinstance(route, _IncludedRouter):
            keys = [template_key(str(context.path_format)) for context in route.effective_route_contexts()]
        else:
            template = getattr(route, "path_format", None)
            keys = [template_key(str(template))] if template else [None]
        if None not in keys:
            self.keys = [key for key in keys if key is not None]

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        result: tuple[Match, Scope] = self.route.matches(scope)
        return result

    async def handle(self, scope: Scope, child_scope: Scope, receive: Receive, send: Send) -> None:
        # as the router does with the route it chose (fastapi.routing.APIRouter.app)
        _update_scope(scope, child_scope)
        route = self.route
        _route_selected(scope=scope, path=getattr(route, "path_format", None), mount=isinstance(route, Mount))
        await route.handle(scope, receive, send)


def _entries(router: Any) -> list[_Route | _Whole]:
    entries: list[_Route | _Whole] = []
    for route in router.routes:
        if isinstance(route, _IncludedRouter) and _plain(route):
            entries.extend(_Route(route, context) for context in route.effective_candidates())
        else:
            entries.append(_Whole(route))
    return entries


def _plain(included: Any) -> bool:
    """An included router whose routes are all FastAPI's, with no limit of its own on bodies or
    forms: each of its routes can be tried and handled alone."""
    context = included.include_context
    return (
        context.max_body_size is None
        and not context.form_limits
        and all(
            not isinstance(candidate, _IncludedRouter) and isinstance(candidate.original_route, APIRoute)
            for candidate in included.effective_candidates()
        )
    )


class RouteIndex:
    """The router's walk over the routes that can match a request's first two segments;
    `fallback`, the router's own walk, for the rest."""

    def __init__(self, router: Any, fallback: ASGIApp) -> None:
        self.router = router
        self.fallback = fallback
        self._size = -1
        self._entries: list[_Route | _Whole] = []
        self._chosen: dict[Key, list[_Route | _Whole]] = {}

    def candidates(self, path: str) -> list[_Route | _Whole]:
        """The routes, in the router's order, whose templates can match `path`."""
        if self._size != len(self.router.routes):  # a route added since (tests do)
            self._entries, self._chosen = _entries(self.router), {}
            self._size = len(self.router.routes)
        key = request_key(path)
        chosen = self._chosen.get(key)
        if chosen is None:
            chosen = [e for e in self._entries if e.keys is None or any(_fits(k, key) for k in e.keys)]
            if len(self._chosen) < _KEPT_KEYS:
                self._chosen[key] = chosen
        return chosen

    def choose(self, scope: Scope) -> tuple[_Route | _Whole, Scope] | None:
        """The route that matches the request in full, first in the router's order, with the
        scope it adds; None when none does."""
        for entry in self.candidates(scope["path"]):
            match, child_scope = entry.matches(scope)
            if match == Match.FULL:
                return entry, child_scope
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        chosen = self.choose(scope) if scope["type"] == "http" else None
        if chosen is None:
            await self.fallback(scope, receive, send)
            return
        if "router" not in scope:
            scope["router"] = self.router
        entry, child_scope = chosen
        await entry.handle(scope, child_scope, receive, send)


def index_routes(app: Any) -> None:
    """Route `app`'s requests through a `RouteIndex` (once every router is included). A router
    that limits bodies or forms itself keeps its own walk: the index would pass by the limit."""
    router = app.router
    if getattr(router, "form_limits", None) or router.middleware_stack != router.app:
        return
    router.middleware_stack = RouteIndex(router, router.middleware_stack)
