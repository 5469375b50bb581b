"""The back office's connections (issue 8 items 3 and 5): the applications connected to a
location or an account, revoke, block and unblock, and each connection's request log and
callback delivery attempts.

A connection's page is open to the owner of what it connects (who may also revoke and
block it) and to the owner of its application (who sees what the application sent and
received, to debug an integration).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from sqlalchemy import Select, select
from starlette.requests import Request
from starlette.responses import Response

from comptoir.accounts.service import find_account
from comptoir.connections.service import revoke, set_blocked
from comptoir.db import get_by_public_id
from comptoir.models import (
    Account,
    Catalog,
    Connection,
    CustomerList,
    DeliveryAttempt,
    Location,
    OAuthClient,
    RequestLog,
)
from comptoir.state import app_state
from comptoir.web.pages import owned_location
from comptoir.web.render import Visitor, not_found, page, redirect, visitor

router = APIRouter(include_in_schema=False)

PAGE_SIZE = 50


def _listed() -> Select[Any]:
    return (
        select(Connection, OAuthClient.name, Catalog.name, CustomerList.name)
        .join(OAuthClient, OAuthClient.id == Connection.client_id)
        .outerjoin(Catalog, Catalog.id == Connection.catalog_id)
        .outerjoin(CustomerList, CustomerList.id == Connection.customer_list_id)
        .order_by(Connection.revoked_at.is_not(None), Connection.id.desc())
    )


def _rows(result: Any) -> list[dict[str, Any]]:
    return [
        {"connection": c, "application": app, "catalog": catalog, "customer_list": listed}
        for c, app, catalog, listed in result
    ]


@router.get("/locations/{location_id}/connections")
async def location_connections(request: Request, location_id: str) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        you = await visitor(request, db)
        location, _ = await owned_location(db, you.user, location_id)
        rows = _rows(await db.execute(_listed().where(Connection.location_id == location.id)))
    return page(
        "bo_connections.html",
        title=f"Connections · {location.name}",
        you=you,
        wide=True,
        rows=rows,
        back=(f"/locations/{location.public_id}", location.name),
    )


@router.get("/accounts/{account_id}/connections")
async def account_connections(request: Request, account_id: str) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        you = await visitor(request, db)
        account = await find_account(db, account_id)
        if account is None or account.owner_id != you.user.id:
            raise not_found("No account of yours has this id.")
        stmt = _listed().where(Connection.account_id == account.id, Connection.level == "account")
        rows = _rows(await db.execute(stmt))
    return page(
        "bo_connections.html",
        title=f"Connections · {account.name}",
        you=you,
        wide=True,
        rows=rows,
        back=(f"/accounts/{account.public_id}", account.name),
    )


async def _connection(db: Any, you: Visitor, public_id: str, *, manage: bool) -> tuple[Connection, bool]:
    """The connection and whether `you` may manage it (own what it connects); a 404 page
    when `you` neither own what it connects nor its application (or `manage` is asked)."""
    connection = await get_by_public_id(db, Connection, public_id)
    if connection is not None:
        account = await db.get(Account, connection.account_id) if connection.account_id is not None else None
        owner_id = account.owner_id if account is not None else connection.user_id
        client = await db.get(OAuthClient, connection.client_id)
        manages = owner_id == you.user.id
        if manages or (not manage and client is not None and client.owner_id == you.user.id):
            return connection, manages
    raise not_found("No connection of yours has this id.")


@router.get("/connections/{connection_id}")
async def connection_page(request: Request, connection_id: str) -> Response:
    state = app_state(request)
    await state.request_log.flush()  # this process's last requests; others' come within a second
    before = request.query_params.get("before", "")
    async with state.db.transaction(write=False) as db:
        you = await visitor(request, db)
        connection, manages = await _connection(db, you, connection_id, manage=False)
        [row] = _rows(await db.execute(_listed().where(Connection.id == connection.id)))
        logs = select(RequestLog).where(RequestLog.connection_id == connection.id)
        if before.isdigit():
            logs = logs.where(RequestLog.id < int(before))
        requests = list(await db.scalars(logs.order_by(RequestLog.id.desc()).limit(PAGE_SIZE + 1)))
        attempts = list(
            await db.scalars(
                select(DeliveryAttempt)
                .where(DeliveryAttempt.connection_id == connection.id)
                .order_by(DeliveryAttempt.id.desc())
                .limit(PAGE_SIZE)
            )
        )
        place = await _place(db, connection)
    older = requests[PAGE_SIZE - 1].id if len(requests) > PAGE_SIZE else None
    return page(
        "bo_connection.html",
        title=f"{row['application']} · {place}",
        you=you,
        wide=True,
        row=row,
        manages=manages,
        requests=requests[:PAGE_SIZE],
        older=older,
        attempts=attempts,
        tz=you.user.timezone,
    )


async def _place(db: Any, connection: Connection) -> str:
    """What the connection connects, in words: the location's or the account's name."""
    if connection.location_id is not None:
        location = await db.get(Location, connection.location_id)
        return location.name if location is not None else "a location"
    if connection.account_id is not None:
        account = await db.get(Account, connection.account_id)
        return account.name if account is not None else "an account"
    return "your profile"


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
