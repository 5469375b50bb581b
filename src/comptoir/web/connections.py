"""The back office's connections: the applications connected to a
location or an account, revoke, block and unblock, and each connection's request log and
callback delivery attempts, with the callback's tools (a test event, resends, a replay,
enabling it again, its signing secret: docs/api/callbacks-events.md "Testing, resending and
replaying"), which call the services the API calls.

A connection's page is open to the owner of what it connects (who may also revoke and
block it) and to the owner of its application (who sees what the application sent and
received, to debug an integration).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request
from starlette.responses import Response

from comptoir.accounts.service import account_by_id
from comptoir.callbacks import service as callbacks
from comptoir.callbacks.service import recent_attempts
from comptoir.connections import service as connections
from comptoir.connections.repository import Listed
from comptoir.connections.service import revoke, set_blocked
from comptoir.errors import ComptoirError, Unprocessable
from comptoir.http.state import app_state
from comptoir.models import Connection
from comptoir.web.pages import owned_account, owned_location
from comptoir.web.render import Visitor, not_found, page, redirect, visitor

router = APIRouter(include_in_schema=False)

PAGE_SIZE = 50


def shown(rows: list[Listed]) -> list[dict[str, Any]]:
    """Connections as the pages list them (active first, newest first): each with its
    application's name, catalog, customer list, and `place`, what it connects in words."""
    return [_shown(row) for row in rows]


def _shown(row: Listed) -> dict[str, Any]:
    return {
        "connection": row.connection,
        "application": row.application,
        "catalog": row.catalog,
        "customer_list": row.customer_list,
        "place": row.location or row.account or "a profile only",
    }


def _connections_page(you: Visitor, rows: list[dict[str, Any]], name: str, back: str) -> Response:
    return page("bo_connections.html", title=f"Connections · {name}", you=you, wide=True, rows=rows, back=(back, name))


@router.get("/locations/{location_id}/connections")
async def location_connections(request: Request, location_id: str) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        you = await visitor(request, db)
        location, _ = await owned_location(db, you.user, location_id)
        rows = shown(await connections.listed_of_location(db, location))
    return _connections_page(you, rows, location.name, f"/locations/{location.public_id}")


@router.get("/accounts/{account_id}/connections")
async def account_connections(request: Request, account_id: str) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        you = await visitor(request, db)
        account = await owned_account(db, you.user, account_id)
        rows = shown(await connections.listed_of_account(db, account))
    return _connections_page(you, rows, account.name, f"/accounts/{account.public_id}")


async def _connection(db: AsyncSession, you: Visitor, public_id: str, *, manage: bool) -> tuple[Connection, bool]:
    """The connection and whether `you` may manage it (own what it connects); a 404 page
    when `you` neither own what it connects nor its application (or `manage` is asked)."""
    connection = await connections.find_connection(db, public_id)
    if connection is not None:
        account = await account_by_id(db, connection.account_id) if connection.account_id is not None else None
        owner_id = account.owner_id if account is not None else connection.user_id
        client = await connections.client_by_id(db, connection.client_id)
        manages = owner_id == you.user.id
        if manages or (not manage and client is not None and client.owner_id == you.user.id):
            return connection, manages
    raise not_found("No connection of yours has this id.")


@router.get("/connections/{connection_id}")
async def connection_page(request: Request, connection_id: str) -> Response:
    return await _connection_page(request, connection_id)


async def _connection_page(
    request: Request, connection_id: str, *, flash: str | None = None, secret: dict[str, Any] | None = None
) -> Response:
    """The page; `flash`: the outcome of a callback tool; `secret`: the signing secret, shown
    only in answer to a POST (never in a URL, never cached)."""
    state = app_state(request)
    await state.request_log.flush()  # this process's last requests; others' come within a second
    before = request.query_params.get("before", "")
    async with state.db.transaction(write=False) as db:
        you = await visitor(request, db)
        connection, manages = await _connection(db, you, connection_id, manage=False)
        row = _shown(await connections.listed_one(db, connection))
        before_id = int(before) if before.isdigit() else None
        requests = await connections.logged_requests(db, connection, before_id, PAGE_SIZE + 1)
        attempts = await recent_attempts(db, connection.id, PAGE_SIZE)
        callback = await callbacks.callback_of(db, connection.id)
    older = requests[PAGE_SIZE - 1].id if len(requests) > PAGE_SIZE else None
    return page(
        "bo_connection.html",
        title=f"{row['application']} · {row['place']}",
        you=you,
        wide=True,
        row=row,
        manages=manages,
        requests=requests[:PAGE_SIZE],
        older=older,
        attempts=attempts,
        tz=you.user.timezone,
        callback=callback,
        flash=flash,
        secret=secret,
    )


async def _act(request: Request, connection_id: str, action: str) -> Response:
    form = await request.form()
    async with app_state(request).db.transaction() as db:
        you = await visitor(request, db)
        you.check(form)
        connection, _ = await _connection(db, you, connection_id, manage=True)
        if action == "revoke":
            await revoke(db, connection)
        else:
            await set_blocked(db, connection, action == "block")
    return redirect(f"/connections/{connection_id}")


@router.post("/connections/{connection_id}/revoke")
async def revoke_page(request: Request, connection_id: str) -> Response:
    """The token gets 401 at once, from every process (tokens are not cached)."""
    return await _act(request, connection_id, "revoke")


@router.post("/connections/{connection_id}/block")
async def block_page(request: Request, connection_id: str) -> Response:
    return await _act(request, connection_id, "block")


@router.post("/connections/{connection_id}/unblock")
async def unblock_page(request: Request, connection_id: str) -> Response:
    return await _act(request, connection_id, "unblock")


# --- the callback's tools -------------------------------------------------------------------
# Open to whoever sees the page (the owner of what it connects, the application's owner), as
# the connection's token may use them too.


async def _tool(request: Request, connection_id: str, action: str) -> Response:
    state = app_state(request)
    form = await request.form()
    flash: str
    secret: dict[str, Any] | None = None
    try:
        if action == "test":
            async with state.db.transaction(write=False) as db:
                you = await visitor(request, db)
                you.check(form)
                connection, _ = await _connection(db, you, connection_id, manage=False)
            # the POST runs outside any transaction
            outcome = await callbacks.send_test(state.db, state.key, state.settings, connection.id)
            answer = f"status {outcome['status']}" if outcome["status"] is not None else outcome["error"]
            verdict = "delivered" if outcome["delivered"] else "not delivered"
            flash = f"Test event {outcome['event']['id']}: {verdict} ({answer})."
        else:
            async with state.db.transaction() as db:
                you = await visitor(request, db)
                you.check(form)
                connection, _ = await _connection(db, you, connection_id, manage=False)
                flash, secret = await _act_on_callback(db, state.key, connection.id, action, form)
    except Unprocessable as exc:
        flash = "; ".join(f"{e.field}: {e.message}" if e.field else e.message for e in exc.errors)
    except ComptoirError as exc:  # no callback, no such event: nothing changed
        flash = exc.message
    return await _connection_page(request, connection_id, flash=flash, secret=secret)


async def _act_on_callback(
    db: AsyncSession, key: bytes, connection_id: int, action: str, form: Any
) -> tuple[str, dict[str, Any] | None]:
    if action == "resend":
        await callbacks.resend(db, connection_id, str(form.get("event_id", "")))
        return "The event is queued for a redelivery.", None
    if action == "replay":
        start, end = form.get("from") or None, form.get("to") or None
        count = (await callbacks.replay(db, connection_id, start, end))["count"]
        return f"{count} events are queued for a redelivery, oldest first.", None
    if action == "enable":
        await callbacks.enable(db, connection_id)
        return "The callback is enabled: deliveries resume from the oldest pending event.", None
    if action == "rotate":
        secret = await callbacks.rotate_signing_secret(db, key, connection_id)
        return "A new signing secret signs from now on; the previous one signs too for 24 hours.", secret
    return "", await callbacks.signing_secret(db, key, connection_id)


def _tool_route(action: str) -> None:
    async def handler(request: Request, connection_id: str) -> Response:
        return await _tool(request, connection_id, action)

    router.add_api_route(f"/connections/{{connection_id}}/callback/{action}", handler, methods=["POST"])


for _action in ("test", "resend", "replay", "enable", "secret", "rotate"):
    _tool_route(_action)
