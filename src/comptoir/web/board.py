"""The live board of a location, for a counter tablet (docs/back-office.md "Orders"): today's
open orders, newest first, each with its workflow buttons and its time to the expected time.

The page and the part its script fetches every few seconds (`/today/orders`) are the same
read as the order lists (`orders.service.list_orders`, filtered on today in the location's
time zone and the open statuses): the script swaps the part in, beeps and notifies when an
order it had not seen appears. Without JavaScript the page has a refresh link.
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
from comptoir.errors import BadRequest
from comptoir.http.cursors import back_office_page
from comptoir.http.state import app_state
from comptoir.kit import clock
from comptoir.kit.times import zone
from comptoir.models import Account, Location
from comptoir.orders import service as orders
from comptoir.orders import workflow
from comptoir.orders.repository import OrderRepository
from comptoir.web import words
from comptoir.web.data import display_name
from comptoir.web.orders import moves, tag_of
from comptoir.web.pages import owned_location
from comptoir.web.render import PageAnswer, Person, Visitor, crumbs, page, redirect

router = APIRouter(include_in_schema=False)

BOARD_SIZE = 200  # open orders shown; more: the list has them all
POLL_SECONDS = 1.5  # a new order shows within 2 s
BOARD_SCRIPT = (Path(__file__).parent / "templates" / "board.js").read_text()


def due_words(minutes: int) -> str:
    """The time left to an order's expected time, as the board says it."""
    if minutes > 0:
        return f"due in {minutes} min"
    if minutes == 0:
        return "due now"
    return f"late by {-minutes} min"


def _ticket(order: dict[str, Any], location: Location, now: datetime) -> dict[str, Any]:
    """An order as a ticket of the board, its words computed once here (a board holds up to
    200): its label, status, summary line, item lines, moves, and when it is due (its
    expected time, else its creation plus the preparation time)."""
    created = datetime.fromisoformat(order["created_at"])
    expected = order["expected_time"]
    due = datetime.fromisoformat(expected) if expected else created + timedelta(minutes=location.preparation_time)
    minutes = int((due - now).total_seconds() // 60)
    customer = display_name(order["customer"])
    summary = [words.when(created, location.timezone)]
    if order["service_type"]:
        summary.append(words.service_type_words(order["service_type"]))
    if customer:
        summary.append(customer)
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
        "moves": moves(order["status"], order["service_type"]),
        "due_ms": int(due.timestamp() * 1000),
        "due_words": due_words(minutes),
        "late": minutes < 0,
    }


async def _board(
    request: Request, you: Visitor, location: Location, account: Account, db: AsyncSession
) -> dict[str, Any]:
    """What the board and its part show: today's open orders, read as the lists read them."""
    now = clock.now()
    today = now.astimezone(zone(location.timezone)).date()
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
        "tickets": [_ticket(order, location, now) for order in shown],
        "more": result.next_cursor is not None,
        "now": now,
    }


@router.get("/locations/{location_id}/today")
async def board_page(request: Request, you: Person, location_id: str) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        location, account = await owned_location(db, you.user, location_id)
        board = await _board(request, you, location, account, db)
    return page(
        "bo_board.html",
        title=f"Today · {location.name}",
        crumbs=crumbs(account, location),
        poll_ms=int(POLL_SECONDS * 1000),
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
