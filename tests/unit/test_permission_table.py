"""docs/api/permissions.md states each API route's permission exactly as the route declares it
(`auth.access.require`, rendered by `comptoir.http.permission_table`), and every API route
declares one; every back-office page declares the person it serves (`web.render.Person`)."""

from __future__ import annotations

import importlib.util
import tempfile
from pathlib import Path
from types import ModuleType

from fastapi import FastAPI
from fastapi.routing import APIRoute, iter_route_contexts

from comptoir.app import create_app
from comptoir.config import Settings
from comptoir.http.routing import declared_permission
from comptoir.users import sessions
from comptoir.web import render

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("permission_table", ROOT / "scripts" / "permission_table.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _app() -> FastAPI:
    with tempfile.TemporaryDirectory() as directory:
        return create_app(
            Settings(database_url=f"sqlite:///{directory}/unused.db", secret_key="unused"), background=False
        )


def test_the_permissions_page_states_every_routes_declared_permission() -> None:
    script = _script()
    written = script.PAGE.read_text(encoding="utf-8")
    assert written == script.current_page(), (
        "docs/api/permissions.md differs from the routes' declarations: run `uv run python scripts/permission_table.py`"
    )


def test_every_api_route_but_health_readiness_and_the_reference_redirect_declares_its_permission() -> None:
    app = _app()
    undeclared = [
        context.path
        for context in iter_route_contexts(app.routes)
        if isinstance(context.original_route, APIRoute)
        and (context.path or "").startswith("/v1/")
        and declared_permission(context.original_route) is None
    ]
    # /v1/ready: no token (docs/operations.md "Health and readiness"); /v1/docs: a redirect to
    # /docs (http/reference.py)
    assert undeclared == ["/v1/health", "/v1/ready", "/v1/docs"]


def test_the_page_names_the_rules_beyond_one_scope() -> None:
    written = (ROOT / "docs" / "api" / "permissions.md").read_text(encoding="utf-8")
    assert (
        "| `DELETE /v1/customer_lists/{customer_list_id}` | location, account | `customer_list.write` when "
        "`{customer_list_id}` is the customer list the connection is bound to, else `all_customer_lists.write`; "
        "a location-level token may not delete an account-level customer list (401) | general |"
    ) in written
    assert (
        "| `GET /v1/catalogs/{catalog_id}/locations/{location_id}/inventory` | location, account | location-level: "
        "`inventory.read` or `catalog.read`; account-level: `inventory.read` | general |"
    ) in written
    assert (
        "| `GET /v1/catalogs/{catalog_id}` | location, account | `catalog.read` or `all_catalogs.read` | heavy; "
        "general with `hide_data=true` or `hide_data=1` |"
    ) in written


# Back-office pages anyone may open: the favicon, and the pages that sign a person in or out.
OPEN_PAGES = ["/favicon.ico", "/favicon.svg", "/login", "/login", "/logout", "/signup", "/signup"]


def test_every_back_office_page_but_sign_in_and_out_declares_a_signed_in_person() -> None:
    """docs/architecture.md "Permissions": a page states who it serves on its route, `you:
    Person`, as an API route states its token's permission; none finds its visitor itself."""
    app = _app()
    undeclared = []
    for context in iter_route_contexts(app.routes):
        route, path = context.original_route, context.path or ""
        if not isinstance(route, APIRoute) or render.is_api_path(path, "/metrics"):
            continue
        people = [dependency for dependency in route.dependant.dependencies if dependency.call is render.person]
        if len(people) != 1:
            undeclared.append(path)
    assert undeclared == OPEN_PAGES


def test_the_consent_page_declares_the_browser_it_serves() -> None:
    """The consent page, open to any browser (its login form when nobody is signed in), takes
    the browser's session and person from its route's declaration (`users.sessions.AnyBrowser`)."""
    app = _app()
    declared = [
        (context.path, sorted(context.original_route.methods))
        for context in iter_route_contexts(app.routes)
        if isinstance(context.original_route, APIRoute)
        and any(dependency.call is sessions.browser for dependency in context.original_route.dependant.dependencies)
    ]
    assert declared == [("/oauth2/v1/authorize", ["GET"]), ("/oauth2/v1/authorize", ["POST"])]
