"""The back office's order views, read only (customers and catalogs: `web.customers`, `web.catalogs`).

Each page shows what the API returns, through the API's own rendering (orders as events
carry them: nobody's private refs), scoped to the signed-in user: a resource of an account
the user does not own is a 404 page, never a hint that it exists. Lists are keyset pages of
50 (`http.pagination`), so a page costs the same at the first order as at the millionth.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response

from comptoir.db.unit import Unit
from comptoir.deliveries.service import list_quotes
from comptoir.errors import BadRequest, NotFound
from comptoir.http.pagination import back_office_page
from comptoir.http.state import app_state
from comptoir.kit.pagination import PageRequest
from comptoir.kit.times import parse_date
from comptoir.kit.wire import WireError
from comptoir.models import (
    Change,
)
from comptoir.orders import service as orders
from comptoir.orders.repository import OrderRepository
from comptoir.orders.schemas import STATUSES
from comptoir.web import words
from comptoir.web.pages import owned_location
from comptoir.web.render import Visitor, local_time, not_found, page, visitor

router = APIRouter(include_in_schema=False)

PAGE_SIZE = 50
OPERATIONS_SHOWN = 50  # per loyalty card, newest first


def when(value: str | datetime | None, timezone: str | None = None) -> str:
    """An API time ("2026-06-24T17:07:53+02:00") as every page shows a time
    (`words.local_time`): "24 Jun 2026, 17:07 CEST" in `timezone` (the location's), else in
    the time's own offset ("UTC+02:00")."""
    return words.when(value, timezone)


def display_name(person: dict[str, Any] | None) -> str:
    """A customer (or an order's customer snapshot) as a line of text."""
    if not person:
        return ""
    name = " ".join(part for part in (person.get("first_name"), person.get("last_name")) if part)
    return name or person.get("company_name") or person.get("email") or person.get("phone") or ""


def _page_request(request: Request, you: Visitor) -> PageRequest:
    """50 per page; BadRequest for a cursor this page did not give to this user and session."""
    return back_office_page(
        request,
        you.key,
        PAGE_SIZE,
        [you.user.id, you.session.sid],
        "Next: this link is broken or out of date; start again from the first page",
    )


def _next_url(params: QueryParams, cursor: str | None) -> str | None:
    if cursor is None:
        return None
    kept = [(name, value) for name, value in params.multi_items() if name != "cursor" and value]
    return "?" + urlencode([*kept, ("cursor", cursor)])


# --- orders -------------------------------------------------------------------------------


def _day(name: str, value: str) -> date | None:
    try:
        return parse_date(value) if value else None
    except WireError as exc:
        raise BadRequest(f"{name.capitalize()}: {exc}") from None


def _order_filters(status: str, start: str, end: str) -> dict[str, Any]:
    """The API list's filters, checked by it (`orders.service.order_filters`); the form's
    days are inclusive, in the location's timezone."""
    filters = orders.order_filters(str.capitalize, status=status or None)
    first, last = _day("from", start), _day("to", end)
    if first is not None and last is not None and first > last:
        raise BadRequest("From: must not be after To")
    filters["after"] = datetime.combine(first, time()) if first is not None else None
    filters["before"] = datetime.combine(last + timedelta(days=1), time()) if last is not None else None
    return filters


@router.get("/locations/{location_id}/orders")
async def orders_page(request: Request, location_id: str) -> Response:
    params = request.query_params
    chosen = {"status": params.get("status", ""), "from": params.get("from", ""), "to": params.get("to", "")}
    async with app_state(request).db.transaction(write=False) as db:
        you = await visitor(request, db)
        location, account = await owned_location(db, you.user, location_id)
        context: dict[str, Any] = {
            "title": f"Orders · {location.name}",
            "you": you,
            "wide": True,
            "location": location,
            "account": account,
            "statuses": STATUSES,
            "chosen": chosen,
            "when": when,
        }
        try:
            filters = _order_filters(chosen["status"], chosen["from"], chosen["to"])
            wanted = _page_request(request, you)
        except BadRequest as exc:
            return page("bo_orders.html", 400, **context, orders=[], next_url=None, errors=[exc.message])
        # the API's list, as a reader without private refs
        shown, result = await orders.list_orders(
            OrderRepository(Unit.of(db)), None, wanted, filters, locations={location.id: location}
        )
        return page(
            "bo_orders.html",
            **context,
            orders=[{**order, "customer_name": display_name(order["customer"])} for order in shown],
            next_url=_next_url(params, result.next_cursor),
        )


def _history(history: list[tuple[Change, str | None]], timezone: str) -> list[dict[str, Any]]:
    """The order's changes and its delivery's, oldest first, with the application that
    caused each (none: Comptoir itself or the back office)."""
    return [
        {
            "at": local_time(change.created_at, timezone, seconds=True),
            "event": f"{change.resource_type}.{change.event_type}",
            "by": client or "Comptoir",
            "what": _what_changed(change),
        }
        for change, client in history
    ]


def _what_changed(change: Change) -> str:
    new, previous = change.new_state or {}, change.previous_state or {}
    if change.event_type == "create":
        return f"status {new.get('status')}"
    changed = [name for name in new if new.get(name) != previous.get(name)]
    if not changed:  # an order.update with the same order: a delivery quote was created or accepted
        return "delivery quotes"
    return ", ".join(
        f"status {previous.get('status')} → {new.get('status')}" if name == "status" else name for name in changed
    )


@router.get("/locations/{location_id}/orders/{order_id}")
async def order_page(request: Request, location_id: str, order_id: str) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        you = await visitor(request, db)
        location, account = await owned_location(db, you.user, location_id)
        try:  # the API's read shape, nobody's private refs
            order, shown, history = await orders.order_file(OrderRepository(Unit.of(db)), location, order_id)
        except NotFound:
            raise not_found("No order of this location has this id.") from None
        return page(
            "bo_order.html",
            title=f"Order {order.public_id}",
            you=you,
            wide=True,
            location=location,
            account=account,
            order=shown,
            customer_name=display_name(shown["customer"]),
            quotes=await list_quotes(db, location, order),
            history=_history(history, location.timezone),
            when=when,
        )
