"""One FastAPI object per set of routes, serving every in-process test of a process.

The first request to a new FastAPI object prepares its ~200 routes (FastAPI builds each
included route on first use, and `http.dispatch` indexes them): about 0.15 s, which, paid by
every test that builds an app, was most of many tests' time. A test still builds its own app
with `create_app` (its settings, database, sandbox); `shared` hands back the first app built
with the same routes, given that test's state. Everything a request reads of a test's settings
and database lives in `app.state`, so the shared object serves the test as its own would.
"""

from __future__ import annotations

from fastapi import FastAPI

from tests.response_schemas import routes_of

_first: dict[tuple[object, ...], FastAPI] = {}


def shared(fresh: FastAPI) -> FastAPI:
    """The app of `fresh`'s routes that serves this process's tests, with `fresh`'s state."""
    app = _first.setdefault(routes_of(fresh), fresh)
    if app is not fresh:
        for name, value in fresh.state._state.items():
            setattr(app.state, name, value)
    return app
