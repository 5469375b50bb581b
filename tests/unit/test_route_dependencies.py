"""No request waits for a thread to solve its route: FastAPI runs a plain `def` endpoint or
dependency in its thread pool (a hand-over to a thread and back, about 0.1 ms of CPU and a
wait for a free thread under load), so every endpoint and dependency, which only reads the
request and checks values, is `async def` (docs/architecture.md "Endpoints and
dependencies")."""

from __future__ import annotations

import functools
import inspect
import tempfile
from collections.abc import Iterator
from typing import Any

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, iter_route_contexts

from comptoir.app import create_app
from comptoir.config import Settings


def _runs_on_the_loop(call: Any) -> bool:
    """As FastAPI decides it: a partial's function, unwrapped; an object's `__call__`."""
    while isinstance(call, functools.partial):
        call = call.func
    call = inspect.unwrap(call)
    if not (inspect.isfunction(call) or inspect.ismethod(call)):
        call = call.__call__
    return inspect.iscoroutinefunction(call) or inspect.isasyncgenfunction(call)


def _calls(dependant: Dependant) -> Iterator[Any]:
    for dependency in dependant.dependencies:
        if dependency.call is not None:
            yield dependency.call
        yield from _calls(dependency)


def test_no_endpoint_nor_dependency_is_solved_in_a_thread() -> None:
    with tempfile.TemporaryDirectory() as directory:
        app = create_app(
            Settings(database_url=f"sqlite:///{directory}/unused.db", secret_key="unused"), background=False
        )
    routes = [context.original_route for context in iter_route_contexts(app.routes)]
    routes = [route for route in routes if isinstance(route, APIRoute)]
    assert len(routes) > 150
    threaded = sorted(
        {
            f"{route.path} {getattr(call, '__qualname__', call)}"
            for route in routes
            for call in [route.endpoint, *_calls(route.dependant)]
            if not _runs_on_the_loop(call)
        }
    )
    assert threaded == []
