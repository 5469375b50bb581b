"""Orders (spec 2.5, 3.1, 4.1): creation with totals, customer attachment and loyalty
operations; reads; lists with filters; updates with the element forms of spec 4.1."""

from __future__ import annotations

import copy
from datetime import datetime
from decimal import Decimal
from functools import cache
from types import SimpleNamespace
from typing import Any

import orjson
from pydantic import ValidationError
from sqlalchemy import BigInteger, Select, String, bindparam, insert, select, update
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir import events
from comptoir.auth.context import Ctx
from comptoir.core.private_refs import has_ref, refs_for, set_ref
from comptoir.customer_lists.service import ListInReach
from comptoir.customers import hooks
from comptoir.customers.schemas import ANONYMISED_FIELDS
from comptoir.customers.schemas import Customer as CustomerRead
from comptoir.customers.service import PLAIN_FIELDS, cards_of, render_customer
from comptoir.db.direct import FastReader, Query, Write
from comptoir.db.engine import get_by_public_id
from comptoir.db.ids import allocate
from comptoir.deliveries.render import deliveries_of, delivery_of, render_delivery
from comptoir.errors import FieldErrors, NotFound, field_path, validation_message
from comptoir.events import signals
from comptoir.kit import clock, custom_fields, gcpause, ids, jsonutil
from comptoir.kit.decimals import exact_add, exact_sub, render_decimal
from comptoir.kit.money import Money, money_text
from comptoir.kit.pagination import Key, Page, PageRequest, paginate
from comptoir.kit.refs import parse_private_ref
from comptoir.kit.times import localize, render_datetime
from comptoir.kit.wire import WireError
from comptoir.loyalty.service import INITIAL_BALANCE, add_to_balance
from comptoir.models import (
    ORDER_ELEMENT_IDS,
    Change,
    Customer,
    CustomerList,
    Delivery,
    Event,
    Location,
    LoyaltyCard,
    LoyaltyOperation,
    Order,
    PrivateRef,
)
from comptoir.orders import totals
from comptoir.orders.schemas import ELEMENT_MODELS, OrderCreate, OrderUpdate

KIND = "order"
ELEMENT_KIND = "order_element"
COLLECTIONS = ("items", "discounts", "charges", "payments")
MONEY_FIELDS = {"items": "price", "discounts": "price_off", "charges": "price", "payments": "amount"}
MAX_ELEMENTS = 1000  # per collection, deleted ones included
ORDER_REF = "order"  # key of the order's own ref in `Order.refs[client]`


# --- elements -----------------------------------------------------------------------------


def _amount(money: Money | None) -> str | None:
    return format(money.amount, "f") if money is not None else None


def _option(option: Any) -> dict[str, Any]:
    stored = {name: value for name, value in option.__dict__.items() if name != "price"}
    stored["price"] = _amount(option.price)
    return stored


def _element(collection: str, given: Any, element_id: int) -> dict[str, Any]:
    """The stored form of a new element (decimals and amounts as exact strings)."""
    stored: dict[str, Any] = {"id": element_id, "deleted": False}
    for name, value in given.__dict__.items():  # the fields, as iterating the model gives them
        if name == "private_ref":
            continue
        if isinstance(value, Money):
            stored[name] = _amount(value)
        elif isinstance(value, Decimal):
            stored[name] = format(value, "f")
        elif name == "options":  # their fields are plain values: no model_dump needed
            stored[name] = [_option(option) for option in value]
        elif name == "deal_line":
            stored[name] = dict(value.__dict__) if value is not None else None
        else:
            stored[name] = value
    return stored


def _money(amount: str | None, currency: str) -> str | None:
    if amount is None:
        return None
    if amount[-3:-2] == ".":  # stored as written (`_amount`): already in cents
        return f"{amount} {currency}"
    return money_text(Decimal(amount), currency)


def _decimal(value: str | None) -> str | None:
    return render_decimal(Decimal(value)) if value is not None else None


def _render_item(item: dict[str, Any], currency: str, ref: str | None) -> dict[str, Any]:
    return {
        "id": ids.encode(ELEMENT_KIND, item["id"]),
        "private_ref": ref,
        "deleted": item["deleted"],
        "product_name": item["product_name"],
        "sku_name": item.get("sku_name"),
        "sku_ref": item.get("sku_ref"),
        "price": _money(item["price"], currency),
        "quantity": _decimal(item["quantity"]),
        "subtotal": money_text(totals.item_subtotal(item), currency),
        "tax_rate": _decimal(item.get("tax_rate")),
        "subset": None,
        "customer_notes": item.get("customer_notes"),
        "points_earned": _decimal(item.get("points_earned")),
        "points_used": _decimal(item.get("points_used")),
        "options": [
            {
                "option_list_name": option.get("option_list_name"),
                "name": option["name"],
                "ref": option.get("ref"),
                "price": _money(option.get("price"), currency),
                "quantity": option["quantity"],
                "removed": option.get("removed", False),
            }
            for option in item.get("options") or []
        ],
        "deal_line": item.get("deal_line"),
    }


def _render_discount(discount: dict[str, Any], currency: str, ref: str | None) -> dict[str, Any]:
    return {
        "id": ids.encode(ELEMENT_KIND, discount["id"]),
        "private_ref": ref,
        "deleted": discount["deleted"],
        "name": discount["name"],
        "ref": discount.get("ref"),
        "price_off": _money(discount["price_off"], currency),
        "pricing_effect": discount.get("pricing_effect"),
        "pricing_value": discount.get("pricing_value"),
    }


def _render_charge(charge: dict[str, Any], currency: str, ref: str | None) -> dict[str, Any]:
    price = _money(charge["price"], currency)
    return {
        "id": ids.encode(ELEMENT_KIND, charge["id"]),
        "private_ref": ref,
        "deleted": charge["deleted"],
        "type": charge["type"],
        "name": charge["name"],
        "ref": charge.get("ref"),
        "price": price,
        "tax_rate": _decimal(charge.get("tax_rate")),
        # spec 2.5: legacy copies
        "charge_type": charge["type"],
        "charge_ref": charge.get("ref"),
        "charge_price": price,
    }


def _render_payment(payment: dict[str, Any], currency: str, ref: str | None) -> dict[str, Any]:
    return {
        "id": ids.encode(ELEMENT_KIND, payment["id"]),
        "private_ref": ref,
        "deleted": payment["deleted"],
        "type": payment["type"],
        "name": payment.get("name"),
        "ref": payment.get("ref"),
        "amount": _money(payment["amount"], currency),
        "info": payment.get("info"),
    }


RENDERERS = {
    "items": _render_item,
    "discounts": _render_discount,
    "charges": _render_charge,
    "payments": _render_payment,
}


# --- reading ------------------------------------------------------------------------------


def _time(value: str | None, timezone: str) -> str | None:
    return render_datetime(datetime.fromisoformat(value), timezone) if value is not None else None


CUSTOMER_KEYS = tuple(CustomerRead.model_fields)  # spec 2.6 Customer read shape
_EMPTY: dict[str, Any] = {"custom_fields": {}, "loyalty_cards": []}  # what a guest has none of


def customer_snapshot(
    attached: tuple[Customer, ListInReach, list[LoyaltyCard]] | None, guest: Any
) -> dict[str, Any] | None:
    """spec 2.5 rule 6: the order's `customer` as stored: the full spec 2.6 Customer read
    shape (read-only fields included) of the attached customer as it stands now, rendered
    by the customers' own renderer, or a guest's given fields with null or empty for the
    rest. Without `private_ref`: that is each reader's own, set on read (`_customer`)."""
    if attached is not None:
        customer, found, cards = attached
        shown = render_customer(customer, found, None, cards)
    elif guest is not None:
        given = guest.model_dump(mode="json", include=set(PLAIN_FIELDS))
        shown = {**given, "custom_fields": custom_fields.merge({}, guest.custom_fields or {})}
    else:
        return None
    stored = _customer_read(shown)
    del stored["private_ref"]
    return stored


def _customer_read(snapshot: dict[str, Any]) -> dict[str, Any]:
    """A stored snapshot with every key of the read shape: null or empty for those a
    snapshot stored before lacks."""
    return {name: snapshot.get(name, _EMPTY.get(name)) for name in CUSTOMER_KEYS}


def _customer(order: Order, customer_ref: str | None) -> dict[str, Any] | None:
    """spec 2.5 rule 6: the snapshot taken when the customer was attached (every key of the
    Customer read shape, null or empty when a snapshot stored before lacks one); its ids
    and private ref only while the customer exists (the foreign key nulls `customer_id`
    when it is deleted)."""
    snapshot = order.body.get("customer")
    if snapshot is None:
        return None
    attached = order.customer_id is not None
    shown = _customer_read(snapshot)
    shown["id"] = ids.encode(Customer.KIND, order.customer_id) if attached else None
    shown["customer_list_id"] = snapshot.get("customer_list_id") if attached else None
    shown["private_ref"] = customer_ref if attached else None
    return shown


def render_order(
    order: Order,
    timezone: str,
    location_public_id: str,
    client_id: int | None,
    *,
    customer_ref: str | None = None,
    delivery: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """spec 2.5 Order as `client_id` reads it (its private refs; None: nobody's, for events)."""
    body = order.body
    currency = body["currency"]
    refs = order.refs.get(str(client_id), {}) if client_id is not None else {}
    zero = str(Money(Decimal(0), currency))
    rendered: dict[str, Any] = {
        "id": order.public_id if order.id is not None else None,
        "location_id": location_public_id,
        "created_at": render_datetime(order.created_at, timezone),
        "created_by": order.created_by,
        "connection_name": body.get("connection_name"),
        "channel": body.get("channel"),
        "ref": body.get("ref"),
        "private_ref": refs.get(ORDER_REF),
        "status": order.status,
        "service_type": body.get("service_type"),
        "service_type_ref": body.get("service_type_ref"),
        "expected_time": _time(body.get("expected_time"), timezone),
        "expected_time_pickup": body.get("expected_time_pickup", False),
        "asap": body.get("asap"),
        "confirmed_time": _time(body.get("confirmed_time"), timezone),
        "driver_pickup_url": body.get("driver_pickup_url"),
        "customer_notes": body.get("customer_notes"),
        "seller_notes": body.get("seller_notes"),
        "collection_code": body.get("collection_code"),
        "coupon_codes": body.get("coupon_codes", []),
        "total": str(Money(order.total, currency)),
        "total_discrepancy": zero,  # deprecated (spec 2.5, 9.3): values must not be used
        "payment_discrepancy": zero,
    }
    for collection in COLLECTIONS:
        render = RENDERERS[collection]
        rendered[collection] = [render(e, currency, refs.get(str(e["id"]))) for e in body[collection]]
    rendered["deals"] = body.get("deals", {})
    customer = _customer(order, customer_ref)
    rendered["customer_id"] = customer["id"] if customer else None
    rendered["customer_list_id"] = customer["customer_list_id"] if customer else None
    rendered["customer"] = customer
    rendered["loyalty_operations"] = body.get("loyalty_operations", [])
    rendered["custom_fields"] = body.get("custom_fields", {})
    rendered["delivery"] = delivery
    return rendered


async def order_in_location(
    session: AsyncSession, location_id: int, public_id: str, *, for_update: bool = False
) -> Order:
    pk = ids.decode(Order.KIND, public_id)
    order = None
    if pk is not None:
        stmt = select(Order).where(Order.id == pk, Order.location_id == location_id)
        if for_update:
            stmt = stmt.with_for_update()
        order = await session.scalar(stmt.execution_options(populate_existing=True))
    if order is None:
        raise NotFound(KIND, public_id)
    return order


async def order_for_update(session: AsyncSession, location_id: int, public_id: str) -> Order:
    """The order, locked for an update, after its customer: locks are always taken customer
    first, then orders (as anonymisation does), so the two cannot deadlock."""
    pk = ids.decode(Order.KIND, public_id)
    if pk is not None:
        customer_id = await session.scalar(
            select(Order.customer_id).where(Order.id == pk, Order.location_id == location_id)
        )
        if customer_id is not None:
            await session.execute(select(Customer.id).where(Customer.id == customer_id).with_for_update())
    return await order_in_location(session, location_id, public_id, for_update=True)


async def _customer_ref(session: AsyncSession, order: Order, client_id: int) -> str | None:
    if order.customer_id is None:
        return None
    return (await refs_for(session, "customer", [order.customer_id], client_id)).get(order.customer_id)


_ORDER_COLUMNS = tuple(column.key for column in Order.__table__.columns if column.key != "body")
_DELIVERY_COLUMNS = tuple(column.key for column in Delivery.__table__.columns)
ORDER_READ = Query(
    select(
        *(getattr(Order, name) for name in _ORDER_COLUMNS),
        *(getattr(Delivery, name).label(f"d_{name}") for name in _DELIVERY_COLUMNS),
    )
    .outerjoin(Delivery, Delivery.order_id == Order.id)
    .where(Order.id == bindparam("id"), Order.location_id == bindparam("location_id"))
)
ORDER_BODY = Query(select(Order.body).where(Order.id == bindparam("id")))
CUSTOMER_REF = Query(
    select(PrivateRef.ref).where(
        PrivateRef.resource_type == bindparam("resource_type"),
        PrivateRef.resource_id == bindparam("customer_id"),
        PrivateRef.client_id == bindparam("client_id"),
    )
)


class OrderRow(SimpleNamespace):
    """An order's columns as read by `fast_read`: what rendering reads of an `Order`,
    without the ORM's instrumentation (a tenth of the cost)."""

    @property
    def public_id(self) -> str:
        return ids.encode(Order.KIND, self.id)


async def fast_read(reader: FastReader, ctx: Ctx, location: Any, public_id: str) -> dict[str, Any]:
    """GET of one order without a session or a transaction: one statement for the order and
    its delivery (plus one for the reader's customer ref, when attached)."""
    pk = ids.decode(Order.KIND, public_id)
    row = await reader.one(ORDER_READ, id=pk, location_id=location.id) if pk is not None else None
    if row is None:
        raise NotFound(KIND, public_id)
    order = OrderRow(**{name: row[name] for name in _ORDER_COLUMNS})
    if not _has_view(order, location):  # an order written before views: render it
        order.body = (await reader.one(ORDER_BODY, id=pk))["body"]  # type: ignore[index]
    delivery = None
    if row["d_id"] is not None:
        delivery = Delivery(**{name: row[f"d_{name}"] for name in _DELIVERY_COLUMNS})
    customer_ref = None
    if order.customer_id is not None:
        found = await reader.one(
            CUSTOMER_REF, resource_type="customer", customer_id=order.customer_id, client_id=ctx.client_id
        )
        customer_ref = found["ref"] if found else None
    return read_view(order, location, ctx.client_id, customer_ref, _rendered(delivery, order, location))


# --- lists --------------------------------------------------------------------------------


def _filtered(stmt: Select[Any], ctx: Ctx, filters: dict[str, Any], timezone: str) -> Select[Any]:
    if filters.get("private_ref") is not None:
        stmt = stmt.where(has_ref(KIND, Order.id, ctx.client_id, filters["private_ref"]))
    if filters.get("status") is not None:
        stmt = stmt.where(Order.status == filters["status"])
    if filters.get("created_by") is not None:
        stmt = stmt.where(Order.created_by == filters["created_by"])
    if filters.get("after") is not None:  # spec 4.1: inclusive
        stmt = stmt.where(Order.created_at >= localize(filters["after"], timezone))
    if filters.get("before") is not None:  # exclusive
        stmt = stmt.where(Order.created_at < localize(filters["before"], timezone))
    if filters.get("customer_id") is not None:
        stmt = stmt.where(Order.customer_id == (ids.decode(Customer.KIND, filters["customer_id"]) or 0))
    return stmt


@gcpause.pausing
async def list_orders(
    session: AsyncSession,
    ctx: Ctx,
    page: PageRequest,
    filters: dict[str, Any],
    *,
    locations: dict[int, Any],
    account_id: int | None = None,
) -> tuple[list[dict[str, Any]], Page]:
    """spec 4.1: newest first. `locations` are the listed locations by pk (one, or every
    location of `account_id` for the account list).

    The cyclic collector is paused meanwhile (`kit.gcpause`): 100 orders are tens of
    thousands of objects (their views), which it walked over and over, every 700
    allocations: most of a page's time (benchmarks/orders.py, list pages)."""
    # The columns, not ORM instances: instrumenting 100 orders cost more than reading them
    # (benchmarks/orders.py, list pages); the body only for orders without a view.
    stmt = select(*(getattr(Order, name) for name in _ORDER_COLUMNS))
    if account_id is not None:
        stmt = stmt.where(Order.account_id == account_id)
        timezone = "UTC"
    else:
        (location_pk, location), *_ = locations.items()
        stmt = stmt.where(Order.location_id == location_pk)
        timezone = location.timezone
    stmt = _filtered(stmt, ctx, filters, timezone)
    keys = [Key(Order.created_at, datetime), Key(Order.id, int)]
    result = await paginate(session, stmt, keys, page, descending=True)
    orders = [OrderRow(**row._mapping) for row in result.rows]
    legacy = [order for order in orders if not _has_view(order, locations[order.location_id])]
    if legacy:  # written before views: their bodies, in one query, to render them
        bodies = dict(
            (await session.execute(select(Order.id, Order.body).where(Order.id.in_([o.id for o in legacy])))).all()
        )
        for order in legacy:
            order.body = bodies[order.id]
    deliveries = await deliveries_of(session, [order.id for order in orders])
    attached = [order.customer_id for order in orders if order.customer_id is not None]
    customer_refs = await refs_for(session, "customer", attached, ctx.client_id)
    body = []
    for order in orders:
        location = locations[order.location_id]
        customer_ref = customer_refs.get(order.customer_id) if order.customer_id is not None else None
        delivery = _rendered(deliveries.get(order.id), order, location)
        body.append(read_view(order, location, ctx.client_id, customer_ref, delivery))
    return body, result


# --- writing ------------------------------------------------------------------------------


def _check_currency(path: str, money: Money | None, currency: str, errors: FieldErrors) -> None:
    if money is not None and money.currency != currency:
        errors.add(path, f"must be in {currency}, the account's currency (not {money.currency})")


def _check_element_currencies(collection: str, index: int, element: Any, currency: str, errors: FieldErrors) -> None:
    prefix = f"{collection}[{index}]"
    _check_currency(
        f"{prefix}.{MONEY_FIELDS[collection]}", getattr(element, MONEY_FIELDS[collection]), currency, errors
    )
    for j, option in enumerate(getattr(element, "options", None) or []):
        _check_currency(f"{prefix}.options[{j}].price", option.price, currency, errors)


def _change(ctx: Ctx | None, order: Order, location: Any, event_type: str, **states: Any) -> dict[str, Any]:
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
    session: AsyncSession, ctx: Ctx | None, order: Order, location: Any, event_type: str, **states: Any
) -> None:
    await events.record(session, **_change(ctx, order, location, event_type, **states))


def state(order: Order, location: Any, delivery: dict[str, Any] | None) -> dict[str, Any]:
    """The order as events carry it: with its (rendered) delivery, without anybody's
    private refs (spec 2.2 item 7)."""
    return render_order(order, location.timezone, location.public_id, None, delivery=delivery)


def _rendered(delivery: Delivery | None, order: Order, location: Any) -> dict[str, Any] | None:
    return render_delivery(delivery, order.public_id, location.public_id, location.timezone) if delivery else None


async def _attach_customer(
    session: AsyncSession, ctx: Ctx, body: OrderCreate, account: Any, location: Any, errors: FieldErrors
) -> tuple[Customer, ListInReach, list[LoyaltyCard]] | None:
    """spec 2.5 rule 5 and decisions.md: `customer_id`, or `customer_list_id` with
    `customer_private_ref`, or neither (a guest order); 422 for an unknown customer.
    Returns the customer (locked), its list and its cards: what its snapshot shows."""
    by_id = body.customer_id is not None
    by_ref = body.customer_list_id is not None or body.customer_private_ref is not None
    if by_id and (by_ref or body.customer is not None):
        errors.add("customer_id", "excludes customer_list_id, customer_private_ref and customer")
        return None
    if by_ref and body.customer is not None:
        errors.add("customer", "is used only when no customer identifier is given")
        return None
    customer = row = None
    if by_id:
        pk = ids.decode(Customer.KIND, body.customer_id)  # type: ignore[arg-type]
        if pk is not None:
            stmt = (
                select(Customer, CustomerList)
                .join(CustomerList, CustomerList.id == Customer.customer_list_id)
                .where(Customer.id == pk, CustomerList.account_id == account.id)
                .where((CustomerList.location_id.is_(None)) | (CustomerList.location_id == location.id))
                .with_for_update(of=Customer)
            )
            customer, row = (await session.execute(stmt)).first() or (None, None)
        if customer is None:
            errors.add("customer_id", f"no customer with id {body.customer_id!r}")
    elif by_ref:
        if body.customer_list_id is None or body.customer_private_ref is None:
            missing = "customer_list_id" if body.customer_list_id is None else "customer_private_ref"
            errors.add(
                missing,
                "is required with " + ("customer_private_ref" if missing == "customer_list_id" else "customer_list_id"),
            )
            return None
        row = await get_by_public_id(session, CustomerList, body.customer_list_id)
        if row is None or row.account_id != account.id or row.location_id not in (None, location.id):
            errors.add("customer_list_id", f"no customer list with id {body.customer_list_id!r}")
            return None
        stmt = (
            select(Customer)
            .where(Customer.customer_list_id == row.id)
            .where(has_ref("customer", Customer.id, ctx.client_id, body.customer_private_ref))
            .with_for_update()
        )
        customer = await session.scalar(stmt)
        if customer is None:
            errors.add(
                "customer_private_ref", f"no customer with private ref {body.customer_private_ref!r} in that list"
            )
    if body.loyalty_operations and customer is None and not errors:
        errors.add(
            "loyalty_operations", "are only for orders linked to a customer (customer_id or customer_private_ref)"
        )
    if customer is None or row is None:
        return None
    # the list is this location's or the account's (checked above): rendered as it reads
    found = ListInReach(row, location.timezone if row.location_id is not None else "UTC", account.currency)
    return customer, found, (await cards_of(session, [customer.id]))[customer.id]


async def _apply_loyalty(
    session: AsyncSession, order: Order, customer: Customer, operations: list[Any]
) -> list[dict[str, Any]]:
    """decisions.md "Orders": each operation moves the customer's card with that ref (null
    allowed), created with `name` when the customer has none; in this transaction."""
    done = []
    for op in operations:
        card = await session.scalar(
            select(LoyaltyCard).where(
                LoyaltyCard.customer_id == customer.id,
                LoyaltyCard.ref.is_(None) if op.ref is None else LoyaltyCard.ref == op.ref,
            )
        )
        if card is None:
            card = LoyaltyCard(
                customer_list_id=customer.customer_list_id,
                customer_id=customer.id,
                name=op.name,
                ref=op.ref,
                balance=INITIAL_BALANCE,
                created_at=clock.now(),
            )
            session.add(card)
            await session.flush()
        new_balance = await add_to_balance(session, card.id, op.delta)
        session.add(
            LoyaltyOperation(
                loyalty_card_id=card.id,
                customer_id=customer.id,
                delta=op.delta,
                new_balance=new_balance,
                reason=op.reason,
                order_id=order.id,
                order_location_id=order.location_id,
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
    return done


def _count_order(customer: Customer, order: Order, delta_total: Decimal, count: int) -> None:
    """The customer's order counters (spec 2.6 read-only fields), under its row lock."""
    customer.nb_orders += count
    customer.order_total = exact_add(customer.order_total, delta_total)
    if count:
        first, last = customer.first_order_at, customer.last_order_at
        customer.first_order_at = order.created_at if first is None or order.created_at < first else first
        customer.last_order_at = order.created_at if last is None or order.created_at > last else last


def _give_ids(added: list[tuple[dict[str, Any], str | None]], refs: dict[str, str], element_ids: list[int]) -> None:
    """The new elements' ids, taken once the order is accepted (a refused request takes
    none), and the caller's refs on them."""
    for (entry, ref), element_id in zip(added, element_ids, strict=True):
        entry["id"] = element_id
        if ref is not None:
            refs[str(element_id)] = ref


def _checked(body: OrderCreate, currency: str, errors: FieldErrors) -> dict[str, str]:
    """The checks of a new order that read nothing; returns its deal keys renumbered."""
    for collection in COLLECTIONS:
        for i, element in enumerate(getattr(body, collection)):
            _check_element_currencies(collection, i, element, currency, errors)
    # spec 2.5: deal keys renumbered "0", "1", ...; an item's deal_key must exist in deals
    renumbered = {key: str(n) for n, key in enumerate(body.deals)}
    for i, item in enumerate(body.items):
        if item.deal_line is not None and item.deal_line.deal_key not in renumbered:
            errors.add(f"items[{i}].deal_line.deal_key", f"{item.deal_line.deal_key!r} is not a key of deals")
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


def _draft(
    ctx: Ctx,
    location: Any,
    account: Any,
    body: OrderCreate,
    attached: tuple[Customer, ListInReach, list[LoyaltyCard]] | None,
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
            entry = _element(collection, element, 0)
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
    _give_ids(added, refs, element_ids)
    if private_ref is not None:
        refs[ORDER_REF] = private_ref
    order.refs = {str(ctx.client_id): refs} if refs else {}
    return refs


async def create_order(
    session: AsyncSession, ctx: Ctx, location: Any, account: Any, body: OrderCreate
) -> dict[str, Any]:
    """POST /locations/:id/orders (spec 2.5, 4.1). Records `order.create`."""
    errors = FieldErrors()
    renumbered = _checked(body, account.currency, errors)
    attached = await _attach_customer(session, ctx, body, account, location, errors)
    errors.raise_if_any()

    order, added = _draft(ctx, location, account, body, attached, renumbered)
    element_ids = await allocate(session, ORDER_ELEMENT_IDS.name, len(added))
    refs = _with_ids(order, added, element_ids, ctx, body.private_ref)
    # A Core insert: the order is not read back through the session (the unit of work
    # costs more than the rest of the creation; benchmarks/orders.py). Its view goes in the
    # same statement; the id, unknown until then, is set on every read.
    state = render_order(order, location.timezone, location.public_id, None)  # no id, no delivery yet
    keep_view(order, location, state)
    values = {name: getattr(order, name) for name in _ORDER_INSERT_COLUMNS}
    order.id = (await session.execute(_INSERT_ORDER, values)).scalar_one()
    state["id"] = order.public_id
    if body.private_ref is not None:
        await set_ref(session, KIND, order.id, ctx.client_id, body.private_ref)
    customer_ref = None
    if attached is not None:
        customer = attached[0]
        if body.loyalty_operations:
            done = await _apply_loyalty(session, order, customer, body.loyalty_operations)
            order.body = {**order.body, "loyalty_operations": done}
            state = render_order(order, location.timezone, location.public_id, None)
            keep_view(order, location, state)
            await session.execute(update(Order).where(Order.id == order.id).values(body=order.body, view=order.view))
        _count_order(customer, order, order.total, 1)
        if body.customer_private_ref is not None:
            customer_ref = body.customer_private_ref
        else:
            customer_ref = (await refs_for(session, "customer", [customer.id], ctx.client_id)).get(customer.id)
    await record(session, ctx, order, location, "create", new_state=state)
    return with_refs(state, refs, customer_ref)


_ORDER_INSERT_COLUMNS = tuple(column.key for column in Order.__table__.columns if column.key != "id")
_INSERT_ORDER = insert(Order.__table__).returning(Order.__table__.c.id)


# --- creation in one statement ------------------------------------------------------------


def in_one_statement(reader: FastReader, body: OrderCreate, idempotency_key: str | None) -> bool:
    """Whether `create_in_one_statement` can create this order: on PostgreSQL, for a guest
    order (or one without customer), without loyalty operations (they lock and move a
    customer's cards) and without an Idempotency-Key (its answer is kept in the creation's
    transaction). Others go through a session: `create_order`."""
    return (
        not reader.is_sqlite
        and idempotency_key is None
        and body.customer_id is None
        and body.customer_list_id is None
        and body.customer_private_ref is None
        and not body.loyalty_operations
    )


@cache
def _create_write(with_ref: bool, with_events: bool) -> Write:
    """The statement writing a new order, its change and, when there are any, the caller's
    private ref and the change's events: a part with nothing to write is left out rather
    than run empty (each inserting part costs the database its table and indexes)."""
    orders, changes = Order.__table__, Change.__table__
    types: dict[str, Any] = {f"o_{c.key}": c.type for c in orders.columns}
    types |= {f"c_{name}": changes.c[name].type for name in events.CHANGE_COLUMNS}
    types |= {
        "ref": PrivateRef.__table__.c.ref.type,
        "receivers": ARRAY(BigInteger()),
        "keys": ARRAY(String()),
    }
    order_columns = ", ".join(c.name for c in orders.columns)
    change_columns = events.CHANGE_COLUMNS
    parts = [
        f"""new_order AS (
            INSERT INTO orders ({order_columns})
            VALUES ({", ".join(f":o_{c.key}" for c in orders.columns)})
        )""",  # noqa: S608 - only the models' names are written in; every value is bound
        f"""change AS (
            INSERT INTO changes ({", ".join(change_columns)})
            VALUES ({", ".join(f":c_{c}" for c in change_columns)})
            RETURNING id, created_at
        )""",  # noqa: S608
    ]
    if with_ref:
        parts.append(
            f"""new_ref AS (
            INSERT INTO private_refs (resource_type, resource_id, client_id, ref)
            VALUES ('{KIND}', :o_id, :o_client_id, :ref)
        )"""  # noqa: S608
        )
    notify = "NULL"
    if with_events:
        parts.append(
            f"""new_events AS (
            INSERT INTO {Event.__tablename__}
                (connection_id, change_id, resource_type, event_type, created_at, attempts, next_attempt_at)
            SELECT receiver.connection_id, change.id, receiver.key, :c_event_type, change.created_at, 0,
                   change.created_at
            FROM change, unnest(:receivers, :keys) AS receiver(connection_id, key)
        )"""  # noqa: S608
        )
        notify = f"pg_notify('{events.NOTIFY_CHANNEL}', '')"
    return Write(
        f"WITH {', '.join(parts)} SELECT change.id, {notify} FROM change",  # noqa: S608
        types,
    )


async def create_in_one_statement(
    reader: FastReader, ctx: Ctx, location: Any, account: Any, body: OrderCreate
) -> dict[str, Any] | orjson.Fragment:
    """`create_order` for what `in_one_statement` accepts, on PostgreSQL: the order, the
    caller's private ref, the `order.create` change and its events are written by one
    statement, atomic on its own, so a creation costs one round trip (its ids come from
    this process's blocks, `sequences.IdBlocks`; its audience is read just before).

    Returns the order as the caller reads it: when the caller gave no private ref, that is
    the rendered order itself, already serialised (a Fragment the response writes as is)."""
    errors = FieldErrors()
    renumbered = _checked(body, account.currency, errors)
    errors.raise_if_any()

    order, added = _draft(ctx, location, account, body, None, renumbered)
    refs = _with_ids(order, added, await reader.next_ids(ORDER_ELEMENT_IDS.name, len(added)), ctx, body.private_ref)
    order.id = (await reader.next_ids(_ORDER_IDS, 1))[0]
    state = render_order(order, location.timezone, location.public_id, None)
    # The view and the change hold the same rendered order: written once, and the view
    # keeps the id (every read sets it anyway).
    text, plain = jsonutil.dumps_checked(state)
    order.view = jsonutil.stored_fragment(
        b'{"tz":' + jsonutil.dumps(location.timezone) + b',"order":' + text + b"}", plain
    )
    change = events.new_change(**_change(ctx, order, location, "create", new_state=orjson.Fragment(text)))
    receivers = await events.audience(reader, change)
    params = {f"o_{name}": getattr(order, name) for name in _ORDER_COLUMN_KEYS}
    params |= {f"c_{name}": getattr(change, name) for name in events.CHANGE_COLUMNS}
    params |= {
        "ref": body.private_ref,
        "receivers": [connection_id for connection_id, _key in receivers],
        "keys": [key for _connection_id, key in receivers],
    }
    await reader.write(_create_write(body.private_ref is not None, bool(receivers)), **params)
    if receivers:
        signals.new_events_committed()
    if not refs:  # no ref of the caller's to show: it reads what every reader reads
        return orjson.Fragment(text)
    return with_refs(state, refs, None)


_ORDER_IDS = f"{Order.__tablename__}_id_seq"
_ORDER_COLUMN_KEYS = tuple(column.key for column in Order.__table__.columns)


def keep_view(order: Order, location: Any, state: dict[str, Any]) -> None:
    """Store the read shape just rendered for an event (`state`, without private refs),
    without its id (known once inserted) and delivery (a row of its own)."""
    order.view = {"tz": location.timezone, "order": {**state, "id": None, "delivery": None}}


def _has_view(order: Order, location: Any) -> bool:
    return order.view is not None and order.view.get("tz") == location.timezone


def read_view(
    order: Order, location: Any, client_id: int | None, customer_ref: str | None, delivery: dict[str, Any] | None
) -> dict[str, Any]:
    """The order as `client_id` reads it, from its stored view: its id, its private refs,
    the customer ids only while the customer exists (spec 2.5 rule 6), its delivery. Orders
    without a view (or with one in another timezone) are rendered."""
    view = order.view
    if not _has_view(order, location):
        return render_order(
            order, location.timezone, location.public_id, client_id, customer_ref=customer_ref, delivery=delivery
        )
    base = view["order"]
    read = with_refs(base, order.refs.get(str(client_id), {}), customer_ref)
    read["id"] = order.public_id
    customer = base["customer"]
    if order.customer_id is None and customer is not None and customer["id"] is not None:
        read["customer"] = {**customer, "id": None, "customer_list_id": None, "private_ref": None}
        read["customer_id"] = read["customer_list_id"] = None
    read["delivery"] = delivery
    return read


def with_refs(state: dict[str, Any], refs: dict[str, str], customer_ref: str | None) -> dict[str, Any]:
    """The order `state` (rendered without private refs) as the client whose `refs` these
    are reads it: the same as render_order for that client, without rendering again."""
    read = dict(state)
    read["private_ref"] = refs.get(ORDER_REF)
    by_id = {ids.encode(ELEMENT_KIND, int(key)): ref for key, ref in refs.items() if key != ORDER_REF}
    if by_id:
        for collection in COLLECTIONS:
            read[collection] = [{**element, "private_ref": by_id.get(element["id"])} for element in state[collection]]
    if read["customer"] is not None and read["customer"]["id"] is not None:
        read["customer"] = {**read["customer"], "private_ref": customer_ref}
    return read


_SINGULAR = {"items": "item", "discounts": "discount", "charges": "charge", "payments": "payment"}


def _element_changes(
    collection: str, raw_elements: list[Any], stored: dict[str, Any], refs: dict[str, Any], errors: FieldErrors
) -> list[Any]:
    """spec 4.1's three forms: add (the full element, no id), delete (`id` and `deleted:
    true`, irreversible), set private ref (`id` and `private_ref`). Applies deletions and
    refs to `stored`/`refs`; returns the validated elements to add."""
    by_public_id = {ids.encode(ELEMENT_KIND, e["id"]): e for e in stored[collection]}
    adds = []
    for i, raw in enumerate(raw_elements):
        path = f"{collection}[{i}]"
        if not isinstance(raw, dict):
            errors.add(path, "must be a JSON object")
            continue
        if "id" not in raw:
            try:
                element = ELEMENT_MODELS[collection].model_validate(raw)
            except ValidationError as exc:
                for error in exc.errors():
                    errors.add(field_path((path, *error["loc"])), validation_message(error))
                continue
            _check_element_currencies(collection, i, element, stored["currency"], errors)
            deal_line = getattr(element, "deal_line", None)
            if deal_line is not None and deal_line.deal_key not in stored.get("deals", {}):
                errors.add(f"{path}.deal_line.deal_key", f"{deal_line.deal_key!r} is not a key of deals")
            adds.append(element)
            continue
        entry = by_public_id.get(raw["id"]) if isinstance(raw["id"], str) else None
        if entry is None:
            errors.add(f"{path}.id", f"no {_SINGULAR[collection]} with id {raw['id']!r} in this order")
            continue
        keys = set(raw) - {"id"}
        if keys == {"deleted"}:
            if raw["deleted"] is not True:
                errors.add(f"{path}.deleted", "can only be true: a deleted element stays deleted")
            else:
                entry["deleted"] = True
        elif keys == {"private_ref"}:
            ref = raw["private_ref"]
            try:
                ref = parse_private_ref(ref) if ref is not None else None
            except WireError as exc:
                errors.add(f"{path}.private_ref", str(exc))
                continue
            if ref is None:
                refs.pop(str(entry["id"]), None)
            else:
                refs[str(entry["id"])] = ref
        else:
            errors.add(
                path,
                "elements cannot be modified (spec 2.5 rule 7): send only id and deleted true, only id and "
                "private_ref, or a new element without id",
            )
    return adds


async def update_order(
    session: AsyncSession, ctx: Ctx, location: Any, order: Order, body: OrderUpdate
) -> dict[str, Any]:
    """PATCH/PUT /locations/:id/orders/:id (spec 4.1): the updatable fields and the element
    forms. Records `order.update` (and `own_order.update` for its creator) when the order
    changed. The caller holds the row lock."""
    given = body.model_fields_set
    delivery = _rendered(await delivery_of(session, order.id), order, location)
    previous = render_order(order, location.timezone, location.public_id, None, delivery=delivery)
    errors = FieldErrors()
    stored = copy.deepcopy(order.body)
    all_refs = copy.deepcopy(order.refs)
    refs = all_refs.setdefault(str(ctx.client_id), {})
    if "driver_pickup_url" in given and body.driver_pickup_url is not None and stored.get("service_type") != "delivery":
        errors.add("driver_pickup_url", "is only for delivery orders (service_type delivery)")
    if "custom_fields" in given:
        try:
            stored["custom_fields"] = custom_fields.merge(stored.get("custom_fields", {}), body.custom_fields)
        except WireError as exc:
            errors.add("custom_fields", str(exc))
    adds = {c: _element_changes(c, getattr(body, c), stored, refs, errors) for c in COLLECTIONS if c in given}
    for collection, new in adds.items():
        if len(stored[collection]) + len(new) > MAX_ELEMENTS:
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
    for collection, new in adds.items():
        for element in new:
            entry = _element(collection, element, 0)
            stored[collection].append(entry)
            added.append((entry, element.private_ref))
    total = totals.order_total(stored)
    _give_ids(added, refs, await allocate(session, ORDER_ELEMENT_IDS.name, len(added)))
    if "private_ref" in given:
        await set_ref(session, KIND, order.id, ctx.client_id, body.private_ref)
        if body.private_ref is None:
            refs.pop(ORDER_REF, None)
        else:
            refs[ORDER_REF] = body.private_ref
    if not refs:
        all_refs.pop(str(ctx.client_id), None)
    old_total = order.total
    order.body = stored
    order.refs = all_refs
    order.total = total
    if order.customer_id is not None and order.total != old_total:
        customer = await session.scalar(select(Customer).where(Customer.id == order.customer_id).with_for_update())
        if customer is not None:
            _count_order(customer, order, exact_sub(order.total, old_total), 0)
    new = render_order(order, location.timezone, location.public_id, None, delivery=delivery)
    if new != previous:
        keep_view(order, location, new)
        order.updated_at = clock.now()
        await record(session, ctx, order, location, "update", previous_state=previous, new_state=new)
    return with_refs(new, all_refs.get(str(ctx.client_id), {}), await _customer_ref(session, order, ctx.client_id))


# --- joining customers (comptoir.customers.hooks) -----------------------------------------


@hooks.on_anonymise
async def anonymise_orders(session: AsyncSession, ctx: Ctx | None, customer: Customer) -> None:
    """spec 4.6 items 3-4: the customer object of each of the customer's orders is
    anonymised like the customer, with an `order.update` event per order changed."""
    stmt = (
        select(Order, Location).join(Location, Location.id == Order.location_id).where(Order.customer_id == customer.id)
    )
    rows = (await session.execute(stmt.with_for_update(of=Order))).all()
    deliveries = await deliveries_of(session, [order.id for order, _location in rows])
    for order, location in rows:
        snapshot = order.body.get("customer")
        anonymised = {**snapshot, **dict.fromkeys(ANONYMISED_FIELDS), "anonymised": True} if snapshot else None
        if anonymised is None or _customer_read(anonymised) == _customer_read(snapshot):
            continue
        delivery = _rendered(deliveries.get(order.id), order, location)
        previous = state(order, location, delivery)
        order.body = {**order.body, "customer": anonymised}
        order.updated_at = clock.now()
        new = state(order, location, delivery)
        keep_view(order, location, new)
        await record(session, ctx, order, location, "update", previous_state=previous, new_state=new)


@hooks.order_lookup
async def order_for_loyalty(session: AsyncSession, customer_list_id: int, public_id: str) -> tuple[int, int] | None:
    """spec 4.7: a loyalty operation's `order_id` names an order of the list's account."""
    pk = ids.decode(Order.KIND, public_id)
    if pk is None:
        return None
    row = (
        await session.execute(
            select(Order.id, Order.location_id)
            .join(CustomerList, CustomerList.account_id == Order.account_id)
            .where(Order.id == pk, CustomerList.id == customer_list_id)
        )
    ).first()
    return (row[0], row[1]) if row else None
