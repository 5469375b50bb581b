"""spec 4.9: GET/POST/DELETE /callback, GET /callback/events, GET/DELETE /callback/events/:id."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request

from comptoir.auth.access import TOKEN, require
from comptoir.auth.context import Ctx
from comptoir.callbacks import service
from comptoir.callbacks.schemas import Callback, CallbackUpdate, Event, EventSummary
from comptoir.http.dependencies import Session
from comptoir.http.openapi import PAGE_RESPONSES, READ_ERRORS, WRITE_ERRORS
from comptoir.http.pagination import Pagination
from comptoir.http.routing import JSON, ComptoirRoute
from comptoir.http.state import app_state

router = APIRouter(route_class=ComptoirRoute, tags=["Callbacks"])

# docs/api/conventions.md "Access": /callback endpoints need any token.
AnyToken = Annotated[Ctx, Depends(require("*", TOKEN))]


@router.get("/callback", response_model=Callback, responses=READ_ERRORS, summary="Get the connection's callback")
async def get_callback(session: Session, ctx: AnyToken) -> JSON:
    return JSON(await service.get_callback(session, ctx))


@router.post("/callback", response_model=Callback, responses=WRITE_ERRORS, summary="Create or replace the callback")
async def set_callback(body: CallbackUpdate, ctx: AnyToken, request: Request) -> JSON:
    state = app_state(request)
    # the URL's host is resolved before the transaction opens: on SQLite a write transaction
    # holds the database's one write lock, which no lookup (up to seconds) may keep
    url, subscribed = await service.check_subscription(body.url, body.events, state.settings.callback_networks)
    async with state.db.transaction() as session:
        return JSON(await service.save_subscription(session, ctx, url, subscribed))


@router.delete("/callback", response_model=Callback, responses=READ_ERRORS, summary="Unregister the callback")
async def delete_callback(session: Session, ctx: AnyToken) -> JSON:
    return JSON(await service.delete_callback(session, ctx))


@router.get(
    "/callback/events",
    response_model=list[EventSummary],
    responses=PAGE_RESPONSES,
    summary="List unacknowledged events, oldest first",
)
async def list_events(session: Session, ctx: AnyToken, page: Pagination) -> JSON:
    body, result = await service.list_events(session, ctx, page)
    return JSON(body, headers=result.headers())


@router.get("/callback/events/{event_id}", response_model=Event, responses=READ_ERRORS, summary="Get an event")
async def get_event(event_id: str, session: Session, ctx: AnyToken) -> JSON:
    return JSON(await service.get_event(session, ctx, event_id))


@router.delete(
    "/callback/events/{event_id}", response_model=Event, responses=READ_ERRORS, summary="Acknowledge an event"
)
async def acknowledge_event(event_id: str, session: Session, ctx: AnyToken) -> JSON:
    return JSON(await service.acknowledge_event(session, ctx, event_id))
