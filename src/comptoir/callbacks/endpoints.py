"""GET/POST/DELETE /callback, GET /callback/events, GET/DELETE /callback/events/:id, the
event stream (GET /callback/stream), and the
webhook tools: the signing secret, test events, resends, replays, enabling
(docs/api/callbacks-events.md)."""

from __future__ import annotations

from functools import partial
from typing import Annotated

from fastapi import APIRouter, Depends, Header, Query, Request
from starlette.responses import Response

from comptoir.auth.access import TOKEN, require, token_of
from comptoir.auth.context import Ctx
from comptoir.callbacks import service, stream
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
from comptoir.callbacks.stream import EventStream
from comptoir.http.cursors import Pagination
from comptoir.http.dependencies import Session
from comptoir.http.openapi import (
    PAGE_RESPONSES,
    READ_ERRORS,
    WRITE_ERRORS,
    answer_example,
    body_example,
    error_answer,
)
from comptoir.http.routing import JSON, ComptoirRoute
from comptoir.http.state import app_state

router = APIRouter(route_class=ComptoirRoute, tags=["Callbacks"])

# docs/api/conventions.md "Access": /callback endpoints need any token.
AnyToken = Annotated[Ctx, Depends(require("*", TOKEN))]
CALLBACK_EXAMPLE = {
    "url": "https://app.example/comptoir/events",
    "events": {"order": ["create", "update"], "location": ["update"]},
    "disabled_at": None,
    "disabled_reason": None,
}
EVENT_EXAMPLE = {
    "id": "e5w2rq",
    "resource_type": "order",
    "event_type": "create",
    "created_at": "2026-06-24T19:02:11+02:00",
    "order_id": "a7d9kp",
    "location_id": "4k3jxr-1",
}


@router.get(
    "/callback",
    response_model=Callback,
    responses=answer_example(READ_ERRORS, CALLBACK_EXAMPLE),
    summary="Get the connection's callback",
)
async def get_callback(session: Session, ctx: AnyToken) -> JSON:
    """The connection's callback: the URL events are POSTed to (`null`: passive, the events
    wait in `GET /v1/callback/events`) and the events it subscribes to. Without a callback:
    `{"url": null, "events": {}}`."""
    return JSON(await service.get_callback(session, ctx))


@router.post(
    "/callback",
    response_model=Callback,
    responses=WRITE_ERRORS,
    summary="Create or replace the callback",
    openapi_extra=body_example(CALLBACK_EXAMPLE),
)
async def set_callback(body: CallbackUpdate, ctx: AnyToken, request: Request) -> JSON:
    """Subscribes the connection to events: `events` maps each resource type to its event
    types (`order`: create, update; `own_order`: update; `delivery` and `own_order_delivery`:
    create, update; `catalog` and `customer_list`: create, update, delete; `customer`: create,
    update; `inventory`: patch, update; `location`: update). `url` is where they are POSTed (an
    `http` or `https` URL whose host resolves to public addresses only), or `null` to poll
    them. Replacing the callback keeps the pending events. Each POST is signed (see
    Webhooks)."""
    state = app_state(request)
    # the URL's host is resolved before the transaction opens: on SQLite a write transaction
    # holds the database's one write lock, which no lookup (up to seconds) may keep
    url, subscribed = await service.check_subscription(body.url, body.events, state.settings.callback_networks)
    async with state.db.transaction() as session:
        return JSON(await service.save_subscription(session, state.key, ctx, url, subscribed))


@router.delete(
    "/callback",
    response_model=Callback,
    responses=answer_example(READ_ERRORS, CALLBACK_EXAMPLE),
    summary="Unregister the callback",
)
async def delete_callback(session: Session, ctx: AnyToken) -> JSON:
    """Removes the callback and drops its pending events; answers the callback as it was."""
    return JSON(await service.delete_callback(session, ctx))


@router.get(
    "/callback/events",
    response_model=list[EventSummary],
    responses=answer_example(PAGE_RESPONSES, [EVENT_EXAMPLE]),
    summary="List unacknowledged events, oldest first",
)
async def list_events(session: Session, ctx: AnyToken, page: Pagination) -> JSON:
    """The connection's pending events, oldest first, without their states: an event stays
    until it is acknowledged (`DELETE /v1/callback/events/{event_id}`) or, with a callback URL,
    delivered. Poll at most every 30 seconds or so, or the daily rate limit may run out."""
    body, result = await service.list_events(session, ctx, page)
    return JSON(body, headers=result.headers())


STREAM_EXAMPLE = (
    "retry: 3000\n: open\n\n"
    "id: e5w2rq\nevent: order.create\n"
    'data: {"id":"e5w2rq","resource_type":"order","event_type":"create",'
    '"created_at":"2026-06-24T19:02:11+02:00","order_id":"a7d9kp","location_id":"4k3jxr-1","new_state":{}}\n\n'
    ": ping\n\n"
)


@router.get(
    "/callback/stream",
    response_class=EventStream,
    status_code=200,
    responses={
        200: {
            "description": "Server-Sent Events: `id: <event id>`, `event: <resource_type>.<event_type>`, "
            "`data: <the event as GET /callback/events/{event_id} reads it>`",
            "content": {"text/event-stream": {"schema": {"type": "string"}, "example": STREAM_EXAMPLE}},
        },
        **READ_ERRORS,
        409: error_answer("The callback has a URL: its events are POSTed"),
    },
    summary="Stream pending events, then new ones (Server-Sent Events)",
)
async def stream_events(
    ctx: AnyToken,
    request: Request,
    last_event_id: Annotated[str | None, Query(description="Last-Event-ID, for a client that cannot send it")] = None,
    last_event_id_header: Annotated[str | None, Header(alias="Last-Event-ID")] = None,
) -> Response:
    """The connection's pending events, oldest first, then each new one as soon as it is
    recorded, as Server-Sent Events. With `Last-Event-ID` (the header, or `last_event_id`),
    only the events after that one. A comment line comes at least every 15 seconds. At most 3
    streams per connection (429 beyond); a 409 while the callback has a URL. Acknowledge each
    event as usual (`DELETE /v1/callback/events/{event_id}`)."""
    state = app_state(request)
    after = stream.resume_after(last_event_id_header if last_event_id_header is not None else last_event_id)
    async with state.db.transaction(write=False) as session:
        await service.check_streamable(session, ctx.connection_id)
    streams = stream.streams_of(state)
    opened = stream.Stream(ctx, token_of(request) or "", after)
    await streams.join(opened)
    return EventStream(streams, opened, state.settings.callback_stream_send_timeout_seconds)


@router.get("/callback/events/{event_id}", response_model=Event, responses=READ_ERRORS, summary="Get an event")
async def get_event(event_id: str, session: Session, ctx: AnyToken) -> JSON:
    """One pending event with its states: `new_state` after a creation or update,
    `previous_state` before an update or deletion, `state_change` for an inventory patch; a
    catalog event has none (read the catalog). The same body a callback receives."""
    return JSON(await service.get_event(session, ctx, event_id))


@router.delete(
    "/callback/events/{event_id}",
    response_model=Event,
    responses=answer_example(READ_ERRORS, EVENT_EXAMPLE),
    summary="Acknowledge an event",
)
async def acknowledge_event(event_id: str, session: Session, ctx: AnyToken) -> JSON:
    """Marks the event as handled: it is deleted, never delivered again, and answered as it
    was."""
    return JSON(await service.acknowledge_event(session, ctx, event_id))


@router.get(
    "/callback/signing_secret",
    response_model=SigningSecret,
    responses=READ_ERRORS,
    summary="Get the callback's signing secret",
)
async def get_signing_secret(session: Session, ctx: AnyToken, request: Request) -> JSON:
    """The secret that signs the callback's `webhook-signature` header (Standard Webhooks), and
    until when the previous one signs too after a rotation. 404 without a callback."""
    return JSON(await service.signing_secret(session, app_state(request).key, ctx.connection_id))


@router.post(
    "/callback/signing_secret/rotate",
    response_model=SigningSecret,
    responses=WRITE_ERRORS,
    summary="Rotate the signing secret (the previous one signs too for 24 hours)",
)
async def rotate_signing_secret(session: Session, ctx: AnyToken, request: Request) -> JSON:
    """Makes a new signing secret. For 24 hours both the new and the previous secret sign each
    POST (newest first), so receivers can switch without losing an event."""
    return JSON(await service.rotate_signing_secret(session, app_state(request).key, ctx.connection_id))


@router.post(
    "/callback/test", response_model=TestEvent, responses=WRITE_ERRORS, summary="Send a test event to the callback URL"
)
async def send_test_event(ctx: AnyToken, request: Request) -> JSON:
    """POSTs one test event (`resource_type` "callback", `event_type` "test") to the callback URL
    now, signed under both schemes, and answers what the receiver said. Nothing is queued or
    retried. A passive callback (no URL) is a 422."""
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
    """Queues the event for one more delivery, marked `comptoir-redelivery: true`, whether it is
    pending or was already delivered (delivered events are kept for resends)."""
    return JSON(await service.resend(session, ctx.connection_id, event_id), status_code=202)


@router.post(
    "/callback/replay",
    status_code=202,
    response_model=Queued,
    responses={**WRITE_ERRORS, 409: error_answer("An earlier replay or resend is still sent")},
    summary="Send again the events of a time range",
)
async def replay_events(body: ReplayRange, session: Session, ctx: AnyToken, request: Request) -> JSON:
    """Queues again every event of the connection created from `from` (included) to `to`
    (excluded), at most 31 days and 10,000 events, delivered oldest first and marked
    `comptoir-redelivery: true`. One replay at a time: a 409 while events queued by an
    earlier replay or resend are still to be sent. A replay of n events counts as ceil(n/100)
    requests, and its events count toward 50,000 replayed a day (a 429 past either)."""
    charge = partial(app_state(request).limiter.charge_replay, ctx.connection_id)
    return JSON(await service.replay(session, ctx.connection_id, body.start, body.end, charge=charge), status_code=202)


@router.post("/callback/enable", response_model=Callback, responses=WRITE_ERRORS, summary="Enable a disabled callback")
async def enable_callback(session: Session, ctx: AnyToken) -> JSON:
    """Re-enables a callback disabled after failing every attempt for too long; its pending
    events are sent again at once, oldest first."""
    return JSON(await service.enable(session, ctx.connection_id))
