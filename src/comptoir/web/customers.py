"""The back office's customers (docs/back-office.md "Stock, catalogs and customers"): the
customer lists of a location or an account with a form creating one, a list's customers
filtered by name, email and phone a keyset page at a time, and a customer's page with the
form editing them.

A list of an account the signed-in user does not own is a 404 page. Creating a list and
editing a customer go through `customer_lists.service` and `customers.service` as the API
does: the same rules and messages, the same `customer_list.create` and `customer.update`
events (caused by no client).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from fastapi import APIRouter
from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

from comptoir.customer_lists import repository as customer_lists
from comptoir.customer_lists.service import ListInReach, create_list, lists_by_name
from comptoir.customers.schemas import CustomerFilters, CustomerWrite
from comptoir.customers.service import (
    cards_of,
    customer_in_list,
    render_customer,
    search_customers,
    update_in_list,
    version_of,
)
from comptoir.errors import BadRequest, NotFound, StaleForm, Unprocessable
from comptoir.http.state import app_state
from comptoir.kit import ids
from comptoir.kit.codes import countries
from comptoir.kit.patterns import MAX_PATTERN, is_range
from comptoir.kit.phone import phone_pattern
from comptoir.loyalty import repository as loyalty
from comptoir.loyalty.service import render_operation
from comptoir.models import Account, CustomerList, Location, User
from comptoir.web.data import display_name, next_page_url, page_request
from comptoir.web.render import (
    PageAnswer,
    Person,
    Problem,
    Visitor,
    crumbs,
    not_found,
    not_yours,
    page,
    problems,
    redirect,
    text,
)
from comptoir.web.shelves import Shelf, mount, owner_and_location

router = APIRouter(include_in_schema=False)

OPERATIONS_SHOWN = 50  # per loyalty card, newest first
MAX_NAME_FILTER = 255


async def owned_list(db: AsyncSession, user: User, public_id: str) -> tuple[ListInReach, Account, Location | None]:
    """A customer list of one of the user's accounts (at location or account level) with its
    account and location, or a 404 page."""
    pk = ids.decode(CustomerList.KIND, public_id)
    found = await customer_lists.find_list(db, pk) if pk is not None else None
    if found is None:
        raise not_yours("customer list")
    account, location = await owner_and_location(db, user, found.row.account_id, found.row.location_id, "customer list")
    return found, account, location


async def _new_list(db: AsyncSession, account: Account, location: Location | None, name: str) -> str:
    found = await create_list(db, None, account=account, location=location, name=name)
    return found.public_id


CUSTOMER_LISTS = Shelf(
    noun="customer list",
    plural="Customer lists",
    location_path="customers",
    account_path="customer-lists",
    item_path="/customer-lists",
    empty="customers are added by a connected application or through the API.",
    by_name=lists_by_name,
    create=_new_list,
)

mount(router, CUSTOMER_LISTS)


# --- a list's customers ---------------------------------------------------------------------


def _pattern(value: str) -> str:
    """A filter as the API's pattern: what is typed starts the value, unless it holds `*`."""
    return value if "*" in value else value + "*"


def _filters(chosen: dict[str, str]) -> tuple[CustomerFilters, list[Problem]]:
    """The API's `email` and `phone` filters (`CustomerFilters`), and the name's length."""
    errors = []
    if len(chosen["name"]) > MAX_NAME_FILTER:
        errors.append(Problem("name", f"Name: must be at most {MAX_NAME_FILTER} characters"))
    given: dict[str, str | None] = {"email": None, "phone": None}
    for field in given:
        value = chosen[field]
        if not value:
            continue
        pattern = _pattern((phone_pattern(value) or value) if field == "phone" else value)
        try:
            CustomerFilters(**{field: pattern})
        except BadRequest:
            errors.append(Problem(field, f"{field.capitalize()}: must be at most {MAX_PATTERN - 1} characters"))
            continue
        given[field] = pattern
    return CustomerFilters(email=given["email"], phone=given["phone"]), errors


def day_of(value: str) -> str:
    """An API time's day, in the time's own offset (the list's timezone): "24 Jun 2026"."""
    at = datetime.fromisoformat(value)
    return f"{at.day} {at:%b %Y}"


def _order_words(filters: CustomerFilters) -> str:
    """How `customers.repository.search_page` orders the page."""
    if filters.email is not None and is_range(filters.email):
        return "By email."
    if filters.phone is not None and is_range(filters.phone):
        return "By phone."
    return "Newest first."


@router.get("/customer-lists/{list_id}")
async def customer_list_page(request: Request, you: Person, list_id: str) -> Response:
    params = request.query_params
    chosen = {name: params.get(name, "").strip() for name in ("name", "email", "phone")}
    async with app_state(request).db.transaction(write=False) as db:
        found, account, location = await owned_list(db, you.user, list_id)
        context: dict[str, Any] = {
            "title": found.row.name,
            "you": you,
            "crumbs": crumbs(account, location, ("Customer lists", CUSTOMER_LISTS.url(account, location))),
            "list_id": found.public_id,
            "chosen": chosen,
            "filtered": any(chosen.values()),
            "account": account,
            "location": location,
        }
        filters, errors = _filters(chosen)
        try:
            wanted = page_request(request, you)
        except BadRequest as exc:
            errors.append(Problem(None, exc.message))
        if errors:
            return page("bo_customers.html", 400, **context, customers=[], next_url=None, errors=errors)
        shown, result = await search_customers(db, found, chosen["name"], filters, wanted)
        return page(
            "bo_customers.html",
            **context,
            order=_order_words(filters),
            customers=[
                {**customer, "name": display_name(customer), "since": day_of(customer["created_at"])}
                for customer in shown
            ],
            next_url=next_page_url(params, result.next_cursor),
        )


# --- a customer -----------------------------------------------------------------------------

# The form's fields, in order: (field, label, input type); the API's names.
EDITED = (
    ("first_name", "First name", "text"), ("last_name", "Last name", "text"),
    ("company_name", "Company", "text"), ("email", "Email", "email"), ("phone", "Phone", "tel"),
    ("birth_date", "Birth date", "date"), ("gender", "Gender", "select"),
    ("address_1", "Address", "text"), ("address_2", "Address (2)", "text"),
    ("postal_code", "Postal code", "text"), ("city", "City", "text"), ("state", "State", "text"),
    ("country", "Country", "country"), ("delivery_notes", "Delivery notes", "textarea"),
)  # fmt: skip
CONSENTS = (("sms_marketing", "Marketing by SMS"), ("email_marketing", "Marketing by email"))
FIELDS = {name: name for name, _, _ in EDITED} | {name: name for name, _ in CONSENTS}
LABELS = {name: label for name, label, _ in EDITED} | dict(CONSENTS)
SHOWN = (
    ("email", "Email"), ("phone", "Phone"), ("company_name", "Company"), ("gender", "Gender"),
    ("birth_date", "Birth date"), ("address_1", "Address"), ("address_2", "Address (2)"),
    ("postal_code", "Postal code"), ("city", "City"), ("state", "State"), ("country", "Country"),
    ("delivery_notes", "Delivery notes"),
)  # fmt: skip


def _written(form: FormData) -> dict[str, Any]:
    """The form as the API's PATCH body: every field sent, an empty one as null."""
    body: dict[str, Any] = {name: text(form, name) or None for name, _, _ in EDITED}
    body |= {name: form.get(name) == "yes" for name, _ in CONSENTS}
    return body


def _form_of(customer: dict[str, Any]) -> dict[str, Any]:
    return {name: customer[name] or "" for name, _, _ in EDITED} | {name: customer[name] for name, _ in CONSENTS}


async def _customer_view(
    db: AsyncSession,
    you: Visitor,
    found: ListInReach,
    account: Account,
    location: Location | None,
    customer_id: str,
    *,
    form: dict[str, Any] | None = None,
    seen: str | None = None,
    errors: Sequence[Problem | str] = (),
    status: int = 400,
    saved: bool = False,
) -> Response:
    """The customer's page; with `form` (what was written), `seen` (the version the form
    showed) and `errors`, the refused form answered with `status`."""
    try:
        customer = await customer_in_list(db, found, customer_id)
    except NotFound:
        raise not_found("No customer of this list has this id.") from None
    cards = (await cards_of(db, [customer.id]))[customer.id]
    shown = render_customer(customer, found, None, cards)
    operations = {card.public_id: await loyalty.latest_operations(db, card.id, OPERATIONS_SHOWN + 1) for card in cards}
    places = await loyalty.location_ids(db, [op for ops in operations.values() for op in ops])
    name = display_name(shown) or ("Anonymised customer" if customer.anonymised else f"Customer {shown['id']}")
    return page(
        "bo_customer.html",
        status if errors else 200,
        title=name,
        you=you,
        crumbs=[
            *crumbs(account, location),
            ("Customer lists", CUSTOMER_LISTS.url(account, location)),
            (found.row.name, f"/customer-lists/{found.public_id}"),
        ],
        list_id=found.public_id,
        customer=shown,
        fields=[(label, shown[field]) for field, label in SHOWN if shown[field] not in (None, "")],
        edited=EDITED,
        consents=CONSENTS,
        form=form or _form_of(shown),
        seen=seen if seen is not None else version_of(customer),
        stale=status == STALE,
        countries=countries(),
        saved=saved,
        cards=[
            {
                **summary,
                "operations": [
                    render_operation(op, found.timezone, places) for op in operations[summary["id"]][:OPERATIONS_SHOWN]
                ],
                "more": len(operations[summary["id"]]) > OPERATIONS_SHOWN,
            }
            for summary in shown["loyalty_cards"]
        ],
        operations_shown=OPERATIONS_SHOWN,
        timezone=found.timezone,
        account=account,
        location=location,
        errors=list(errors),
    )


@router.get("/customer-lists/{list_id}/customers/{customer_id}")
async def customer_page(request: Request, you: Person, list_id: str, customer_id: str) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        found, account, location = await owned_list(db, you.user, list_id)
        saved = request.query_params.get("saved") == "1"
        return await _customer_view(db, you, found, account, location, customer_id, saved=saved)


STALE = StaleForm.status
CHANGED = (
    "This customer changed since this page showed it. Nothing was changed: reload the page to see"
    " the customer as they are now, then make your changes again."
)


@router.post("/customer-lists/{list_id}/customers/{customer_id}")
async def save_customer(request: Request, you: Person, list_id: str, customer_id: str) -> Response:
    """The API's PATCH (`customers.service.update_in_list`): every error named at once,
    beside its field; `customer.update` when something changed. The form's `seen` is the
    version its page showed: a customer changed since (through the API, another page) is
    refused (409), so that the form never writes back what it showed over a newer value."""
    form = await request.form()
    written, seen = _written(form), text(form, "seen")
    status, errors = 400, []
    async with app_state(request).db.transaction() as db:
        you.check(form)
        found, account, location = await owned_list(db, you.user, list_id)
        try:
            await update_in_list(db, None, found, customer_id, CustomerWrite.model_validate(written), seen=seen)
        except NotFound:
            raise not_found("No customer of this list has this id.") from None
        except StaleForm:
            status, errors = STALE, [Problem(None, CHANGED)]
        except (Unprocessable, ValidationError) as exc:
            status, errors = 400, problems(exc, FIELDS, labels=LABELS)
        if errors:  # rolled back (`PageAnswer`): the form as written, beside the customer as they stand
            shown = {name: "" if value is None else value for name, value in written.items()}
            answer = await _customer_view(
                db, you, found, account, location, customer_id, form=shown, seen=seen, errors=errors, status=status
            )
            raise PageAnswer(answer) from None
    return redirect(f"/customer-lists/{found.public_id}/customers/{customer_id}?saved=1")
