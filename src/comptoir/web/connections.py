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

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from fastapi import APIRouter
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

from comptoir.accounts.service import account_by_id
from comptoir.applications.service import client_by_id
from comptoir.auth import people
from comptoir.callbacks import service as callbacks
from comptoir.callbacks.service import recent_attempts
from comptoir.connections import service as connections
from comptoir.connections.repository import STATUS_CLASSES, Listed
from comptoir.connections.service import revoke, set_blocked
from comptoir.errors import BadRequest, ComptoirError, Unprocessable
from comptoir.http.state import app_state
from comptoir.kit import ids
from comptoir.kit.pagination import Page, PageRequest
from comptoir.models import Account, Connection, Location
from comptoir.models.locations import location_public_id
from comptoir.web.charts import delivery_chart
from comptoir.web.data import next_page_url, page_request
from comptoir.web.pages import owned_account, owned_location
from comptoir.web.render import (
    Named,
    Person,
    Problem,
    Visitor,
    crumbs,
    not_yours,
    page,
    redirect,
    templates,
    text,
)
from comptoir.web.scope_words import scope_words

router = APIRouter(include_in_schema=False)

RECENT_ATTEMPTS = 10  # on the connection page, newest first; the rest on its delivery log
DELIVERIES_REFUSED = "Older deliveries: this link is broken or out of date; start again from the newest"
OLDER_REFUSED = "Older requests: this link is broken or out of date; start again from the newest"
LONGEST_PATH_FILTER = 200


def status_tone(status: int | None) -> str:
    """The colour of an HTTP status (docs/back-office.md "Connections, logs and charts"):
    2xx ok, 3xx info, 4xx warn, 5xx and no answer at all (a network error) bad."""
    if status is None or status >= 500 or status < 200:
        return "bad"
    return "ok" if status < 300 else "info" if status < 400 else "warn"


OUTCOME_WORDS = {"acknowledged": "Delivered", "retry": "Failed, retried later", "dropped": "Failed, given up"}
templates.globals["status_tone"] = status_tone
templates.globals["outcome_words"] = OUTCOME_WORDS


def listed_rows(rows: list[Listed]) -> list[dict[str, Any]]:
    """Connections as the pages list them (active first, newest first): each with its
    application's name, catalog, customer list, `place`, what it connects in words, and
    `words`, its scope in words."""
    return [_shown(row) for row in rows]


def _shown(row: Listed) -> dict[str, Any]:
    c = row.connection
    place = row.location or row.account
    return {
        "connection": c,
        "application": row.application,
        "catalog": row.catalog,
        "customer_list": row.customer_list,
        "place": place or "a profile only",
        "words": scope_words(c.scope, place, row.catalog, row.customer_list),
        "location_id": (
            location_public_id(c.account_id, row.location_number)
            if c.account_id is not None and row.location_number is not None
            else None
        ),
        "account_id": ids.encode(Account.KIND, c.account_id) if c.account_id is not None else None,
        "location_timezone": row.location_timezone,
    }


def _connections_page(
    you: Visitor, rows: list[dict[str, Any]], account: Account, location: Location | None
) -> Response:
    name = location.name if location is not None else account.name
    return page(
        "bo_connections.html",
        title=f"Connections of {name}",
        you=you,
        crumbs=crumbs(account, location),
        rows=rows,
        level="location" if location is not None else "account",
        tz=you.zone(location.timezone if location is not None else None),
    )


@router.get("/locations/{location_id}/connections")
async def location_connections(request: Request, you: Person, location_id: str) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        location, account = await owned_location(db, you.user, location_id)
        rows = listed_rows(await connections.listed_of_location(db, location))
    return _connections_page(you, rows, account, location)


@router.get("/accounts/{account_id}/connections")
async def account_connections(request: Request, you: Person, account_id: str) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        account = await owned_account(db, you.user, account_id)
        rows = listed_rows(await connections.listed_of_account(db, account))
    return _connections_page(you, rows, account, None)


async def _connection(db: AsyncSession, you: Visitor, public_id: str, *, manage: bool) -> tuple[Connection, bool]:
    """The connection and whether `you` may manage it (own what it connects); a 404 page
    when `you` neither own what it connects nor its application (or `manage` is asked)."""
    connection = await connections.find_connection(db, public_id)
    if connection is not None:
        account = await account_by_id(db, connection.account_id) if connection.account_id is not None else None
        manages = people.manages(you.user.id, connection, account)
        if manages:
            return connection, True
        client = None if manage else await client_by_id(db, connection.client_id)
        if client is not None and people.sees(you.user.id, connection, account, client):
            return connection, False
    raise not_yours("connection")


def _crumbs(row: dict[str, Any], manages: bool) -> list[tuple[str, str]]:
    """The connection page's ancestors: for the owner, its account, location and their
    connections; for the application's developer, the application."""
    c: Connection = row["connection"]
    if not manages:
        return crumbs(
            None,
            None,
            ("Developers", "/developers"),
            (row["application"], f"/developers/{ids.encode('client', c.client_id)}"),
        )
    if row["account_id"] is None:
        return crumbs()
    account = Named(row["connection_account"], row["account_id"])
    if row["location_id"] is not None:
        location = Named(row["place"], row["location_id"])
        return crumbs(account, location, ("Connections", f"/locations/{row['location_id']}/connections"))
    return crumbs(account, None, ("Connections", f"/accounts/{row['account_id']}/connections"))


def _log_filters(request: Request) -> tuple[dict[str, str], str | None, list[Problem]]:
    """The request log's filters as asked (`chosen`), the status class, and what is wrong
    with them (shown beside their fields; the log is then not read)."""
    params = request.query_params
    chosen = {"status": params.get("status", ""), "path": params.get("path", "")}
    problems: list[Problem] = []
    if chosen["status"] and chosen["status"] not in STATUS_CLASSES:
        problems.append(Problem("status", "Status: choose 2xx, 3xx, 4xx or 5xx, or all"))
    path = chosen["path"]
    if len(path) > LONGEST_PATH_FILTER:
        problems.append(Problem("path", f"Path contains: at most {LONGEST_PATH_FILTER} characters"))
    elif any(ord(char) < 0x20 or ord(char) == 0x7F for char in path):
        problems.append(Problem("path", "Path contains: only printable characters"))
    return chosen, chosen["status"] or None, problems


@router.get("/connections/{connection_id}")
async def connection_page(request: Request, you: Person, connection_id: str) -> Response:
    return await _connection_page(request, you, connection_id)


async def _row(db: AsyncSession, connection: Connection) -> dict[str, Any]:
    """The connection as its pages show it (`_shown`), with its account."""
    listed = await connections.listed_one(db, connection)
    return {**_shown(listed), "connection_account": listed.account}


def _title(row: dict[str, Any]) -> str:
    return f"{row['application']} · {row['place']}"


async def _log_page(
    request: Request,
    you: Visitor,
    refused: str,
    problems: list[Problem],
    read: Callable[[PageRequest], Awaitable[Page]],
) -> tuple[list[Any], str | None]:
    """A page of one of the connection's logs (`read`) and the link to the next, or nothing
    when its filters were refused (`problems`) or its cursor is (`refused` joins them)."""
    if problems:
        return [], None
    try:
        wanted = page_request(request, you, refused)
    except BadRequest as exc:
        problems.append(Problem(None, exc.message))
        return [], None
    found = await read(wanted)
    return [item for (item,) in found.rows], next_page_url(request.query_params, found.next_cursor)


async def _connection_page(
    request: Request,
    you: Visitor,
    connection_id: str,
    *,
    flash: str | None = None,
    secret: dict[str, Any] | None = None,
) -> Response:
    """The page; `flash`: the outcome of a callback tool; `secret`: the signing secret, shown
    only in answer to a POST (never in a URL, never cached)."""
    state = app_state(request)
    await state.request_log.flush()  # this process's last requests; others' come within a second
    chosen, status_class, problems = _log_filters(request)
    async with state.db.transaction(write=False) as db:
        connection, manages = await _connection(db, you, connection_id, manage=False)
        row = await _row(db, connection)

        async def read(wanted: PageRequest) -> Page:
            return await connections.logged_requests(db, connection, status_class, chosen["path"].strip(), wanted)

        requests, next_url = await _log_page(request, you, OLDER_REFUSED, problems, read)
        attempts = await recent_attempts(db, connection.id, RECENT_ATTEMPTS)
        callback = await callbacks.callback_of(db, connection.id)
        chart = await delivery_chart(db, connection.id, you.zone(row["location_timezone"]))
    return page(
        "bo_connection.html",
        400 if problems else 200,
        title=_title(row),
        you=you,
        crumbs=_crumbs(row, manages),
        errors=problems,
        row=row,
        manages=manages,
        requests=requests,
        next_url=next_url,
        chosen=chosen,
        filtered=bool(status_class or chosen["path"]),
        status_classes=list(STATUS_CLASSES),
        attempts=attempts,
        attempts_shown=RECENT_ATTEMPTS,
        delivery_chart=chart,
        tz=you.zone(row["location_timezone"]),
        callback=callback,
        events=[f"{resource}.{action}" for resource, actions in callback["events"].items() for action in actions],
        flash=flash,
        secret=secret,
    )


@router.get("/connections/{connection_id}/deliveries")
async def deliveries_page(request: Request, you: Person, connection_id: str) -> Response:
    """The connection's delivery log: every callback delivery attempt of the last days,
    newest first, 50 a page, of one outcome when asked."""
    chosen = {"outcome": request.query_params.get("outcome", "")}
    problems: list[Problem] = []
    if chosen["outcome"] and chosen["outcome"] not in OUTCOME_WORDS:
        problems.append(
            Problem("outcome", "Outcome: choose Delivered, Failed, retried later or Failed, given up, or all")
        )
    async with app_state(request).db.transaction(write=False) as db:
        connection, manages = await _connection(db, you, connection_id, manage=False)
        row = await _row(db, connection)

        async def read(wanted: PageRequest) -> Page:
            return await callbacks.attempts_page(db, connection.id, chosen["outcome"] or None, wanted)

        attempts, next_url = await _log_page(request, you, DELIVERIES_REFUSED, problems, read)
        callback = await callbacks.callback_of(db, connection.id)
    return page(
        "bo_deliveries.html",
        400 if problems else 200,
        title=f"Callback deliveries · {row['application']}",
        you=you,
        crumbs=[
            *_crumbs(row, manages),
            (_title(row), f"/connections/{connection.public_id}"),
        ],
        errors=problems,
        row=row,
        chosen=chosen,
        outcomes=list(OUTCOME_WORDS.items()),
        attempts=attempts,
        next_url=next_url,
        callback=callback,
        tz=you.zone(row["location_timezone"]),
    )


async def _act(request: Request, you: Visitor, connection_id: str, action: str) -> Response:
    form = await request.form()
    if action == "revoke" and text(form, "confirmed") != "yes":
        return await _confirm_revoke(request, you, form, connection_id)
    async with app_state(request).db.transaction() as db:
        you.check(form)
        connection, _ = await _connection(db, you, connection_id, manage=True)
        if action == "revoke":
            await revoke(db, connection)
        else:
            await set_blocked(db, connection, action == "block")
    return redirect(f"/connections/{connection_id}")


async def _confirm_revoke(request: Request, you: Visitor, form: FormData, connection_id: str) -> Response:
    """Revoke, not yet confirmed: the page that asks, changing nothing (docs/back-office.md
    "Confirmations"); its button posts again with `confirmed=yes`."""
    async with app_state(request).db.transaction(write=False) as db:
        you.check(form)
        connection, manages = await _connection(db, you, connection_id, manage=True)
        row = await _row(db, connection)
    here = f"/connections/{connection.public_id}"
    return page(
        "bo_confirm.html",
        title=f"Revoke {row['application']}'s connection to {row['place']}?",
        you=you,
        crumbs=[*_crumbs(row, manages), (_title(row), here)],
        facts=[f"{row['application']} may now: {'; '.join(row['words']) or 'nothing'}."],
        consequence=(
            f"{row['application']} loses its access at once; to connect again, it must ask you again and you"
            " must allow it. To stop it for a while instead, block the connection: it can be unblocked."
        ),
        action=f"{here}/revoke",
        fields=[],
        confirm_words="Yes, revoke it",
        back_url=here,
        back_words="No, keep it",
    )


@router.post("/connections/{connection_id}/revoke")
async def revoke_page(request: Request, you: Person, connection_id: str) -> Response:
    """The token gets 401 at once, from every process (tokens are not cached)."""
    return await _act(request, you, connection_id, "revoke")


@router.post("/connections/{connection_id}/block")
async def block_page(request: Request, you: Person, connection_id: str) -> Response:
    return await _act(request, you, connection_id, "block")


@router.post("/connections/{connection_id}/unblock")
async def unblock_page(request: Request, you: Person, connection_id: str) -> Response:
    return await _act(request, you, connection_id, "unblock")


# --- the callback's tools -------------------------------------------------------------------
# Open to whoever sees the page (the owner of what it connects, the application's owner), as
# the connection's token may use them too.


async def _tool(request: Request, you: Visitor, connection_id: str, action: str) -> Response:
    state = app_state(request)
    form = await request.form()
    flash: str
    secret: dict[str, Any] | None = None
    try:
        if action == "test":
            async with state.db.transaction(write=False) as db:
                you.check(form)
                connection, _ = await _connection(db, you, connection_id, manage=False)
            # the POST runs outside any transaction
            outcome = await callbacks.send_test(state.db, state.key, state.settings, connection.id)
            answer = f"status {outcome['status']}" if outcome["status"] is not None else outcome["error"]
            verdict = "delivered" if outcome["delivered"] else "not delivered"
            flash = f"Test event {outcome['event']['id']}: {verdict} ({answer})."
        else:
            async with state.db.transaction() as db:
                you.check(form)
                connection, _ = await _connection(db, you, connection_id, manage=False)
                charge = partial(state.limiter.charge_replay, connection.id)
                flash, secret = await _act_on_callback(db, state.key, connection.id, action, form, charge)
    except Unprocessable as exc:
        flash = "; ".join(f"{e.field}: {e.message}" if e.field else e.message for e in exc.errors)
    except ComptoirError as exc:  # no callback, no such event: nothing changed
        flash = exc.message
    return await _connection_page(request, you, connection_id, flash=flash, secret=secret)


async def _act_on_callback(
    db: AsyncSession, key: bytes, connection_id: int, action: str, form: Any, charge: callbacks.Charge
) -> tuple[str, dict[str, Any] | None]:
    if action == "resend":
        await callbacks.resend(db, connection_id, str(form.get("event_id", "")))
        return "The event is queued for a redelivery.", None
    if action == "replay":
        start, end = form.get("from") or None, form.get("to") or None
        # the connection's limits, as the API's replay (docs/api/callbacks-events.md)
        count = (await callbacks.replay(db, connection_id, start, end, charge=charge))["count"]
        return f"{count} events are queued for a redelivery, oldest first.", None
    if action == "enable":
        await callbacks.enable(db, connection_id)
        return "The callback is enabled: deliveries resume from the oldest pending event.", None
    if action == "rotate":
        secret = await callbacks.rotate_signing_secret(db, key, connection_id)
        return "A new signing secret signs from now on; the previous one signs too for 24 hours.", secret
    return "", await callbacks.signing_secret(db, key, connection_id)


def _tool_route(action: str) -> None:
    async def handler(request: Request, you: Person, connection_id: str) -> Response:
        return await _tool(request, you, connection_id, action)

    router.add_api_route(f"/connections/{{connection_id}}/callback/{action}", handler, methods=["POST"])


for _action in ("test", "resend", "replay", "enable", "secret", "rotate"):
    _tool_route(_action)
