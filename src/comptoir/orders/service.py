"""The rules of orders (spec 2.5, 3.1, 4.1), once for every caller: creation with totals,
customer attachment, loyalty operations, private refs and events; reads; lists with
filters; updates with the element forms of spec 4.1. SQL lives in `orders.repository`, the
read shape in `orders.render` (docs/api/orders.md)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from typing import Any, NamedTuple

import orjson
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir import events
from comptoir.auth.context import Ctx
from comptoir.core import levels
from comptoir.core.private_refs import set_ref
from comptoir.customer_lists.service import ListInReach
from comptoir.customers import hooks
from comptoir.customers.schemas import ANONYMISED_FIELDS
from comptoir.customers.service import cards_of
from comptoir.db.unit import Unit
from comptoir.errors import BadRequest, FieldErrors, NotFound
from comptoir.kit import clock, custom_fields, gcpause, ids
from comptoir.kit.decimals import exact_add, exact_sub, render_decimal
from comptoir.kit.pagination import Page, PageRequest
from comptoir.kit.times import localize, parse_datetime
from comptoir.kit.wire import WireError, shown
from comptoir.loyalty.service import move_balance, record_operations
from comptoir.models import ORDER_ELEMENT_IDS, Change, ChangePerson, Customer, LoyaltyCard, LoyaltyOperation, Order
from comptoir.models.accounts import AccountRef
from comptoir.models.locations import LocationRef
from comptoir.orders import totals
from comptoir.orders.elements import check_currencies, element_changes, give_ids, stored_element
from comptoir.orders.render import (
    COLLECTIONS,
    KIND,
    ORDER_REF,
    as_read_by,
    customer_read,
    customer_snapshot,
    event_state,
    has_view,
    keep_view,
    personalise,
    read_json,
    render_order,
    rendered_delivery,
    stored_view,
)
from comptoir.orders.repository import ORDER_IDS, OrderRepository
from comptoir.orders.rows import OrderLike, OrderRow
from comptoir.orders.schemas import STATUSES, OrderCreate, OrderUpdate

MAX_ELEMENTS = 1000  # per collection, deleted ones included
Attached = tuple[Customer, ListInReach, list[LoyaltyCard]]

# The read of an order: a document, or (for a reader who sees no private ref of their own)
# its text as stored, which the response writes as it is.
OrderRead = dict[str, Any] | orjson.Fragment


# --- checks -------------------------------------------------------------------------------


def _checked(body: OrderCreate, currency: str, errors: FieldErrors) -> dict[str, str]:
    """The checks of a new order that read nothing; returns its deal keys renumbered."""
    for collection in COLLECTIONS:
        for i, element in enumerate(getattr(body, collection)):
            check_currencies(collection, i, element, currency, errors)
    # spec 2.5: deal keys renumbered "0", "1", ...; an item's deal_key must exist in deals
    renumbered = {key: str(n) for n, key in enumerate(body.deals)}
    for i, item in enumerate(body.items):
        if item.deal_line is not None and item.deal_line.deal_key not in renumbered:
            errors.add(f"items[{i}].deal_line.deal_key", f"{shown(item.deal_line.deal_key)} is not a key of deals")
    delivery = body.service_type == "delivery"
    if body.expected_time_pickup and not delivery:
        errors.add("expected_time_pickup", "is only for delivery orders (service_type delivery)")
    if body.driver_pickup_url is not None and not delivery:
        errors.add("driver_pickup_url", "is only for delivery orders (service_type delivery)")
    try:
        custom_fields.check_size(body.custom_fields)
    except WireError as exc:
        errors.add("custom_fields", str(exc))
    if body.customer is not None and body.customer.custom_fields:  # the guest's, kept in its snapshot
        try:
            custom_fields.merge({}, body.customer.custom_fields)
        except WireError as exc:
            errors.add("customer.custom_fields", str(exc))
    return renumbered


# --- events -------------------------------------------------------------------------------


def _change(ctx: Ctx | None, order: OrderLike, location: LocationRef, event_type: str, **states: Any) -> dict[str, Any]:
    """The fields of an order's change (`events.new_change`)."""
    return {
        "resource_type": "order",
        "event_type": event_type,
        "ids": {"order_id": order.public_id, "location_id": location.public_id},
        "account_id": order.account_id,
        "location_id": order.location_id,
        "timezone": location.timezone,
        "ctx": ctx,
        "origin_connection_id": order.connection_id,
        **states,
    }


async def record(
    session: AsyncSession,
    ctx: Ctx | None,
    order: OrderLike,
    location: LocationRef,
    event_type: str,
    *,
    by: int | None = None,
    **states: Any,
) -> None:
    """Record an order's change; `by`: the person who made it from the back office (its
    history names them, docs/back-office.md "Orders")."""
    change = await events.record(session, **_change(ctx, order, location, event_type, **states))
    if by is not None:
        session.add(ChangePerson(change_id=change.id, user_id=by))


async def order_touched(
    session: AsyncSession,
    ctx: Ctx,
    order: Order,
    location: LocationRef,
    previous: dict[str, Any] | None,
    new: dict[str, Any] | None,
) -> None:
    """spec 6.2: a change of an order's delivery or quotes is also an update of the order:
    its `updated_at` moves and `order.update` is recorded; `previous` and `new` are its
    rendered delivery before and after (a quote is not part of the order). The caller holds
    the order's row lock."""
    order.updated_at = clock.now()
    await record(
        session,
        ctx,
        order,
        location,
        "update",
        previous_state=event_state(order, location, previous),
        new_state=event_state(order, location, new),
    )


# --- creating -----------------------------------------------------------------------------


async def _attach_customer(
    orders: OrderRepository,
    ctx: Ctx,
    body: OrderCreate,
    account: AccountRef,
    location: LocationRef,
    errors: FieldErrors,
) -> Attached | None:
    """spec 2.5 rule 5 (docs/api/orders.md "Customers"): `customer_id`, or `customer_list_id`
    with `customer_private_ref`, or neither (a guest order); 422 for an unknown customer.
    Returns the customer (locked), its list and its cards: what its snapshot shows."""
    by_id = body.customer_id is not None
    by_ref = body.customer_list_id is not None or body.customer_private_ref is not None
    if by_id and (by_ref or body.customer is not None):
        errors.add("customer_id", "excludes customer_list_id, customer_private_ref and customer")
        return None
    if by_ref and body.customer is not None:
        errors.add("customer", "is used only when no customer identifier is given")
        return None
    if body.loyalty_operations and not by_id and not by_ref and not errors:
        errors.add(
            "loyalty_operations", "are only for orders linked to a customer (customer_id or customer_private_ref)"
        )
    if not by_id and not by_ref:
        return None
    customer = row = None
    if by_id:
        assert body.customer_id is not None
        pk = ids.decode(Customer.KIND, body.customer_id)
        found = await orders.customer_by_id(pk, account.id, location.id) if pk is not None else None
        if found is None:
            errors.add("customer_id", f"no customer with id {shown(body.customer_id)}")
        else:
            customer, row = found
    else:
        if body.customer_list_id is None or body.customer_private_ref is None:
            missing = "customer_list_id" if body.customer_list_id is None else "customer_private_ref"
            errors.add(
                missing,
                "is required with " + ("customer_private_ref" if missing == "customer_list_id" else "customer_list_id"),
            )
            return None
        row = await orders.customer_list(body.customer_list_id)
        if row is None or not levels.holds(account.id, location.id, row.account_id, row.location_id):
            errors.add("customer_list_id", f"no customer list with id {shown(body.customer_list_id)}")
            return None
        customer = await orders.customer_by_ref(row.id, ctx.client_id, body.customer_private_ref)
        if customer is None:
            errors.add(
                "customer_private_ref", f"no customer with private ref {shown(body.customer_private_ref)} in that list"
            )
    if body.loyalty_operations and customer is None and not errors:
        errors.add(
            "loyalty_operations", "are only for orders linked to a customer (customer_id or customer_private_ref)"
        )
    if customer is None or row is None:
        return None
    # the list is this location's or the account's (checked above): rendered as it reads
    found_list = ListInReach(row, location.timezone if row.location_id is not None else "UTC", account.currency)
    cards = (await cards_of(await orders.session(), [customer.id]))[customer.id]
    return customer, found_list, cards


async def _move_balances(
    orders: OrderRepository, customer: Customer, operations: list[Any]
) -> tuple[list[dict[str, Any]], list[LoyaltyOperation]]:
    """docs/api/orders.md "Loyalty operations": each operation moves the customer's card with
    that ref (null allowed), created with `name` when the customer has none, in this
    transaction. Returns what the order shows of them, and their rows, written once the
    order exists."""
    done, rows = [], []
    for op in operations:
        card, new_balance = await move_balance(await orders.session(), customer, op.ref, op.name, op.delta)
        rows.append(
            LoyaltyOperation(
                loyalty_card_id=card.id,
                customer_id=customer.id,
                delta=op.delta,
                new_balance=new_balance,
                reason=op.reason,
                created_at=clock.now(),
            )
        )
        done.append(
            {
                "ref": op.ref,
                "name": op.name,
                "delta": render_decimal(op.delta),
                "reason": op.reason,
                "new_balance": render_decimal(new_balance),
            }
        )
    return done, rows


def _count_order(customer: Customer, order: OrderLike, delta_total: Decimal, count: int) -> None:
    """The customer's order counters (spec 2.6 read-only fields), under its row lock."""
    customer.nb_orders += count
    customer.order_total = exact_add(customer.order_total, delta_total)
    if count:
        first, last = customer.first_order_at, customer.last_order_at
        customer.first_order_at = order.created_at if first is None or order.created_at < first else first
        customer.last_order_at = order.created_at if last is None or order.created_at > last else last


def _draft(
    ctx: Ctx,
    location: LocationRef,
    account: AccountRef,
    body: OrderCreate,
    attached: Attached | None,
    renumbered: dict[str, str],
) -> tuple[OrderRow, list[tuple[dict[str, Any], str | None]]]:
    """The new order and its elements (with the caller's refs), still without ids; the
    attached customer's snapshot is taken before the order counts for it."""
    now = clock.now()
    stored: dict[str, Any] = {"currency": account.currency}
    added = []
    for collection in COLLECTIONS:
        stored[collection] = []
        for element in getattr(body, collection):
            entry = stored_element(collection, element, 0)
            if collection == "items" and entry.get("deal_line"):
                entry["deal_line"] = {**entry["deal_line"], "deal_key": renumbered[entry["deal_line"]["deal_key"]]}
            stored[collection].append(entry)
            added.append((entry, element.private_ref))
    total = totals.order_total(stored)
    asap = body.asap if body.asap is not None else body.expected_time is None
    stored.update(
        connection_name=ctx.connection_name or None,
        channel=body.channel if body.channel is not None else ctx.client_name,
        ref=body.ref,
        service_type=body.service_type,
        service_type_ref=body.service_type_ref,
        expected_time=localize(body.expected_time, location.timezone).isoformat() if body.expected_time else None,
        expected_time_pickup=body.expected_time_pickup,
        asap=asap,
        confirmed_time=localize(body.confirmed_time, location.timezone).isoformat() if body.confirmed_time else None,
        driver_pickup_url=body.driver_pickup_url,
        customer_notes=body.customer_notes,
        seller_notes=body.seller_notes,
        collection_code=body.collection_code,
        coupon_codes=body.coupon_codes,
        deals={renumbered[key]: deal.model_dump() for key, deal in body.deals.items()},
        customer=customer_snapshot(attached, body.customer),
        loyalty_operations=[],
        custom_fields={k: v for k, v in body.custom_fields.items() if v is not None},
    )
    # A plain object, not an ORM instance: the order is written by a Core insert (instrumenting
    # it cost as much as rendering it; benchmarks/orders.py).
    order = OrderRow(
        id=None,
        account_id=account.id,
        location_id=location.id,
        status=body.status,
        created_by=ctx.client_name,
        client_id=ctx.client_id,
        connection_id=ctx.connection_id,
        customer_id=attached[0].id if attached else None,
        total=total,
        body=stored,
        refs={},
        view=None,
        created_at=now,
        updated_at=now,
    )
    return order, added


def _with_ids(
    order: OrderRow,
    added: list[tuple[dict[str, Any], str | None]],
    element_ids: list[int],
    ctx: Ctx,
    private_ref: str | None,
) -> dict[str, str]:
    """Number the new order's elements; returns the caller's refs, kept on the order."""
    refs: dict[str, str] = {}
    give_ids(added, refs, element_ids)
    if private_ref is not None:
        refs[ORDER_REF] = private_ref
    order.refs = {str(ctx.client_id): refs} if refs else {}
    return refs


async def create_order(
    orders: OrderRepository, ctx: Ctx, location: LocationRef, account: AccountRef, body: OrderCreate
) -> OrderRead:
    """POST /locations/:id/orders (spec 2.5, 4.1). Records `order.create`."""
    errors = FieldErrors()
    renumbered = _checked(body, account.currency, errors)
    attached = await _attach_customer(orders, ctx, body, account, location, errors)
    errors.raise_if_any()

    order, added = _draft(ctx, location, account, body, attached, renumbered)
    refs = _with_ids(order, added, await orders.new_ids(ORDER_ELEMENT_IDS.name, len(added)), ctx, body.private_ref)
    order.id = (await orders.new_ids(ORDER_IDS, 1))[0]
    operations: list[LoyaltyOperation] = []
    if attached is not None and body.loyalty_operations:
        order.body["loyalty_operations"], operations = await _move_balances(
            orders, attached[0], body.loyalty_operations
        )
    state = render_order(order, location.timezone, location.public_id)  # no delivery yet
    # The view and the change hold the same rendered order, serialised once.
    text, order.view = stored_view(location, state)
    change = events.new_change(**_change(ctx, order, location, "create", new_state=orjson.Fragment(text)))
    await orders.insert(order, body.private_ref, change, events.receivers)
    customer_ref = None
    if attached is not None:
        customer = attached[0]
        for operation in operations:
            operation.order_id, operation.order_location_id = order.id, order.location_id
        await record_operations(await orders.session(), operations)
        _count_order(customer, order, order.total, 1)
        if body.customer_private_ref is not None:
            customer_ref = body.customer_private_ref
        else:
            customer_ref = await orders.customer_ref(customer.id, ctx.client_id)
    if not refs and customer_ref is None:  # it reads what every reader reads: the stored text
        return orjson.Fragment(text)
    return as_read_by(state, order, refs, customer_ref)


async def get_order(
    orders: OrderRepository, ctx: Ctx, location: LocationRef, public_id: str
) -> orjson.Fragment | dict[str, Any]:
    """GET /locations/:id/orders/:id: the order as the caller reads it (`render.read_json`)."""
    found = await orders.get(location.id, public_id, ctx.client_id, lambda order: not has_view(order, location))
    if found is None:
        raise NotFound(KIND, public_id)
    order, delivery, customer_ref = found
    return read_json(order, location, ctx.client_id, customer_ref, rendered_delivery(delivery, order, location))


@gcpause.pausing
async def list_orders(
    orders: OrderRepository,
    client_id: int | None,
    page: PageRequest,
    filters: dict[str, Any],
    *,
    locations: dict[int, Any],
    account_id: int | None = None,
    encoded: bool = False,
) -> tuple[list[Any], Page]:
    """spec 4.1: newest first, as `client_id` reads them (None: nobody's private refs, as
    the back office shows them). `locations` are the listed locations by pk (one, or every
    location of `account_id` for the account list). `encoded` (the API): each order as its
    GET answers it (`render.read_json`: its stored view's JSON when that is what this reader
    reads); else every order as `personalise` renders it.

    The cyclic collector is paused meanwhile (`kit.gcpause`): 100 orders are tens of
    thousands of objects (their views), which it walked over and over, every 700
    allocations: most of a page's time (benchmarks/orders.py, list pages)."""
    if account_id is not None:
        where: dict[str, Any] = {"account_id": account_id, "timezone": "UTC"}
    else:
        (location_pk, location), *_ = locations.items()
        where = {"location_id": location_pk, "timezone": location.timezone}
    rows, deliveries, customer_refs, result = await orders.page(
        client_id,
        page,
        filters,
        bodies_for=lambda order: not has_view(order, locations[order.location_id]),
        **where,
    )
    body: list[Any] = []
    for order in rows:
        location = locations[order.location_id]
        customer_ref = customer_refs.get(order.customer_id) if order.customer_id is not None else None
        delivery = rendered_delivery(deliveries.get(order.id), order, location)
        if encoded:
            body.append(read_json(order, location, client_id, customer_ref, delivery))
        else:
            body.append(personalise(order, location, client_id, customer_ref, delivery))
    return body, result


# `statuses` (any of several) is the back office board's; the API's list takes one `status`
FILTERS = ("private_ref", "status", "statuses", "created_by", "after", "before", "customer_id")


def order_filters(named: Callable[[str], str], **given: str | datetime | tuple[str, ...] | None) -> dict[str, Any]:
    """The filters of an order list (spec 4.1), checked once for the API and the back office:
    a status that is not one (spec 3.1), or a time that is not one, is a 400 naming the
    filter as the caller's form does (`named`). Filters not given are None; times come as
    text, or already read. A filter this function does not know is a programming error."""
    unknown = set(given) - set(FILTERS)
    if unknown:
        raise TypeError(f"unknown order filters: {sorted(unknown)}")
    filters: dict[str, Any] = {name: given.get(name) for name in FILTERS}
    for status in (filters["status"], *(filters["statuses"] or ())):
        if status is not None and status not in STATUSES:
            raise BadRequest(f"{named('status')}: {shown(status)} is not an order status")
    for name in ("after", "before"):
        if isinstance(value := filters[name], str):
            try:
                filters[name] = parse_datetime(value)
            except WireError as exc:
                raise BadRequest(f"{named(name)}: {exc}") from None
    return filters


class OrderFile(NamedTuple):
    """An order as the back office shows it (`order_file`)."""

    order: Order
    shown: dict[str, Any]  # its read shape, without anybody's private refs
    history: list[tuple[Change, str | None, str | None]]  # its changes, oldest first: application, person


async def order_file(orders: OrderRepository, location: LocationRef, public_id: str) -> OrderFile:
    """An order of a location (404 otherwise) as the back office shows it: its read shape as
    its events carry it, and the changes of the order and of its delivery, oldest first, each
    with the name of the application that caused it and the email of the person who made it
    from the back office (neither: Comptoir itself)."""
    order = await orders.in_location(location.id, public_id)
    if order is None:
        raise NotFound(KIND, public_id)
    delivery = await orders.delivery_of(order.id)
    shown = event_state(order, location, rendered_delivery(delivery, order, location))
    last = max(order.updated_at, delivery.updated_at) if delivery is not None else order.updated_at
    return OrderFile(order, shown, await orders.history(order, last))


async def order_in_location(
    session: AsyncSession, location_id: int, public_id: str, *, for_update: bool = False
) -> Order:
    """An order of a location (locked with `for_update`), or 404."""
    order = await OrderRepository(Unit.of(session)).in_location(location_id, public_id, for_update=for_update)
    if order is None:
        raise NotFound(KIND, public_id)
    return order


async def order_for_update(orders: OrderRepository, location_id: int, public_id: str) -> Order:
    """An order of a location, locked for an update (its customer first), or 404."""
    order = await orders.for_update(location_id, public_id)
    if order is None:
        raise NotFound(KIND, public_id)
    return order


# --- updating -----------------------------------------------------------------------------


async def update_order(
    orders: OrderRepository,
    ctx: Ctx | None,
    location: LocationRef,
    order: Order,
    body: OrderUpdate,
    *,
    by: int | None = None,
) -> dict[str, Any]:
    """PATCH/PUT /locations/:id/orders/:id (spec 4.1): the updatable fields and the element
    forms. Records `order.update` (and `own_order.update` for its creator) when the order
    changed, caused by `ctx`'s connection (None: the back office, which sets no private
    ref, and names the person `by`). The caller holds the row lock."""
    given = body.model_fields_set
    session = await orders.session()
    delivery = rendered_delivery(await orders.delivery_of(order.id), order, location)
    previous = render_order(order, location.timezone, location.public_id, delivery=delivery)
    errors = FieldErrors()
    stored = copy.deepcopy(order.body)
    all_refs = copy.deepcopy(order.refs)
    mine = str(ctx.client_id) if ctx is not None else None
    refs = all_refs.setdefault(mine, {}) if mine is not None else {}
    if "driver_pickup_url" in given and body.driver_pickup_url is not None and stored.get("service_type") != "delivery":
        errors.add("driver_pickup_url", "is only for delivery orders (service_type delivery)")
    if "custom_fields" in given:
        try:
            stored["custom_fields"] = custom_fields.merge(stored.get("custom_fields", {}), body.custom_fields)
        except WireError as exc:
            errors.add("custom_fields", str(exc))
    adds = {c: element_changes(c, getattr(body, c), stored, refs, errors) for c in COLLECTIONS if c in given}
    for collection, elements in adds.items():
        if len(stored[collection]) + len(elements) > MAX_ELEMENTS:
            errors.add(collection, f"an order holds at most {MAX_ELEMENTS} {collection}, deleted ones included")
    errors.raise_if_any()

    if "status" in given:
        order.status = body.status
    if "confirmed_time" in given:
        stored["confirmed_time"] = (
            localize(body.confirmed_time, location.timezone).isoformat() if body.confirmed_time else None
        )
    for name in ("driver_pickup_url", "seller_notes", "collection_code"):
        if name in given:
            stored[name] = getattr(body, name)
    added = []
    for collection, elements in adds.items():
        for element in elements:
            entry = stored_element(collection, element, 0)
            stored[collection].append(entry)
            added.append((entry, element.private_ref))
    total = totals.order_total(stored)
    give_ids(added, refs, await orders.new_ids(ORDER_ELEMENT_IDS.name, len(added)))
    if "private_ref" in given and ctx is not None:
        await set_ref(session, KIND, order.id, ctx.client_id, body.private_ref)
        if body.private_ref is None:
            refs.pop(ORDER_REF, None)
        else:
            refs[ORDER_REF] = body.private_ref
    if not refs and mine is not None:
        all_refs.pop(mine, None)
    old_total = order.total
    order.body = stored
    order.refs = all_refs
    order.total = total
    if order.customer_id is not None and order.total != old_total:
        customer = await orders.lock_customer(order.customer_id)
        if customer is not None:
            _count_order(customer, order, exact_sub(order.total, old_total), 0)
    new = render_order(order, location.timezone, location.public_id, delivery=delivery)
    if new != previous:
        keep_view(order, location, new)
        order.updated_at = clock.now()
        await record(session, ctx, order, location, "update", by=by, previous_state=previous, new_state=new)
    if ctx is None:
        return new
    customer_ref = await orders.customer_ref(order.customer_id, ctx.client_id) if order.customer_id else None
    return as_read_by(new, order, all_refs.get(str(ctx.client_id), {}), customer_ref)


# --- joining customers (comptoir.customers.hooks) -----------------------------------------


def join_customers() -> None:
    """The orders' part of a customer's lifecycle (`comptoir.customers.hooks`), joined by
    `create_app`."""
    hooks.join(on_anonymise=(anonymise_orders,), order_lookup=order_for_loyalty)


async def anonymise_orders(session: AsyncSession, ctx: Ctx | None, customer: Customer) -> None:
    """spec 4.6 items 3-4: the customer object of each of the customer's orders is
    anonymised like the customer, with an `order.update` event per order changed."""
    orders = OrderRepository(Unit.of(session))
    rows = await orders.of_customer(customer.id)
    deliveries = await orders.deliveries_of([order.id for order, _location in rows])
    for order, location in rows:
        snapshot = order.body.get("customer")
        if snapshot is None:
            continue
        anonymised = {**snapshot, **dict.fromkeys(ANONYMISED_FIELDS), "anonymised": True}
        if customer_read(anonymised) == customer_read(snapshot):
            continue
        delivery = rendered_delivery(deliveries.get(order.id), order, location)
        previous = event_state(order, location, delivery)
        order.body = {**order.body, "customer": anonymised}
        order.updated_at = clock.now()
        new = event_state(order, location, delivery)
        keep_view(order, location, new)
        await record(session, ctx, order, location, "update", previous_state=previous, new_state=new)


async def order_for_loyalty(session: AsyncSession, customer_list_id: int, public_id: str) -> tuple[int, int] | None:
    """spec 4.7: a loyalty operation's `order_id` names an order of the list's account."""
    return await OrderRepository(Unit.of(session)).in_list_account(customer_list_id, public_id)
