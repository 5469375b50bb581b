"""The catalog page's stock forms (docs/back-office.md "Stock, catalogs and customers"): a
sku, an option or a whole product (all its skus) out of stock until a time or until further
notice, or back in stock.

Each form is one `PATCH .../inventory` through `catalogs.inventory.patch_inventory`: the
same checks (refs of the catalog, a time read in the location's timezone), the same
`inventory.patch` event with its `state_change`, caused by no client. Out of stock is an
entry of stock 0 (with `expires_at` when a time is given); back in stock removes the entry.
As the API does, the write locks the location first.
"""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import APIRouter
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request
from starlette.responses import Response

from comptoir.catalogs import repository as catalogs
from comptoir.catalogs.inventory import KEYS, inventory_in_reach, patch_inventory
from comptoir.errors import FieldError, NotFound, Unprocessable
from comptoir.http.state import app_state
from comptoir.models import Catalog, Location
from comptoir.web.catalogs import Listing, catalog_places, catalog_view, owned_catalog, until_id
from comptoir.web.pages import owned_location
from comptoir.web.render import PageAnswer, Person, Problem, not_found, redirect, text

router = APIRouter(include_in_schema=False)

ACTIONS = ("out", "back")
MAX_ITEM = 300  # characters of an item ("sku:" and a ref of up to 255)


async def _skus_of(db: AsyncSession, catalog: Catalog, product_id: str) -> list[str]:
    """The refs of the product's skus (those without a ref have no stock); NotFound when
    the catalog has no such product."""
    data = orjson.loads(await catalogs.stored_data(db, catalog.id))
    product = next((p for p in data["products"] if p["id"] == product_id), None)
    if product is None:
        raise NotFound("product", product_id)
    return [sku["ref"] for sku in product["skus"] if sku["ref"] is not None]


def entries(refs: list[tuple[str, str]], action: str, until: str) -> list[dict[str, Any]]:
    """The PATCH body (docs/api/inventory.md "PUT and PATCH") of one form."""
    if action == "back":
        return [{KEYS[kind]: ref, "stock": None} for kind, ref in refs]
    out: dict[str, Any] = {"stock": "0"}
    if until:
        out["expires_at"] = until
    return [{KEYS[kind]: ref, **out} for kind, ref in refs]


def _problems(exc: Unprocessable, field: str | None) -> list[Problem]:
    """The API's errors, each message once (a product's skus share one time): the time's
    beside the item's "until" field, the item's (a hidden field) at the top of the page."""
    found: list[Problem] = []
    for error in exc.errors:
        until = error.field.endswith("expires_at")
        problem = Problem(field if until else None, f"{'Until' if until else 'Item'}: {error.message}")
        if problem not in found:
            found.append(problem)
    return found


@router.post("/catalogs/{catalog_id}/stock")
async def change_stock(request: Request, you: Person, catalog_id: str) -> Response:
    form = await request.form()
    item, action, until = text(form, "item"), text(form, "action"), text(form, "until")
    listing, _ = Listing.of(text(form, "q"), text(form, "page"))
    async with app_state(request).db.transaction() as db:
        you.check(form)
        catalog, account, own = await owned_catalog(db, you.user, catalog_id)
        asked = own.public_id if own is not None else text(form, "location")
        location: Location
        location, _account = await owned_location(db, you.user, asked, lock=True)  # as the API's writes
        try:
            catalog, location = await inventory_in_reach(db, catalog.public_id, location)
        except NotFound:
            raise not_found("No location of yours sees this catalog.") from None
        kind, _, ref = item.partition(":")
        field = until_id(item)
        try:
            if action not in ACTIONS or kind not in ("sku", "option", "product") or not ref or len(item) > MAX_ITEM:
                raise Unprocessable(FieldError("item", "choose an item of this catalog and an action"))
            try:
                refs = [("sku", r) for r in await _skus_of(db, catalog, ref)] if kind == "product" else [(kind, ref)]
            except NotFound:
                raise Unprocessable(FieldError("item", "this product is not in the catalog")) from None
            if not refs:
                raise Unprocessable(FieldError("item", "this product has no sku with a ref: its stock is not tracked"))
            await patch_inventory(db, None, catalog, location, entries(refs, action, until))
        except Unprocessable as exc:
            _, places = await catalog_places(db, account, own, location.public_id)
            answer = await catalog_view(
                db,
                you,
                catalog,
                account,
                own,
                location,
                places,
                listing,
                status=400,
                errors=_problems(exc, field),
                until={item: until},
            )
            raise PageAnswer(answer) from None
    return redirect(f"/catalogs/{catalog.public_id}{listing.query(location, own is None)}")
