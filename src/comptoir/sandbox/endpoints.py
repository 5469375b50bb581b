"""The sandbox's routes (docs/sandbox.md "Reset", "The clock", "Deliveries"): mounted by
`create_app` only for `comptoir sandbox`; a normal server answers them 404 as any unknown
address."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import ConfigDict
from starlette.requests import Request
from starlette.responses import Response

from comptoir.http.routing import JSON, ComptoirRoute
from comptoir.http.state import app_state
from comptoir.kit.requests import RequestModel
from comptoir.sandbox import service
from comptoir.sandbox.service import Sandbox

router = APIRouter(route_class=ComptoirRoute)


class ClockMove(RequestModel):
    """POST /sandbox/clock: `advance_seconds` or `now`, checked by `service.clock_target`."""

    model_config = ConfigDict(extra="ignore")

    advance_seconds: Any = None
    now: Any = None


@router.post("/sandbox/reset", include_in_schema=False)
async def reset(request: Request) -> Response:
    """Put the seeded state back; answers what the seed made (the ready line's object). Takes
    no body: a reset always reloads the seed the sandbox started with."""
    sandbox: Sandbox = request.app.state.sandbox
    return JSON(await service.reset(sandbox, app_state(request).cache))


@router.post("/sandbox/clock", include_in_schema=False)
async def move_clock(body: ClockMove, request: Request) -> Response:
    """Move the sandbox's time forward; answers its current time."""
    sandbox: Sandbox = request.app.state.sandbox
    return JSON(await service.move_clock(sandbox, body.advance_seconds, body.now))


@router.get("/sandbox/deliveries", include_in_schema=False)
async def deliveries(request: Request, connection: str | None = None, event_type: str | None = None) -> Response:
    """The callback POSTs made, newest first, with their requests and answers."""
    sandbox: Sandbox = request.app.state.sandbox
    return JSON(sandbox.deliveries.listing(connection, event_type))
