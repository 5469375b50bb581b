"""The back office's catalogs (docs/back-office.md "Stock, catalogs and customers"): the
catalogs of a location or an account with a form creating one, and a catalog's page, its
products a page at a time with the stock of each at one location in words; the forms that
change that stock are `web.stock`'s.

A catalog of an account the signed-in user does not own is a 404 page, never a hint that
it exists. Creating goes through `catalogs.service` as the API does: the same name rules,
the same `catalog.create` event (caused by no client).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

import orjson
from fastapi import APIRouter
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request
from starlette.responses import Response

from comptoir.catalogs import repository as catalogs
from comptoir.catalogs.inventory import read_inventory
from comptoir.catalogs.service import catalogs_by_name, create_catalog
from comptoir.http.state import app_state
from comptoir.kit import clock, ids
from comptoir.locations.service import locations_of_account
from comptoir.models import Account, Catalog, Location, User
from comptoir.web.render import Person, Problem, Visitor, crumbs, not_yours, page
from comptoir.web.shelves import Shelf, mount, owner_and_location
from comptoir.web.words import quantity

router = APIRouter(include_in_schema=False)

PRODUCTS_PER_PAGE = 50
MAX_FILTER = 255  # characters of the product name filter


# --- whose catalog ------------------------------------------------------------------------


async def owned_catalog(db: AsyncSession, user: User, public_id: str) -> tuple[Catalog, Account, Location | None]:
    """A catalog of one of the user's accounts (at location or account level) with its
    account and location, or a 404 page."""
    pk = ids.decode(Catalog.KIND, public_id)
    catalog = await catalogs.catalog_row(db, pk) if pk is not None else None
    if catalog is None:
        raise not_yours("catalog")
    account, location = await owner_and_location(db, user, catalog.account_id, catalog.location_id, "catalog")
    return catalog, account, location


async def _new_catalog(db: AsyncSession, account: Account, location: Location | None, name: str) -> str:
    return (await create_catalog(db, None, account=account, location=location, name=name)).row.public_id


CATALOGS = Shelf(
    noun="catalog",
    plural="Catalogs",
    location_path="catalogs",
    account_path="catalogs",
    item_path="/catalogs",
    empty="its products are uploaded by a connected application or through the API.",
    by_name=catalogs_by_name,
    create=_new_catalog,
)

mount(router, CATALOGS)


# --- a catalog ------------------------------------------------------------------------------


def until_id(item: str) -> str:
    """The id of the "until" field of an item's stock form ("sku:REF", "option:REF",
    "product:ID"): refs may hold any character, ids may not."""
    return "until-" + hashlib.blake2b(item.encode(), digest_size=6).hexdigest()


def short_time(value: str, timezone: str) -> str:
    """An API time (in the location's timezone) as stock reads it: "27 Nov 18:00", with the
    year when it is not this year's."""
    at = datetime.fromisoformat(value)
    year = "" if at.year == clock.now().astimezone(at.tzinfo).year else f" {at.year}"
    return f"{at.day} {at:%b}{year} {at:%H:%M}"


@dataclass(frozen=True, slots=True)
class Stock:
    """An item's stock in words, and its colour (`tag-ok|tag-warn|tag-bad`)."""

    words: str
    tag: str
    out: bool = False


IN_STOCK = Stock("In stock", "tag-ok")
NOT_TRACKED = Stock("Not tracked (no ref)", "tag-info")


def stock_of(entry: dict[str, Any] | None, timezone: str) -> Stock:
    """An inventory entry (docs/api/inventory.md "Entries") in words: none is "In stock"."""
    if entry is None:
        return IN_STOCK
    if Decimal(entry["stock"]) == 0:
        until = short_time(entry["expires_at"], timezone) if entry["expires_at"] else "further notice"
        return Stock(f"Out of stock until {until}", "tag-bad", out=True)
    return Stock(f"{quantity(entry['stock'])} left", "tag-warn")


def product_stock(skus: list[dict[str, Any]]) -> Stock | None:
    """A product's stock from its tracked skus': out when all are, partly when some are."""
    tracked = [sku["stock"] for sku in skus if sku["ref"] is not None]
    out = [stock for stock in tracked if stock.out]
    if not tracked or not out:
        return None
    if len(out) < len(tracked):
        return Stock("Partly out of stock", "tag-warn")
    same = {stock.words for stock in out}
    return out[0] if len(same) == 1 else Stock("Out of stock", "tag-bad", out=True)


@dataclass(frozen=True, slots=True)
class Listing:
    """Which products a catalog page shows: those whose name contains `q`, page `number`."""

    q: str = ""
    number: int = 1

    @classmethod
    def of(cls, q: str, number: str) -> tuple[Listing, list[Problem]]:
        errors = []
        if len(q) > MAX_FILTER:
            errors.append(Problem("q", f"Product name: must be at most {MAX_FILTER} characters"))
            q = ""
        if number and not (number.isascii() and number.isdigit() and 1 <= int(number) <= 100_000):
            errors.append(Problem(None, "Page: this link is broken; start again from the first page"))
            number = "1"
        return cls(q, int(number or 1)), errors

    def query(self, location: Location | None, at_account_level: bool, page_number: int | None = None) -> str:
        pairs = []
        if at_account_level and location is not None:
            pairs.append(("location", location.public_id))
        if self.q:
            pairs.append(("q", self.q))
        number = page_number or self.number
        if number > 1:
            pairs.append(("page", str(number)))
        return "?" + urlencode(pairs) if pairs else ""


async def catalog_view(
    db: AsyncSession,
    you: Visitor,
    catalog: Catalog,
    account: Account,
    own_location: Location | None,
    location: Location | None,
    places: list[Location],
    listing: Listing,
    *,
    status: int = 200,
    errors: Sequence[Problem | str] = (),
    until: dict[str, str] | None = None,
) -> Response:
    """The catalog's content as `GET /catalogs/:id` reads it, its products a page at a time,
    with the stock of each sku, option and product at `location` and the forms changing it."""
    stored = await catalogs.stored_data(db, catalog.id)
    data = orjson.loads(stored)  # the stored read shape (catalogs.service)
    entries = await read_inventory(db, catalog, location) if location is not None else []
    tz = you.zone(location.timezone if location is not None else None)
    stock = {("sku" if e["sku_ref"] else "option", e["sku_ref"] or e["option_ref"]): e for e in entries}

    def of(kind: str, ref: str | None) -> Stock:
        return stock_of(stock.get((kind, ref)), tz) if ref is not None else NOT_TRACKED

    categories = {c["id"]: c["name"] for c in data["categories"]}
    option_lists = {o["id"]: o["name"] for o in data["option_lists"]}
    wanted = listing.q.lower()
    matching = [p for p in data["products"] if wanted in p["name"].lower()]
    first = (listing.number - 1) * PRODUCTS_PER_PAGE
    shown = matching[first : first + PRODUCTS_PER_PAGE]
    products = []
    for product in shown:
        skus = [
            {
                **sku,
                "item": f"sku:{sku['ref']}",
                "stock": of("sku", sku["ref"]),
                "option_lists": [option_lists[i] for i in sku["option_list_ids"] if i in option_lists],
            }
            for sku in product["skus"]
        ]
        products.append(
            {
                **product,
                "item": f"product:{product['id']}",
                "category": categories.get(product["category_id"], ""),
                "skus": skus,
                "stock": product_stock(skus),
                "tracked": any(sku["ref"] is not None for sku in skus),
            }
        )
    lists = [
        {**o, "options": [{**opt, "item": f"option:{opt['ref']}", "stock": of("option", opt["ref"])} for opt in opts]}
        for o in data["option_lists"]
        for opts in [o["options"]]
    ]
    at_account_level = catalog.location_id is None
    last = first + PRODUCTS_PER_PAGE < len(matching)
    return page(
        "bo_catalog.html",
        status,
        title=catalog.name,
        you=you,
        crumbs=crumbs(account, own_location, ("Catalogs", CATALOGS.url(account, own_location))),
        catalog_id=catalog.public_id,
        account=account,
        location=location,
        at_account_level=at_account_level,
        places=places,
        timezone=tz,
        data=data,
        categories=categories,
        products=products,
        matching=len(matching),
        listing=listing,
        previous_url=(listing.query(location, at_account_level, listing.number - 1) or "?")
        if listing.number > 1
        else None,
        next_url=listing.query(location, at_account_level, listing.number + 1) if last else None,
        option_lists=lists,
        until=until or {},
        until_id=until_id,
        errors=list(errors),
    )


async def catalog_places(
    db: AsyncSession, account: Account, own: Location | None, asked: str | None
) -> tuple[Location | None, list[Location]]:
    """The location whose stock the page shows: the catalog's own, or for an account-level
    catalog the one asked for among the account's (default the first); and those to choose."""
    if own is not None:
        return own, [own]
    places = await locations_of_account(db, account)
    return next((p for p in places if p.public_id == asked), places[0] if places else None), places


@router.get("/catalogs/{catalog_id}")
async def catalog_page(request: Request, you: Person, catalog_id: str) -> Response:
    """The catalog at the catalog's location, or for an account-level catalog the one chosen
    among the account's (`?location=`, default the first); `?q=` filters products by name,
    `?page=` pages them."""
    params = request.query_params
    listing, errors = Listing.of(params.get("q", "").strip(), params.get("page", ""))
    async with app_state(request).db.transaction(write=False) as db:
        catalog, account, own = await owned_catalog(db, you.user, catalog_id)
        location, places = await catalog_places(db, account, own, params.get("location"))
        return await catalog_view(
            db, you, catalog, account, own, location, places, listing, status=400 if errors else 200, errors=errors
        )
