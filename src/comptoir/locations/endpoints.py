"""GET/PATCH /locations/:id and its short form /location, GET /locations
(docs/api/locations-accounts.md)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from starlette.requests import Request

from comptoir.auth.access import ANY, ANY_WRITE, require
from comptoir.auth.context import Ctx
from comptoir.db.unit import Unit
from comptoir.http.cursors import Pagination
from comptoir.http.dependencies import Session
from comptoir.http.openapi import PAGE_RESPONSES, READ_ERRORS, WRITE_ERRORS, answer_example, body_example
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
LOCATION_EXAMPLE = {
    "id": "4k3jxr-1",
    "name": "Demo Bistro Paris",
    "account": {"id": "4k3jxr", "name": "Demo Bistro", "currency": "EUR"},
    "address": "12 rue de la Paix",
    "postal_code": "75002",
    "city": "Paris",
    "country": "FR",
    "timezone": {"name": "Europe/Paris", "offset": 3600},
    "cutoff_time": "06:00",
    "opening_hours": {"friday": [{"from": "18:00", "to": "01:00"}]},
    "preparation_time": 15,
    "order_acceptance": {"mode": "busy", "resume_at": None, "extra_preparation_time": 15, "reason": None},
    "custom_fields": {},
}


@router.get(
    "/locations",
    response_model=list[Location],
    responses=answer_example(PAGE_RESPONSES, [LOCATION_EXAMPLE]),
    summary="List the account's locations",
)
async def list_locations(session: Session, ctx: AccountReader, page: Pagination) -> JSON:
    """Every location of the connection's account, with its settings, a page at a time."""
    body, result = await service.list_locations(session, ctx, page)
    return JSON(body, headers=result.headers())


@route(
    router,
    "GET",
    LOCATION,
    response_model=Location,
    responses=answer_example(READ_ERRORS, LOCATION_EXAMPLE),
    direct=True,
    summary="Get a location",
    own_summary="Get the connection's location",
)
async def get_location(request: Request, location_id: str | None, ctx: Reader) -> JSON:
    """The location with its account, address, time zone, opening hours, preparation time and
    order acceptance (normal, busy with extra preparation time, or paused). A location-level
    token reaches its own location only; an account-level one, every location of its account."""
    # the short form reads the snapshots taken with the token: no transaction opens
    # (benchmarks/location_get.py); the long form opens one for the account's location
    async with Unit(app_state(request).db, write=False) as unit:
        location, account = await service.location_of(unit, ctx, location_id)
        return JSON(service.render_location(location, account))


@route(
    router,
    UPDATE,
    LOCATION,
    response_model=Location,
    responses=WRITE_ERRORS,
    summary="Update a location's settings",
    openapi_extra=body_example(
        {
            "opening_hours": {"friday": [{"from": "18:00", "to": "01:00"}]},
            "order_acceptance": {"mode": "busy", "extra_preparation_time": 15},
        }
    ),
    own_summary="Update the connection's location",
)
async def update_location(location_id: str | None, body: LocationUpdate, session: Session, ctx: Writer) -> JSON:
    """Changes the fields sent, and only those: `cutoff_time`, `opening_hours` (`null`
    removes them), `preparation_time`, `order_acceptance` and `custom_fields`; other fields are
    ignored. A busy or paused location with `resume_at` goes back to normal at that time.
    Records a `location.update` event."""
    location, account = await service.location_of(session, ctx, location_id, for_update=True)
    assert isinstance(location, LocationRow)  # locked: the rows, not the snapshots
    assert isinstance(account, AccountRow)
    return JSON(await service.update_location(session, ctx, location, account, body))
