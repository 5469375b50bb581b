"""The sandbox's routes (docs/sandbox.md "Reset"): mounted by `create_app` only for
`comptoir sandbox`; a normal server answers them 404 as any unknown address."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from comptoir.http.routing import JSON, ComptoirRoute
from comptoir.http.state import app_state
from comptoir.sandbox import service
from comptoir.sandbox.service import Sandbox

router = APIRouter(route_class=ComptoirRoute)


@router.post("/sandbox/reset", include_in_schema=False)
async def reset(request: Request) -> Response:
    """Put the seeded state back; answers what the seed made (the ready line's object). Takes
    no body: a reset always reloads the seed the sandbox started with."""
    sandbox: Sandbox = request.app.state.sandbox
    return JSON(await service.reset(sandbox, app_state(request).cache))
