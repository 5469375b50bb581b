"""The live board of a location, for a counter tablet (docs/back-office.md "Orders"): today's
open orders, most urgent first (late ones, then by due time), each with its workflow buttons,
its channel and its time to when it is due.

The page and the part its script fetches (`/today/orders`) are the same read as the order
lists (`orders.service.list_orders`, filtered on today in the location's time zone and the
open statuses): the script fetches the part when the board's stream (`/today/stream`,
`web.board_stream`) says the location changed, or every few seconds where the stream cannot
be held; it swaps the part in, beeps and notifies when an order it had not seen appears.
Without JavaScript the page has a refresh link.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from pathlib import Path
from typing import Any

from fastapi import APIRouter
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request
from starlette.responses import Response

from comptoir.db.unit import Unit
from comptoir.errors import BadRequest, NotFound
from comptoir.http.cursors import back_office_page
from comptoir.http.sse import RETRY_MS
from comptoir.http.state import app_state
from comptoir.kit import clock
from comptoir.kit.times import zone
from comptoir.locations.service import preparation_minutes
from comptoir.models import Account, Location
from comptoir.orders import service as orders
from comptoir.orders import workflow
from comptoir.orders.repository import OrderRepository
from comptoir.orders.schemas import STATUSES
from comptoir.web import words
from comptoir.web.board_stream import MAX_PER_PERSON, BoardStream, TooMany, Watcher, boards_of
from comptoir.web.data import display_name
from comptoir.web.orders import moves, tag_of
from comptoir.web.pages import owned_location
from comptoir.web.render import PageAnswer, Person, Visitor, crumbs, page, redirect

router = APIRouter(include_in_schema=False)

BOARD_SIZE = 200  # open orders shown; more: the list has them all
POLL_SECONDS = 1.5  # without its stream, the script reads the list this often: a new order shows within 2 s
QUIET_SECONDS = 300  # with its stream, the list is read again this often all the same (the day ends, busy mode lapses)
BOARD_SCRIPT = (Path(__file__).parent / "templates" / "board.js").read_text()


def due_words(minutes: int) -> str:
    """The time left to an order's expected time, as the board says it."""
    if minutes > 0:
        return f"due in {minutes} min"
    if minutes == 0:
        return "due now"
    return f"late by {-minutes} min"


def due_at(order: dict[str, Any], location: Location, now: datetime) -> datetime:
    """When an order is due (docs/back-office.md "Orders"): its expected time, else its
    creation plus the preparation time the location takes now (busy mode's extra included)."""
    if order["expected_time"]:
        return datetime.fromisoformat(order["expected_time"])
    created = datetime.fromisoformat(order["created_at"])
    return created + timedelta(minutes=preparation_minutes(location, now))


def _ticket(order: dict[str, Any], location: Location, now: datetime, tz: str) -> dict[str, Any]:
    """An order as a ticket of the board, its words computed once here (a board holds up to
    200): its label, status, summary line (the time it came, its channel, service type and
    customer), item lines, moves, and when it is due (`due_at`)."""
    due = due_at(order, location, now)
    minutes = int((due - now).total_seconds() // 60)
    customer = display_name(order["customer"])
    summary = [words.clock_time(order["created_at"], tz)]
    if channel := order["channel"] or order["created_by"]:
        summary.append(f"from {channel}")
    if order["service_type"]:
        summary.append(words.service_type_words(order["service_type"]))
    if customer:
        summary.append(customer)
    steps = moves(order["status"], order["service_type"])
    return {
        "id": order["id"],
        "label": order["ref"] or order["id"],
        "status": order["status"],
        "status_words": words.status_words(order["status"]),
        "tag": tag_of(order["status"]),
        "summary": " · ".join(summary),
        "total": order["total"],
        "lines": [
            f"{words.quantity(item['quantity'])} × {item['product_name']}"
            + (f" · {item['sku_name']}" if item["sku_name"] else "")
            for item in order["items"]
            if not item["deleted"]
        ],
        "notes": order["customer_notes"],
        "moves": [(to, label) for to, label in steps if to not in workflow.ENDINGS],
        "endings": [(to, label) for to, label in steps if to in workflow.ENDINGS],
        "due": due,
        "due_ms": int(due.timestamp() * 1000),
        "due_words": due_words(minutes),
        "late": minutes < 0,
    }


async def undo_offer(request: Request, location: Location, db: AsyncSession) -> dict[str, Any] | None:
    """The undo a completion made from the board offers on the board it comes back to
    (`?completed=<order id>&from=<status>`, `web.orders.move_order`): while the workflow
    allows it (`workflow.undo_refusal`); None otherwise, or for an address naming no such
    order of the location."""
    order_id, back_to = request.query_params.get("completed", ""), request.query_params.get("from", "")
    if not order_id or back_to not in STATUSES:
        return None
    try:
        order, shown, _ = await orders.order_file(OrderRepository(Unit.of(db)), location, order_id)
    except (NotFound, BadRequest):
        return None
    if workflow.undo_refusal(order, back_to) is not None:
        return None
    until = workflow.undoable_until(order)
    return {
        "order_id": order.public_id,
        "label": shown["ref"] or order.public_id,
        "back_to": back_to,
        "back_words": words.status_words(back_to).lower(),
        "until_ms": int(until.timestamp() * 1000),
    }


def urgency(tickets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The board's order: the most urgent first. Late tickets come first (the latest
    first), then the others by due time; equal times by label."""
    return sorted(tickets, key=lambda t: (t["due"], t["label"]))


async def _board(
    request: Request, you: Visitor, location: Location, account: Account, db: AsyncSession
) -> dict[str, Any]:
    """What the board and its part show: today's open orders, read as the lists read them."""
    now = clock.now()
    tz = you.zone(location.timezone)
    today = now.astimezone(zone(tz)).date()
    # `after` without a zone: read in the location's time zone
    filters = orders.order_filters(str.capitalize, after=datetime.combine(today, time()), statuses=workflow.OPEN)
    try:  # the board is one page: a cursor in its address is none of its own
        wanted = back_office_page(request, you.key, BOARD_SIZE, [you.user.id, you.session.sid], "")
    except BadRequest:
        raise PageAnswer(redirect(f"/locations/{location.public_id}/today")) from None
    shown, result = await orders.list_orders(
        OrderRepository(Unit.of(db)), None, wanted, filters, locations={location.id: location}
    )
    return {
        "you": you,
        "location": location,
        "account": account,
        "tickets": urgency([_ticket(order, location, now, tz) for order in shown]),
        "tz": tz,
        "more": result.next_cursor is not None,
        "now": now,
    }


@router.get("/locations/{location_id}/today")
async def board_page(request: Request, you: Person, location_id: str) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        location, account = await owned_location(db, you.user, location_id)
        board = await _board(request, you, location, account, db)
        undo = await undo_offer(request, location, db)
    return page(
        "bo_board.html",
        undo=undo,
        title=f"Today · {location.name}",
        crumbs=crumbs(account, location),
        poll_ms=int(POLL_SECONDS * 1000),
        quiet_ms=int(QUIET_SECONDS * 1000),
        board_script=BOARD_SCRIPT,
        scripts=(BOARD_SCRIPT,),
        **board,
    )


@router.get("/locations/{location_id}/today/orders")
async def board_part(request: Request, you: Person, location_id: str) -> Response:
    """The board's list alone: what its script swaps in."""
    async with app_state(request).db.transaction(write=False) as db:
        location, account = await owned_location(db, you.user, location_id)
        board = await _board(request, you, location, account, db)
    return page("bo_board_orders.html", **board)


@router.get("/locations/{location_id}/today/stream")
async def board_stream(request: Request, you: Person, location_id: str) -> Response:
    """The board's news (`web.board_stream`): `event: changed` when an order of the location,
    or the location, changed; refused as the board page is (another owner's location is
    not found, a visitor signed out is sent to /login)."""
    state = app_state(request)
    async with state.db.transaction(write=False) as db:
        location, _account = await owned_location(db, you.user, location_id)
    boards = boards_of(state)
    watcher = Watcher(you.session, you.user.id, location.id, location.public_id)
    try:
        await boards.join(watcher)
    except TooMany:
        message = f"At most {MAX_PER_PERSON} boards may be live at once for one person; close one first."
        refused = page("message.html", 429, title="Too many live boards", message=message)
        refused.headers["Retry-After"] = str(RETRY_MS // 1000)  # as the stream's `retry:`
        raise PageAnswer(refused) from None
    return BoardStream(boards, watcher, state.settings.callback_stream_send_timeout_seconds)
