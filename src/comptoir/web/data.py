"""The back office's data views: customers and catalogs, read only (orders: `web.orders`).

Each page shows what the API returns, through the API's own rendering (orders as events
carry them: nobody's private refs), scoped to the signed-in user: a resource of an account
the user does not own is a 404 page, never a hint that it exists. Lists are keyset pages of
50 (`http.pagination`), so a page costs the same at the first order as at the millionth.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import orjson
from fastapi import APIRouter
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response

from comptoir.accounts import repository as accounts
from comptoir.catalogs import repository as catalogs
from comptoir.catalogs.content import EMPTY_DATA
from comptoir.catalogs.inventory import read_inventory
from comptoir.customer_lists import repository as customer_lists
from comptoir.customer_lists.service import ListInReach
from comptoir.customers import repository as customers
from comptoir.customers.service import cards_of, customer_in_list, render_customer
from comptoir.errors import BadRequest, NotFound
from comptoir.http.pagination import back_office_page
from comptoir.http.state import app_state
from comptoir.kit import ids
from comptoir.kit.pagination import PageRequest
from comptoir.locations import repository as locations
from comptoir.locations.service import locations_of_account
from comptoir.loyalty import repository as loyalty
from comptoir.loyalty.service import render_operation
from comptoir.models import (
    Account,
    Catalog,
    CustomerList,
    Location,
    User,
)
from comptoir.web.render import Visitor, not_found, page, visitor

router = APIRouter(include_in_schema=False)

PAGE_SIZE = 50
OPERATIONS_SHOWN = 50  # per loyalty card, newest first


def when(value: str | None) -> str:
    """An API time ("2026-06-24T17:07:53+02:00") as pages show it: "2026-06-24 17:07:53"."""
    return value[:19].replace("T", " ") if value else ""


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


# --- customers ----------------------------------------------------------------------------


async def _owner_and_location(
    db: AsyncSession, user: User, account_id: int, location_id: int | None, what: str
) -> tuple[Account, Location | None]:
    """The account (the user's, or a 404 page) and the location (None at account level) of
    a catalog or customer list."""
    account = await accounts.get(db, account_id)
    if account is None or account.owner_id != user.id:
        raise not_found(f"No {what} of yours has this id.")
    return account, await locations.get(db, location_id) if location_id is not None else None


async def _owned_list(db: AsyncSession, user: User, public_id: str) -> tuple[ListInReach, Account, Location | None]:
    """A customer list of one of the user's accounts (at location or account level) with its
    account and location, or a 404 page."""
    pk = ids.decode(CustomerList.KIND, public_id)
    found = await customer_lists.find_list(db, pk) if pk is not None else None
    if found is None:
        raise not_found("No customer list of yours has this id.")
    account, location = await _owner_and_location(
        db, user, found.row.account_id, found.row.location_id, "customer list"
    )
    return found, account, location


@router.get("/customer-lists/{list_id}")
async def customer_list_page(request: Request, list_id: str) -> Response:
    params = request.query_params
    q = params.get("q", "").strip()
    async with app_state(request).db.transaction(write=False) as db:
        you = await visitor(request, db)
        found, account, location = await _owned_list(db, you.user, list_id)
        context: dict[str, Any] = {
            "title": found.row.name,
            "you": you,
            "wide": True,
            "list_id": found.public_id,
            "q": q,
            "when": when,
            "account": account,
            "location": location,
        }
        try:
            wanted = _page_request(request, you)
        except BadRequest as exc:
            return page("bo_customers.html", 400, **context, customers=[], next_url=None, errors=[exc.message])
        rows, result = await customers.search_page(db, found.id, q, wanted)
        cards = await cards_of(db, [customer.id for customer in rows])
        shown = [render_customer(customer, found, None, cards[customer.id]) for customer in rows]
        return page(
            "bo_customers.html",
            **context,
            customers=[{**customer, "name": display_name(customer)} for customer in shown],
            next_url=_next_url(params, result.next_cursor),
        )


@router.get("/customer-lists/{list_id}/customers/{customer_id}")
async def customer_page(request: Request, list_id: str, customer_id: str) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        you = await visitor(request, db)
        found, account, location = await _owned_list(db, you.user, list_id)
        try:
            customer = await customer_in_list(db, found, customer_id)
        except NotFound:
            raise not_found("No customer of this list has this id.") from None
        cards = (await cards_of(db, [customer.id]))[customer.id]
        shown = render_customer(customer, found, None, cards)
        operations = {
            card.public_id: await loyalty.latest_operations(db, card.id, OPERATIONS_SHOWN + 1) for card in cards
        }
        places = await loyalty.location_ids(db, [op for ops in operations.values() for op in ops])
        name = display_name(shown) or ("Anonymised customer" if customer.anonymised else f"Customer {shown['id']}")
        return page(
            "bo_customer.html",
            title=name,
            you=you,
            wide=True,
            list_name=found.row.name,
            list_id=found.public_id,
            customer=shown,
            fields=[(label, shown[field]) for field, label in CUSTOMER_FIELDS if shown[field] not in (None, "")],
            cards=[
                {
                    **summary,
                    "operations": [
                        render_operation(op, found.timezone, places)
                        for op in operations[summary["id"]][:OPERATIONS_SHOWN]
                    ],
                    "more": len(operations[summary["id"]]) > OPERATIONS_SHOWN,
                }
                for summary in shown["loyalty_cards"]
            ],
            operations_shown=OPERATIONS_SHOWN,
            timezone=found.timezone,
            account=account,
            location=location,
            when=when,
        )


CUSTOMER_FIELDS = (
    ("email", "Email"), ("phone", "Phone"), ("company_name", "Company"), ("gender", "Gender"),
    ("birth_date", "Birth date"), ("address_1", "Address"), ("address_2", "Address (2)"),
    ("postal_code", "Postal code"), ("city", "City"), ("state", "State"), ("country", "Country"),
    ("delivery_notes", "Delivery notes"),
)  # fmt: skip


# --- catalogs -----------------------------------------------------------------------------


async def _owned_catalog(db: AsyncSession, user: User, public_id: str) -> tuple[Catalog, Account, Location | None]:
    """A catalog of one of the user's accounts (at location or account level) with its
    account and location, or a 404 page."""
    pk = ids.decode(Catalog.KIND, public_id)
    catalog = await catalogs.catalog_row(db, pk) if pk is not None else None
    if catalog is None:
        raise not_found("No catalog of yours has this id.")
    account, location = await _owner_and_location(db, user, catalog.account_id, catalog.location_id, "catalog")
    return catalog, account, location


def _category_tree(categories: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Categories (stored depth first, spec 2.4 rule 4) as nested nodes."""
    nodes = {c["id"]: {"name": c["name"], "ref": c["ref"], "children": []} for c in categories}
    roots: list[dict[str, Any]] = []
    for category in categories:
        parent = nodes.get(category["parent_id"])
        (parent["children"] if parent else roots).append(nodes[category["id"]])
    return roots


def _stock(entries: dict[tuple[str, str], dict[str, Any]], kind: str, ref: str | None) -> str:
    entry = entries.get((kind, ref)) if ref is not None else None
    if entry is None:
        return "not tracked"
    back = f" (back at {when(entry['expires_at'])})" if entry["expires_at"] else ""
    return f"{entry['stock']}{back}"


@router.get("/catalogs/{catalog_id}")
async def catalog_page(request: Request, catalog_id: str) -> Response:
    """The catalog's content as `GET /catalogs/:id` reads it, with the stock of each sku and
    option at one location: the catalog's own, or for an account-level catalog the one
    chosen among the account's (`?location=`, default the first)."""
    async with app_state(request).db.transaction(write=False) as db:
        you = await visitor(request, db)
        catalog, account, location = await _owned_catalog(db, you.user, catalog_id)
        if location is not None:
            places = [location]
        else:
            places = await locations_of_account(db, account)
            asked = request.query_params.get("location")
            location = next((place for place in places if place.public_id == asked), places[0] if places else None)
        stored = await catalogs.stored_data(db, catalog.id)
        data = orjson.loads(stored or EMPTY_DATA)  # the stored read shape (catalogs.service)
        entries = await read_inventory(db, catalog, location) if location is not None else []
    stock = {("sku" if e["sku_ref"] else "option", e["sku_ref"] or e["option_ref"]): e for e in entries}
    categories = {c["id"]: c["name"] for c in data["categories"]}
    option_lists = {o["id"]: o["name"] for o in data["option_lists"]}
    products = [
        {
            **product,
            "category": categories.get(product["category_id"], ""),
            "skus": [
                {
                    **sku,
                    "stock": _stock(stock, "sku", sku["ref"]),
                    "option_lists": [option_lists[i] for i in sku["option_list_ids"] if i in option_lists],
                }
                for sku in product["skus"]
            ],
        }
        for product in data["products"]
    ]
    lists = [
        {**o, "options": [{**opt, "stock": _stock(stock, "option", opt["ref"])} for opt in o["options"]]}
        for o in data["option_lists"]
    ]
    return page(
        "bo_catalog.html",
        title=catalog.name,
        you=you,
        wide=True,
        catalog_id=catalog.public_id,
        account=account,
        location=location,
        at_account_level=catalog.location_id is None,
        places=places,
        data=data,
        tree=_category_tree(data["categories"]),
        categories=categories,
        products=products,
        option_lists=lists,
        when=when,
    )
