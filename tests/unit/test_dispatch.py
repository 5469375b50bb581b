"""The route index (http/dispatch.py) chooses, for every route of the application and every
method, the route FastAPI's whole walk chooses."""

from __future__ import annotations

import re
import tempfile
from typing import Any

import pytest
from fastapi.routing import _IncludedRouter, iter_route_contexts
from starlette.routing import Match

from comptoir.app import create_app
from comptoir.config import Settings
from comptoir.http.dispatch import RouteIndex, request_key, template_key

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


@pytest.fixture(scope="module")
def app() -> Any:
    with tempfile.TemporaryDirectory() as directory:
        return create_app(
            Settings(database_url=f"sqlite:///{directory}/unused.db", secret_key="unused"), background=False
        )


def _scope(method: str, path: str) -> dict[str, Any]:
    return {"type": "http", "method": method, "path": path, "root_path": "", "headers": [], "query_string": b""}


def _walk(app: Any, method: str, path: str) -> Any:
    """The route FastAPI's router chooses: the first of its routes matching in full and, in
    an included router, the first of that router's routes matching in full."""
    scope = _scope(method, path)
    for route in app.router.routes:
        match, _ = route.matches(scope)
        if match == Match.FULL:
            if isinstance(route, _IncludedRouter):
                _, _, chosen, _ = route._match(scope)
                return chosen
            return route
    return None


def _chosen(index: RouteIndex, method: str, path: str) -> Any:
    chosen = index.choose(_scope(method, path))
    return None if chosen is None else chosen[0].route


def _paths(app: Any) -> list[str]:
    """A path of each route (its parameters filled), and paths no route has."""
    paths = [re.sub(r"\{[^}]*\}", "x1", context.path_format) for context in iter_route_contexts(app.routes)]
    return [*paths, "/", "/v1", "/v1/nothing", "/v1/orders/x1/nothing", "/nothing/at/all", "/v1/location/orders/"]


def test_the_index_is_installed(app: Any) -> None:
    assert isinstance(app.router.middleware_stack, RouteIndex)


def test_every_route_and_method_is_chosen_as_the_whole_walk_chooses(app: Any) -> None:
    index: RouteIndex = app.router.middleware_stack
    chosen = 0
    for path in _paths(app):
        for method in METHODS:
            expected = _walk(app, method, path)
            assert _chosen(index, method, path) is expected, (method, path)
            chosen += expected is not None
    assert chosen > 150  # every API, OAuth and back-office route was tried


def test_the_api_routes_are_tried_one_by_one_and_only_those_of_their_path(app: Any) -> None:
    index: RouteIndex = app.router.middleware_stack
    candidates = index.candidates("/v1/location")
    assert {getattr(entry.route, "path", None) for entry in candidates} >= {"/location"}
    assert len(candidates) == 3  # its GET, PATCH and PUT
    assert _chosen(index, "GET", "/v1/location").name == "get_own_location"


@pytest.mark.parametrize(
    ("path", "key"),
    [
        ("/", ("", None, 1)),
        ("/v1", ("v1", None, 1)),
        ("/v1/location", ("v1", "location", 2)),
        ("/v1/a/b/c", ("v1", "a", 4)),
        ("/v1/a/", ("v1", "a", 3)),
    ],
)
def test_a_requests_key_is_its_first_two_segments_and_their_count(path: str, key: tuple[Any, ...]) -> None:
    assert request_key(path) == key


@pytest.mark.parametrize(
    ("template", "key"),
    [
        ("/v1/orders/{order_id}", ("v1", "orders", 3)),
        ("/locations/{location_id}", ("locations", "{", 2)),
        ("/{anything}", ("{", None, 1)),
        ("/files/{rest:path}", None),
    ],
)
def test_a_templates_key_marks_parameters_and_gives_up_on_paths(template: str, key: tuple[Any, ...] | None) -> None:
    assert template_key(template) == key
