"""GET/POST/DELETE /callback, GET /callback/events, GET/DELETE /callback/events/:id, and the
webhook tools: the signing secret, test events, resends, replays, enabling
(docs/api/callbacks-events.md)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request

from comptoir.auth.access import TOKEN, require
from comptoir.auth.context import Ctx
from comptoir.callbacks import service
from comptoir.callbacks.schemas import (
    Callback,
    CallbackUpdate,
    Event,
    EventSummary,
    Queued,
    ReplayRange,
    SigningSecret,
    TestEvent,
)
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
        return JSON(await service.save_subscription(session, state.key, ctx, url, subscribed))


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


@router.get(
    "/callback/signing_secret",
    response_model=SigningSecret,
    responses=READ_ERRORS,
    summary="Get the callback's signing secret",
)
async def get_signing_secret(session: Session, ctx: AnyToken, request: Request) -> JSON:
    return JSON(await service.signing_secret(session, app_state(request).key, ctx.connection_id))


@router.post(
    "/callback/signing_secret/rotate",
    response_model=SigningSecret,
    responses=WRITE_ERRORS,
    summary="Rotate the signing secret (the previous one signs too for 24 hours)",
)
async def rotate_signing_secret(session: Session, ctx: AnyToken, request: Request) -> JSON:
    return JSON(await service.rotate_signing_secret(session, app_state(request).key, ctx.connection_id))


@router.post(
    "/callback/test", response_model=TestEvent, responses=WRITE_ERRORS, summary="Send a test event to the callback URL"
)
async def send_test_event(ctx: AnyToken, request: Request) -> JSON:
    state = app_state(request)
    return JSON(await service.send_test(state.db, state.key, state.settings, ctx.connection_id))


@router.post(
    "/callback/events/{event_id}/resend",
    status_code=202,
    response_model=Queued,
    responses=WRITE_ERRORS,
    summary="Send an event again",
)
async def resend_event(event_id: str, session: Session, ctx: AnyToken) -> JSON:
    return JSON(await service.resend(session, ctx.connection_id, event_id), status_code=202)


@router.post(
    "/callback/replay",
    status_code=202,
    response_model=Queued,
    responses=WRITE_ERRORS,
    summary="Send again the events of a time range",
)
async def replay_events(body: ReplayRange, session: Session, ctx: AnyToken) -> JSON:
    return JSON(await service.replay(session, ctx.connection_id, body.start, body.end), status_code=202)


@router.post("/callback/enable", response_model=Callback, responses=WRITE_ERRORS, summary="Enable a disabled callback")
async def enable_callback(session: Session, ctx: AnyToken) -> JSON:
    return JSON(await service.enable(session, ctx.connection_id))
