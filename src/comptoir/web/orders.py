"""The back office's orders: a location's list, an account's list (every location), an order's
page, and the buttons that move an order along the workflow (`orders.workflow`,
docs/back-office.md "Orders").

Lists are the API's read (`orders.service.list_orders`), as a reader without private refs,
keyset pages of 50 (`http.cursors`). A move is the API's update (`orders.workflow.move`,
then `orders.service.update_order` caused by no client): connected applications get the same
`order.update` as after a PATCH. A refused move (not allowed from the current status, a
stale form, a bad value) shows the order as it stands with the reason, changing nothing.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from fastapi import APIRouter
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

from comptoir.db.unit import Unit
from comptoir.deliveries.service import list_quotes
from comptoir.errors import BadRequest, Conflict, NotFound, StaleForm
from comptoir.http.state import app_state
from comptoir.kit.times import parse_date
from comptoir.kit.wire import WireError
from comptoir.locations.service import locations_of_account
from comptoir.models import Account, Change, Location
from comptoir.orders import service as orders
from comptoir.orders import workflow
from comptoir.orders.repository import OrderRepository
from comptoir.orders.schemas import STATUSES
from comptoir.web import words
from comptoir.web.data import display_name, next_page_url, page_request
from comptoir.web.pages import owned_account, owned_location
from comptoir.web.render import PageAnswer, Person, Visitor, crumbs, not_found, page, redirect, templates, text

router = APIRouter(include_in_schema=False)


# The words of each move's button (the moves themselves: `orders.workflow`).
BUTTONS = {
    "accepted": "Accept",
    "rejected": "Reject",
    "in_preparation": "Start preparing",
    "awaiting_collection": "Ready for collection",
    "awaiting_shipment": "Ready to ship",
    "in_delivery": "Out for delivery",
    "completed": "Complete",
    "cancelled": "Cancel order",
    "delivery_failed": "Delivery failed",
    "received": "Received",
    "new": "New",
}


# A move to one of the workflow's endings is asked once more (docs/back-office.md
# "Confirmations"): the question, the confirming button, and what it ends.
ASKED = {
    "rejected": ("Reject order {}?", "Yes, reject it", "The order is refused and leaves the board; {} is told."),
    "cancelled": ("Cancel order {}?", "Yes, cancel it", "The order is cancelled and leaves the board; {} is told."),
    "delivery_failed": (
        "Mark order {} as not delivered?",
        "Yes, delivery failed",
        "The order ends undelivered and leaves the board; {} is told.",
    ),
}


def tag_of(status: str) -> str:
    """The colour of a status's tag: to act on, under way, done, or failed."""
    if status in workflow.ENDINGS:
        return "tag-bad"
    if status == "completed":
        return "tag-ok"
    return "tag-warn" if status in ("new", "received") else "tag-info"


templates.globals["tag_of"] = tag_of


def moves(status: str, service_type: str | None) -> list[tuple[str, str]]:
    """(status, button words) of each move the workflow allows from `status`."""
    return [(to, BUTTONS[to]) for to in workflow.next_statuses(status, service_type)]


# --- lists --------------------------------------------------------------------------------


def _day(name: str, value: str) -> date | None:
    try:
        return parse_date(value) if value else None
    except WireError as exc:
        raise BadRequest(f"{name.capitalize()}: {exc}") from None


def _order_filters(status: str, start: str, end: str, timezone: str | None = None) -> dict[str, Any]:
    """The API list's filters, checked by it (`orders.service.order_filters`); the form's
    days are inclusive, read in `timezone` (None: the location's, as the API reads them)."""
    first, last = _day("from", start), _day("to", end)
    if first is not None and last is not None and first > last:
        raise BadRequest("From: must not be after To")
    zone = ZoneInfo(timezone) if timezone is not None else None
    return orders.order_filters(
        str.capitalize,
        status=status or None,
        after=datetime.combine(first, time(), zone) if first is not None else None,
        before=datetime.combine(last + timedelta(days=1), time(), zone) if last is not None else None,
    )


def _rows(shown: list[dict[str, Any]], places: list[Location]) -> list[dict[str, Any]]:
    """The listed orders with what a row shows besides the read: its link, the customer's
    name and phone, its location's name and time zone."""
    by_id = {place.public_id: place for place in places}
    rows = []
    for order in shown:
        place = by_id[order["location_id"]]
        customer = order["customer"] or {}
        rows.append(
            {
                **order,
                "url": f"/locations/{place.public_id}/orders/{order['id']}",
                "zone": place.timezone,
                "location_name": place.name,
                "customer_name": display_name(customer),
                "phone": customer.get("phone"),
            }
        )
    return rows


def _chosen(request: Request, *names: str) -> dict[str, str]:
    return {name: request.query_params.get(name, "") for name in ("status", "from", "to", *names)}


@router.get("/locations/{location_id}/orders")
async def orders_page(request: Request, you: Person, location_id: str) -> Response:
    chosen = _chosen(request)
    async with app_state(request).db.transaction(write=False) as db:
        location, account = await owned_location(db, you.user, location_id)
        context: dict[str, Any] = {
            "title": f"Orders · {location.name}",
            "you": you,
            "crumbs": crumbs(account, location),
            "location": location,
            "account": account,
            "statuses": STATUSES,
            "chosen": chosen,
            "filtered": any(chosen.values()),
            "api_url": str(request.base_url).rstrip("/"),
        }
        try:
            filters = _order_filters(chosen["status"], chosen["from"], chosen["to"])
            wanted = page_request(request, you)
        except BadRequest as exc:
            return page("bo_orders.html", 400, **context, orders=[], next_url=None, errors=[exc.message])
        shown, result = await orders.list_orders(
            OrderRepository(Unit.of(db)), None, wanted, filters, locations={location.id: location}
        )
        return page(
            "bo_orders.html",
            **context,
            orders=_rows(shown, [location]),
            next_url=next_page_url(request.query_params, result.next_cursor),
        )


@router.get("/accounts/{account_id}/orders")
async def account_orders_page(request: Request, you: Person, account_id: str) -> Response:
    """Every location's orders, newest first, with a Location column; filtered by status,
    days and location. Days are read in the chosen location's time zone, else in the one
    zone of the account's locations, else in UTC (docs/back-office.md "Orders")."""
    chosen = _chosen(request, "location")
    async with app_state(request).db.transaction(write=False) as db:
        account = await owned_account(db, you.user, account_id)
        places = await locations_of_account(db, account)
        place = next((p for p in places if p.public_id == chosen["location"]), None)
        zones = {p.timezone for p in places}
        timezone = place.timezone if place is not None else zones.pop() if len(zones) == 1 else "UTC"
        context: dict[str, Any] = {
            "title": f"Orders · {account.name}",
            "you": you,
            "crumbs": crumbs(account),
            "account": account,
            "places": places,
            "names": {p.public_id: p.name for p in places},
            "timezone": timezone,
            "statuses": STATUSES,
            "chosen": chosen,
            "filtered": any(chosen.values()),
            "api_url": str(request.base_url).rstrip("/"),
        }
        try:
            if chosen["location"] and place is None:
                raise BadRequest("Location: choose one of the account's locations")
            filters = _order_filters(chosen["status"], chosen["from"], chosen["to"], timezone)
            wanted = page_request(request, you)
        except BadRequest as exc:
            return page("bo_account_orders.html", 400, **context, orders=[], next_url=None, errors=[exc.message])
        repository = OrderRepository(Unit.of(db))
        if place is not None:
            shown, result = await orders.list_orders(repository, None, wanted, filters, locations={place.id: place})
        else:
            shown, result = await orders.list_orders(
                repository, None, wanted, filters, locations={p.id: p for p in places}, account_id=account.id
            )
        return page(
            "bo_account_orders.html",
            **context,
            orders=_rows(shown, places),
            next_url=next_page_url(request.query_params, result.next_cursor),
        )


# --- an order -----------------------------------------------------------------------------


def _history(history: list[tuple[Change, str | None, str | None]]) -> list[dict[str, Any]]:
    """The order's changes and its delivery's, oldest first, in words: what happened and who
    did it (the person signed in to the back office, else the application, else Comptoir
    itself), what changed, and the event connected applications received."""
    return [
        {
            "at": change.created_at,
            "what": f"{_what_happened(change)} by {person or client or 'Comptoir'}",
            "details": _what_changed(change),
            "event": f"{change.resource_type}.{change.event_type}",
        }
        for change, client, person in history
    ]


def _changed(change: Change) -> list[str]:
    new, previous = change.new_state or {}, change.previous_state or {}
    return [name for name in new if new.get(name) != previous.get(name)]


def _what_happened(change: Change) -> str:
    new = change.new_state or {}
    if change.resource_type == "delivery":
        return "Delivery booked" if change.event_type == "create" else "Delivery updated"
    if change.event_type == "create":
        return "Created"
    changed = _changed(change)
    if "status" in changed:
        return words.status_done(new.get("status"))
    if not changed:  # an order.update with the same order: a delivery quote was created or accepted
        return "Delivery quotes changed"
    return f"{_field_words(changed).capitalize()} changed"


def _field_words(names: list[str]) -> str:
    return ", ".join(name.replace("_", " ") for name in names)


def _what_changed(change: Change) -> str:
    new, previous = change.new_state or {}, change.previous_state or {}
    if change.event_type == "create":
        return f"Status {words.status_words(new.get('status'))}"
    changed = _changed(change)
    parts = []
    if "status" in changed:
        parts.append(f"{words.status_words(previous.get('status'))} → {words.status_words(new.get('status'))}")
    others = [name for name in changed if name != "status"]
    if others and parts:
        parts.append(f"also {_field_words(others)}")
    return "; ".join(parts)


async def _order_view(
    db: AsyncSession,
    you: Visitor,
    location: Location,
    account: Account,
    order_id: str,
    status: int = 200,
    error: str | None = None,
) -> Response:
    try:  # the API's read shape, nobody's private refs
        order, shown, history = await orders.order_file(OrderRepository(Unit.of(db)), location, order_id)
    except NotFound:
        raise not_found("No order of this location has this id.") from None
    return page(
        "bo_order.html",
        status,
        title=f"Order {order.public_id}",
        you=you,
        crumbs=crumbs(account, location, ("Orders", f"/locations/{location.public_id}/orders")),
        location=location,
        account=account,
        order=shown,
        moves=moves(order.status, shown["service_type"]),
        endings=workflow.ENDINGS,
        customer_name=display_name(shown["customer"]),
        quotes=await list_quotes(db, location, order),
        history=_history(history),
        tz=you.zone(location.timezone),
        errors=[error] if error else [],
    )


@router.get("/locations/{location_id}/orders/{order_id}")
async def order_page(request: Request, you: Person, location_id: str, order_id: str) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        location, account = await owned_location(db, you.user, location_id)
        return await _order_view(db, you, location, account, order_id)


def _refusal(exc: BadRequest | Conflict) -> str:
    said = words.status_words
    if isinstance(exc, StaleForm):
        return (
            f"This order changed since the page showed it; it is now “{said(exc.current)}”."
            " Nothing was changed: look again and choose."
        )
    if isinstance(exc, workflow.TooLate):
        return (
            f"A completion can be undone only within {workflow.UNDO_SECONDS} seconds: the order stays completed."
            " Nothing was changed."
        )
    if isinstance(exc, workflow.NotAllowed):
        return f"An order that is “{said(exc.current)}” cannot become “{said(exc.asked)}”. Nothing was changed."
    return f"{exc.message}. Nothing was changed."


@router.post("/locations/{location_id}/orders/{order_id}/status")
async def move_order(request: Request, you: Person, location_id: str, order_id: str) -> Response:
    """One button of the workflow: the form's `status`, `seen` (the status it showed) and
    `back` ("board": the live board, else the order's page); with `undo=yes`, the undo of a
    completion, back to `status`. A completion from the board comes back to it with the
    order's undo offered (`board.undo_offer`)."""
    form = await request.form()
    asked = text(form, "status")
    undo = text(form, "undo") == "yes"
    if asked in workflow.ENDINGS and text(form, "confirmed") != "yes" and not undo:
        return await _confirm_move(request, you, form, location_id, order_id, asked)
    async with app_state(request).db.transaction() as db:
        you.check(form)
        location, account = await owned_location(db, you.user, location_id)
        try:
            seen = text(form, "seen")
            repository = OrderRepository(Unit.of(db))
            if undo:
                await workflow.undo_completion(repository, location, order_id, asked, you.user.id)
            else:
                await workflow.move(repository, location, order_id, asked, seen, you.user.id)
        except NotFound:
            raise not_found("No order of this location has this id.") from None
        except (BadRequest, Conflict) as exc:
            refused: tuple[int, str] | None = (exc.status, _refusal(exc))
        else:
            refused = None
        if refused is not None:  # rolled back (`PageAnswer`): the order as it stands, and why
            raise PageAnswer(await _order_view(db, you, location, account, order_id, *refused))
    if text(form, "back") == "board":
        board = f"/locations/{location.public_id}/today"
        if asked == "completed" and not undo:
            return redirect(f"{board}?{urlencode({'completed': order_id, 'from': text(form, 'seen')})}")
        return redirect(board)
    return redirect(f"/locations/{location.public_id}/orders/{order_id}")


async def _confirm_move(
    request: Request, you: Visitor, form: FormData, location_id: str, order_id: str, asked: str
) -> Response:
    """A move to an ending, not yet confirmed: the page that asks, changing nothing. Its
    button posts the same form with `confirmed=yes`, checked then as any move."""
    async with app_state(request).db.transaction(write=False) as db:
        you.check(form)
        location, account = await owned_location(db, you.user, location_id)
        try:
            order, shown, _ = await orders.order_file(OrderRepository(Unit.of(db)), location, order_id)
        except NotFound:
            raise not_found("No order of this location has this id.") from None
    label = shown["ref"] or order.public_id
    question, yes, consequence = ASKED[asked]
    to_board = text(form, "back") == "board"
    here = f"/locations/{location.public_id}"
    facts = [f"Order {label}, {words.status_words(order.status).lower()}, {shown['total']}"]
    if customer := display_name(shown["customer"]):
        facts[0] += f", for {customer}"
    if shown["channel"]:
        facts[0] += f", from {shown['channel']}"
    return page(
        "bo_confirm.html",
        title=question.format(label),
        you=you,
        crumbs=crumbs(account, location, ("Orders", f"{here}/orders")),
        facts=facts,
        consequence=consequence.format(f"“{shown['channel']}”" if shown["channel"] else "every connected application"),
        action=f"{here}/orders/{order.public_id}/status",
        fields=[("status", asked), ("seen", text(form, "seen")), ("back", text(form, "back"))],
        confirm_words=yes,
        back_url=f"{here}/today" if to_board else f"{here}/orders/{order.public_id}",
        back_words="No, keep it",
    )
