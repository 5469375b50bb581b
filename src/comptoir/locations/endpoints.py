"""spec 4.8: GET/PATCH /locations/:id and its short form /location, GET /locations."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from starlette.requests import Request

from comptoir.auth.access import ANY, ANY_WRITE, require
from comptoir.auth.context import Ctx
from comptoir.http.dependencies import Session
from comptoir.http.openapi import PAGE_RESPONSES, READ_ERRORS, WRITE_ERRORS
from comptoir.http.pagination import Pagination
from comptoir.http.routing import JSON, LOCATION, UPDATE, ComptoirRoute, route
from comptoir.http.state import app_state
from comptoir.locations import service
from comptoir.locations.schemas import Location, LocationUpdate
from comptoir.models import Account as AccountRow
from comptoir.models import Location as LocationRow

router = APIRouter(route_class=ComptoirRoute, tags=["Locations"])

# docs/api/locations-accounts.md "Access": reading a location needs any permission at the
# token's level; updating it needs any write permission.
Reader = Annotated[Ctx, Depends(require("location,account", ANY))]
Writer = Annotated[Ctx, Depends(require("location,account", ANY_WRITE))]
AccountReader = Annotated[Ctx, Depends(require("account", ANY))]


@router.get(
    "/locations", response_model=list[Location], responses=PAGE_RESPONSES, summary="List the account's locations"
)
async def list_locations(session: Session, ctx: AccountReader, page: Pagination) -> JSON:
    body, result = await service.list_locations(session, ctx, page)
    return JSON(body, headers=result.headers())


@route(
    router,
    "GET",
    LOCATION,
    response_model=Location,
    responses=READ_ERRORS,
    summary="Get a location",
    own_summary="Get the connection's location",
)
async def get_location(request: Request, location_id: str | None, ctx: Reader) -> JSON:
    if location_id is None:  # the snapshots read with the token: no session (benchmarks/location_get.py)
        assert ctx.location is not None
        assert ctx.account is not None
        return JSON(service.render_location(ctx.location, ctx.account))
    async with app_state(request).db.transaction(write=False) as session:
        location, account = await service.location_in_reach(session, ctx, location_id)
        return JSON(service.render_location(location, account))


@route(
    router,
    UPDATE,
    LOCATION,
    response_model=Location,
    responses=WRITE_ERRORS,
    summary="Update a location's settings",
    own_summary="Update the connection's location",
)
async def update_location(location_id: str | None, body: LocationUpdate, session: Session, ctx: Writer) -> JSON:
    location, account = await service.location_of(session, ctx, location_id, for_update=True)
    assert isinstance(location, LocationRow)  # locked: the rows, not the snapshots
    assert isinstance(account, AccountRow)
    return JSON(await service.update_location(session, ctx, location, account, body))
