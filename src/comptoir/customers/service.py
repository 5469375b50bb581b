"""Customers (spec 2.6, 4.5) and their anonymisation (spec 4.6)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir import events
from comptoir.auth.context import Ctx
from comptoir.core.private_refs import refs_for
from comptoir.customer_lists.service import ListInReach, list_in_reach
from comptoir.customers import hooks, repository
from comptoir.customers.repository import KIND
from comptoir.customers.schemas import ANONYMISED_FIELDS, CustomerFields, CustomerFilters, CustomerWrite
from comptoir.errors import FieldError, FieldErrors, NotFound, StaleForm, Unprocessable
from comptoir.kit import clock, custom_fields, ids
from comptoir.kit.decimals import render_decimal
from comptoir.kit.money import Money
from comptoir.kit.pagination import Page, PageRequest
from comptoir.kit.refs import parse_private_ref
from comptoir.kit.times import render_datetime
from comptoir.kit.wire import WireError, shown
from comptoir.models import Customer, LoyaltyCard

PLAIN_FIELDS = tuple(CustomerFields.model_fields)  # the customer's own fields, as written and read


# --- reading ------------------------------------------------------------------------------


async def customer_exists(session: AsyncSession, found: ListInReach, pk: int) -> bool:
    """Whether customer `pk` is one of the list's."""
    return await repository.customer_exists(session, found.id, pk)


async def cards_of(session: AsyncSession, customer_ids: list[int]) -> dict[int, list[LoyaltyCard]]:
    """The loyalty cards of each of these customers, oldest first (orders and the back office
    read them here too)."""
    return await repository.cards_of(session, customer_ids)


def _decimal(value: Decimal | None) -> str | None:
    return render_decimal(value) if value is not None else None


def render_card_summary(card: LoyaltyCard) -> dict[str, Any]:
    return {"id": card.public_id, "ref": card.ref, "name": card.name, "balance": render_decimal(card.balance)}


def render_fields(customer: Customer) -> dict[str, Any]:
    """The customer's own fields (PLAIN_FIELDS) as read: on the customer and in an order's
    snapshot of it."""
    fields = {name: getattr(customer, name) for name in PLAIN_FIELDS}
    if customer.birth_date is not None:
        fields["birth_date"] = customer.birth_date.isoformat()
    fields["latitude"] = _decimal(customer.latitude)
    fields["longitude"] = _decimal(customer.longitude)
    return fields


def render_customer(
    customer: Customer, found: ListInReach, private_ref: str | None, cards: list[LoyaltyCard]
) -> dict[str, Any]:
    """spec 2.6 Customer. `private_ref` is the reader's own (spec 2.2 item 7)."""
    tz = found.timezone
    return {
        "id": customer.public_id,
        "customer_list_id": found.public_id,
        "private_ref": private_ref,
        **render_fields(customer),
        "custom_fields": customer.custom_fields,
        "anonymised": customer.anonymised,
        "created_at": render_datetime(customer.created_at, tz),
        "nb_orders": customer.nb_orders,
        "order_total": str(Money(customer.order_total, found.currency)),
        "first_order_date": render_datetime(customer.first_order_at, tz),
        "last_order_date": render_datetime(customer.last_order_at, tz),
        "loyalty_cards": [render_card_summary(card) for card in cards],
    }


async def customer_in_list(
    session: AsyncSession, found: ListInReach, public_id: str, *, for_update: bool = False
) -> Customer:
    """The customer behind `public_id` in that list; 404 otherwise."""
    pk = ids.decode(Customer.KIND, public_id)
    customer = await repository.find_customer(session, found.id, pk, for_update=for_update) if pk is not None else None
    if customer is None:
        raise NotFound(KIND, public_id)
    return customer


async def _rendered(session: AsyncSession, ctx: Ctx, found: ListInReach, customer: Customer) -> dict[str, Any]:
    refs = await refs_for(session, KIND, [customer.id], ctx.client_id)
    cards = (await cards_of(session, [customer.id]))[customer.id]
    return render_customer(customer, found, refs.get(customer.id), cards)


async def get_customer(session: AsyncSession, ctx: Ctx, list_id: str, customer_id: str) -> dict[str, Any]:
    found = await list_in_reach(session, ctx, list_id)
    return await _rendered(session, ctx, found, await customer_in_list(session, found, customer_id))


async def list_customers(
    session: AsyncSession, ctx: Ctx, list_id: str, page: PageRequest, filters: CustomerFilters
) -> tuple[list[dict[str, Any]], Page]:
    """GET /customer_lists/:id/customers (spec 4.5), in the order `repository.customers_page` explains.
    `email` matches case-insensitively, `phone` exactly; both take `*` wildcards, a
    trailing one index-backed."""
    found = await list_in_reach(session, ctx, list_id)
    customers, result = await repository.customers_page(session, found.id, ctx.client_id, filters, page)
    pks = [customer.id for customer in customers]
    refs = await refs_for(session, KIND, pks, ctx.client_id)
    cards = await cards_of(session, pks)
    body = [render_customer(c, found, refs.get(c.id), cards[c.id]) for c in customers]
    return body, result


async def search_customers(
    session: AsyncSession, found: ListInReach, name: str, filters: CustomerFilters, page: PageRequest
) -> tuple[list[dict[str, Any]], Page]:
    """The back office's list of a list the caller found in reach: a page of customers whose
    name contains `name`, under the API's `email` and `phone` filters
    (`repository.search_page`); nobody's private refs."""
    customers, result = await repository.search_page(session, found.id, name, filters, page)
    cards = await cards_of(session, [customer.id for customer in customers])
    return [render_customer(c, found, None, cards[c.id]) for c in customers], result


# --- writing ------------------------------------------------------------------------------


def _apply(customer: Customer, body: CustomerWrite, errors: FieldErrors) -> None:
    """Copy the fields present in `body` onto `customer`, checking each; an anonymised
    customer's personal fields are left as they are (spec 4.6 item 2: silently ignored)."""
    given = body.model_fields_set
    for name in PLAIN_FIELDS:
        if name not in given or (customer.anonymised and name in ANONYMISED_FIELDS):
            continue
        value = getattr(body, name)
        setattr(customer, name, value)
        if name == "email":
            customer.email_lower = value.lower() if value is not None else None
    if "custom_fields" in given:
        try:
            customer.custom_fields = custom_fields.merge(customer.custom_fields, body.custom_fields)
        except WireError as exc:
            errors.add("custom_fields", str(exc))


async def _set_private_ref(session: AsyncSession, ctx: Ctx, customer: Customer, ref: str | None) -> None:
    """docs/api/customers.md "Private refs": unique per (list, client), by the database."""
    checked = None if ref is None else parse_private_ref(ref)
    if not await repository.set_private_ref(session, customer, ctx.client_id, checked):
        raise Unprocessable(
            FieldError("private_ref", f"{shown(ref)} is already the private ref of another customer of this list")
        )


async def _record(
    session: AsyncSession, ctx: Ctx | None, found: ListInReach, customer: Customer, event_type: str, **states: Any
) -> None:
    row = found.row
    await events.record(
        session,
        resource_type=KIND,
        event_type=event_type,
        ids={"customer_id": customer.public_id, "customer_list_id": row.public_id},
        account_id=row.account_id,
        location_id=row.location_id,
        customer_list_id=row.id,
        timezone=found.timezone,
        ctx=ctx,
        **states,
    )


def _state(customer: Customer, found: ListInReach, cards: list[LoyaltyCard]) -> dict[str, Any]:
    """The customer as events carry it: without the causing client's private ref, which no
    other client may see (spec 2.2 item 7)."""
    return render_customer(customer, found, None, cards)


async def create_customer(session: AsyncSession, ctx: Ctx, list_id: str, body: CustomerWrite) -> dict[str, Any]:
    """POST /customer_lists/:id/customers (spec 4.5): a customer, possibly empty. Records
    `customer.create`."""
    found = await list_in_reach(session, ctx, list_id)
    now = clock.now()
    customer = Customer(
        customer_list_id=found.id,
        custom_fields={},
        anonymised=False,
        sms_marketing=False,
        email_marketing=False,
        nb_orders=0,
        order_total=Decimal("0"),
        created_at=now,
        updated_at=now,
    )
    errors = FieldErrors()
    _apply(customer, body, errors)
    errors.raise_if_any()
    await repository.insert_customer(session, customer)
    ref = body.private_ref if "private_ref" in body.model_fields_set else None
    if ref is not None:
        await _set_private_ref(session, ctx, customer, ref)
    await _record(session, ctx, found, customer, "create", new_state=_state(customer, found, []))
    return render_customer(customer, found, ref, [])


async def update_customer(
    session: AsyncSession, ctx: Ctx, list_id: str, customer_id: str, body: CustomerWrite
) -> dict[str, Any]:
    """PATCH/PUT (spec 4.5): only the fields present change. Records `customer.update`
    when the customer's shape changed (custom fields included, spec 2.2 item 6)."""
    found = await list_in_reach(session, ctx, list_id)
    return await update_in_list(session, ctx, found, customer_id, body)


def version_of(customer: Customer) -> str:
    """The customer's version as a form carries it: the time of its last change, which every
    change of its shape moves (docs/back-office.md "Stock, catalogs and customers")."""
    return customer.updated_at.isoformat()


async def update_in_list(
    session: AsyncSession,
    ctx: Ctx | None,
    found: ListInReach,
    customer_id: str,
    body: CustomerWrite,
    *,
    seen: str | None = None,
) -> dict[str, Any]:
    """`update_customer` in a list the caller found in reach; `ctx` None: caused by no
    client (the back office), which has no private ref to set or read. `seen`: the version
    (`version_of`) the form's page showed; `StaleForm` (409) when the customer has changed
    since, nothing changed."""
    customer = await customer_in_list(session, found, customer_id, for_update=True)
    if seen is not None and seen != version_of(customer):
        raise StaleForm("customer")
    cards = (await cards_of(session, [customer.id]))[customer.id]
    previous = _state(customer, found, cards)
    errors = FieldErrors()
    _apply(customer, body, errors)
    errors.raise_if_any()
    ref: str | None = None
    if ctx is not None and "private_ref" in body.model_fields_set:
        await _set_private_ref(session, ctx, customer, body.private_ref)
        ref = body.private_ref
    elif ctx is not None:
        ref = (await refs_for(session, KIND, [customer.id], ctx.client_id)).get(customer.id)
    new = _state(customer, found, cards)
    if new != previous:
        customer.updated_at = clock.now()
        await _record(session, ctx, found, customer, "update", previous_state=previous, new_state=new)
    return render_customer(customer, found, ref, cards)


async def anonymise_customer(session: AsyncSession, ctx: Ctx, list_id: str, customer_id: str) -> dict[str, Any]:
    """POST .../anonymise (spec 4.6): the personal fields of item 1 become null and
    `anonymised` true, irreversibly; then the orders feature anonymises the customer's
    orders (`hooks.on_anonymise`). Records `customer.update`. Anonymising again changes
    nothing."""
    found = await list_in_reach(session, ctx, list_id)
    customer = await customer_in_list(session, found, customer_id, for_update=True)
    if customer.anonymised:
        return await _rendered(session, ctx, found, customer)
    cards = (await cards_of(session, [customer.id]))[customer.id]
    previous = _state(customer, found, cards)
    for name in ANONYMISED_FIELDS:
        setattr(customer, name, None)
    customer.email_lower = None
    customer.anonymised = True
    customer.updated_at = clock.now()
    new = _state(customer, found, cards)
    await _record(session, ctx, found, customer, "update", previous_state=previous, new_state=new)
    await session.flush()  # the orders hook reads the customer's orders in this transaction
    await hooks.customer_anonymised(session, ctx, customer)
    ref = (await refs_for(session, KIND, [customer.id], ctx.client_id)).get(customer.id)
    return render_customer(customer, found, ref, cards)
