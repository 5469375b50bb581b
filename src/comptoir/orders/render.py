"""The read shape of an order (spec 2.5), rendered once: `render_order` is the one renderer,
without anybody's private refs: its output is stored with the order (its view) and carried
by its events. `as_read_by` gives it to one reader, the one place of the rules of what a
reader sees besides (their private refs, the customer's ids only while the customer
exists). docs/api/orders.md "Reads".

An order's read shape carries its delivery: the delivery's read shape is rendered here
(`render_delivery`), and `deliveries/` answers with it too.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

import orjson

from comptoir.customer_lists.service import ListInReach
from comptoir.customers.schemas import Customer as CustomerRead
from comptoir.customers.service import PLAIN_FIELDS, render_customer
from comptoir.kit import custom_fields, ids, jsonutil
from comptoir.kit.decimals import render_decimal
from comptoir.kit.money import Money, money_text
from comptoir.kit.times import render_datetime
from comptoir.models import Customer, Delivery, LoyaltyCard
from comptoir.models.locations import LocationRef
from comptoir.orders import totals
from comptoir.orders.rows import OrderLike

KIND = "order"
ELEMENT_KIND = "order_element"
COLLECTIONS = ("items", "discounts", "charges", "payments")
MONEY_FIELDS = {"items": "price", "discounts": "price_off", "charges": "price", "payments": "amount"}
ORDER_REF = "order"  # key of the order's own ref in `Order.refs[client]`


def _money(amount: str | None, currency: str) -> str | None:
    if amount is None:
        return None
    if amount[-3:-2] == ".":  # stored as written (`_amount`): already in cents
        return f"{amount} {currency}"
    return money_text(Decimal(amount), currency)


def _decimal(value: str | None) -> str | None:
    return render_decimal(Decimal(value)) if value is not None else None


def _render_item(item: dict[str, Any], currency: str) -> dict[str, Any]:
    return {
        "id": ids.encode(ELEMENT_KIND, item["id"]),
        "private_ref": None,  # the reader's (`as_read_by`)
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


def _render_discount(discount: dict[str, Any], currency: str) -> dict[str, Any]:
    return {
        "id": ids.encode(ELEMENT_KIND, discount["id"]),
        "private_ref": None,  # the reader's (`as_read_by`)
        "deleted": discount["deleted"],
        "name": discount["name"],
        "ref": discount.get("ref"),
        "price_off": _money(discount["price_off"], currency),
        "pricing_effect": discount.get("pricing_effect"),
        "pricing_value": discount.get("pricing_value"),
    }


def _render_charge(charge: dict[str, Any], currency: str) -> dict[str, Any]:
    price = _money(charge["price"], currency)
    return {
        "id": ids.encode(ELEMENT_KIND, charge["id"]),
        "private_ref": None,  # the reader's (`as_read_by`)
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


def _render_payment(payment: dict[str, Any], currency: str) -> dict[str, Any]:
    return {
        "id": ids.encode(ELEMENT_KIND, payment["id"]),
        "private_ref": None,  # the reader's (`as_read_by`)
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
    stored = customer_read(shown)
    del stored["private_ref"]
    return stored


def customer_read(snapshot: dict[str, Any]) -> dict[str, Any]:
    """A stored snapshot with every key of the read shape: null or empty for those a
    snapshot stored before lacks."""
    return {name: snapshot.get(name, _EMPTY.get(name)) for name in CUSTOMER_KEYS}


def _customer(order: OrderLike) -> dict[str, Any] | None:
    """spec 2.5 rule 6: the snapshot taken when the customer was attached (every key of the
    Customer read shape, null or empty when a snapshot stored before lacks one), shown as
    `_as_attached` says, without anybody's private ref."""
    snapshot = order.body.get("customer")
    if snapshot is None:
        return None
    return _as_attached(customer_read(snapshot), order, None)


def _shows_no_ids(customer: dict[str, Any] | None) -> bool:
    """Whether an order's `customer` state shows no ids and no private ref (none, a guest,
    or shown detached): what `_as_attached` leaves as it is while the order has no customer."""
    return customer is None or (
        customer["id"] is None and customer["customer_list_id"] is None and customer["private_ref"] is None
    )


def _as_attached(customer: dict[str, Any], order: OrderLike, customer_ref: str | None) -> dict[str, Any]:
    """spec 2.5 rule 6: an order's customer shows its ids, and the reader's private ref on it
    (`customer_ref`), only while the customer exists (the foreign key nulls `customer_id`
    when it is deleted)."""
    if order.customer_id is None:
        if _shows_no_ids(customer):
            return customer  # a guest, or shown detached already
        return {**customer, "id": None, "customer_list_id": None, "private_ref": None}
    return {**customer, "id": ids.encode(Customer.KIND, order.customer_id), "private_ref": customer_ref}


def render_order(
    order: OrderLike, timezone: str, location_public_id: str, *, delivery: dict[str, Any] | None = None
) -> dict[str, Any]:
    """spec 2.5 Order without anybody's private refs: the order's view and its events'
    states (`as_read_by` gives it to one reader)."""
    body = order.body
    currency = body["currency"]
    zero = str(Money(Decimal(0), currency))
    rendered: dict[str, Any] = {
        "id": order.public_id if order.id is not None else None,
        "location_id": location_public_id,
        "created_at": render_datetime(order.created_at, timezone),
        "created_by": order.created_by,
        "connection_name": body.get("connection_name"),
        "channel": body.get("channel"),
        "ref": body.get("ref"),
        "private_ref": None,
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
        rendered[collection] = [render(e, currency) for e in body[collection]]
    rendered["deals"] = body.get("deals", {})
    customer = _customer(order)
    rendered["customer_id"] = customer["id"] if customer else None
    rendered["customer_list_id"] = customer["customer_list_id"] if customer else None
    rendered["customer"] = customer
    rendered["loyalty_operations"] = body.get("loyalty_operations", [])
    rendered["custom_fields"] = body.get("custom_fields", {})
    rendered["delivery"] = delivery
    return rendered


def event_state(order: OrderLike, location: LocationRef, delivery: dict[str, Any] | None) -> dict[str, Any]:
    """The order as events carry it: with its (rendered) delivery, without anybody's
    private refs (spec 2.2 item 7)."""
    return render_order(order, location.timezone, location.public_id, delivery=delivery)


def render_delivery(delivery: Delivery, order_id: str, location_id: str, timezone: str) -> dict[str, Any]:
    """spec 2.7 Delivery: an order's `delivery`, and what `deliveries/` answers."""
    return {
        "id": delivery.public_id,
        "order_id": order_id,
        "location_id": location_id,
        "carrier": delivery.carrier,
        "carrier_ref": delivery.carrier_ref,
        "ref": delivery.ref,
        "status": delivery.status,
        "fee": delivery.fee,
        "estimated_pickup_at": render_datetime(delivery.estimated_pickup_at, timezone),
        "estimated_dropoff_at": render_datetime(delivery.estimated_dropoff_at, timezone),
        "tracking_url": delivery.tracking_url,
        "driver_name": delivery.driver_name,
        "driver_phone": delivery.driver_phone,
        "driver_phone_access_code": delivery.driver_phone_access_code,
        "driver_latitude": render_decimal(delivery.driver_latitude) if delivery.driver_latitude is not None else None,
        "driver_longitude": render_decimal(delivery.driver_longitude)
        if delivery.driver_longitude is not None
        else None,
        "driver_pickup_url": delivery.driver_pickup_url,
        "assigned_at": render_datetime(delivery.assigned_at, timezone),
        "pickup_at": render_datetime(delivery.pickup_at, timezone),
        "delivered_at": render_datetime(delivery.delivered_at, timezone),
        "cancelled_at": render_datetime(delivery.cancelled_at, timezone),
        "driver_position_updated_at": render_datetime(delivery.driver_position_updated_at, timezone),
    }


def rendered_delivery(delivery: Delivery | None, order: OrderLike, location: LocationRef) -> dict[str, Any] | None:
    return render_delivery(delivery, order.public_id, location.public_id, location.timezone) if delivery else None


# An order's view is `{"tz": <its timezone>, "detached": <_shows_no_ids(its customer)>,
# "order": <render_order's state>}`, written by `stored_view` and `keep_view` alone, in that
# key order: a list reads it as text and answers that text (`view_json`).


def stored_view(location: LocationRef, state: dict[str, Any]) -> tuple[bytes, orjson.Fragment]:
    """`state` (without private refs) serialised once: its text, which a reader without refs
    reads and the order's change carries, and the order's view holding it."""
    text, plain = jsonutil.dumps_checked(state)
    view = b"".join((_view_head(location.timezone, _shows_no_ids(state["customer"])), text, b"}"))
    return text, jsonutil.stored_fragment(view, plain)


def keep_view(order: OrderLike, location: LocationRef, state: dict[str, Any]) -> None:
    """Store the read shape just rendered for an event (`state`, without private refs),
    without its delivery (a row of its own)."""
    detached = _shows_no_ids(state["customer"])
    order.view = {"tz": location.timezone, "detached": detached, "order": {**state, "delivery": None}}


def _view_head(timezone: str, detached: bool) -> bytes:
    return (
        b'{"tz":'
        + jsonutil.dumps(timezone)
        + (b',"detached":true' if detached else b',"detached":false')
        + b',"order":'
    )


def has_view(order: OrderLike, location: LocationRef) -> bool:
    """Whether the order's view is in the location's timezone (read as text by the API's
    reads: `view_text`, before its view is decoded)."""
    if order.view is None and getattr(order, "view_text", None) is not None:
        text = order.view_text.lstrip(" ")  # type: ignore[union-attr]
        return text.startswith('{"tz":' + jsonutil.dumps_str(location.timezone) + ",")
    return order.view is not None and order.view.get("tz") == location.timezone


_PRIVATE_REF = b',"private_ref":null,"status":'  # render_order's keys, the first that is not the reader's
_NO_DELIVERY = b',"delivery":null}'  # render_order's last key


def view_json(
    order: OrderLike,
    location: LocationRef,
    client_id: int | None,
    delivery: dict[str, Any] | None,
) -> orjson.Fragment | None:
    """`personalise(order, ...)` as JSON, from the view's text (`order.view_text`) without
    decoding it, when what `as_read_by` changes for this reader is the order's own private ref
    alone: the reader has no refs on its elements, the order no customer and its view's
    customer no ids (`_as_attached` leaves it); its `id` and `delivery` are set here as
    `personalise` sets them. None when it is not so (the caller personalises the decoded view).
    The same bytes as `jsonutil.dumps(personalise(...))`: the view's text is orjson's."""
    text = getattr(order, "view_text", None)
    if text is None or order.customer_id is not None:
        return None
    refs = order.refs.get(str(client_id), {}) if client_id is not None else {}
    if any(key != ORDER_REF for key in refs):
        return None
    raw = text.encode()
    head = _view_head(location.timezone, True)
    start = 1 if raw[:1] == b" " else 0  # `jsonutil.stored_fragment`'s mark
    if not raw.startswith(head, start) or not raw.endswith(_NO_DELIVERY + b"}"):
        return None
    state = raw[start + len(head) : -1]
    if not state.startswith(b'{"id":' + jsonutil.dumps(order.public_id) + b","):
        return None
    ref = refs.get(ORDER_REF)
    if ref is not None:
        at = state.find(_PRIVATE_REF)
        # only scalars before it (no object or array opens): the order's own key, not a nested one
        if at < 0 or state.find(b"{", 1, at) >= 0 or state.find(b"[", 0, at) >= 0:
            return None
        state = b"".join((state[:at], b',"private_ref":', jsonutil.dumps(ref), state[at + len(_PRIVATE_REF) - 10 :]))
    if delivery is not None:
        state = b"".join((state[: -len(_NO_DELIVERY)], b',"delivery":', jsonutil.dumps(delivery), b"}"))
    return orjson.Fragment(state)


def personalise(
    order: OrderLike,
    location: LocationRef,
    client_id: int | None,
    customer_ref: str | None,
    delivery: dict[str, Any] | None,
) -> dict[str, Any]:
    """The order as `client_id` reads it (None: nobody's private refs, as the back office
    shows it), with its delivery: from its stored view (decoded from `view_text` when it was
    read as text), or, without one (or with one in another timezone), rendered."""
    if has_view(order, location):
        view = order.view
        if view is None:  # read as text (`view_text`): decoded only when it is read
            view = jsonutil.loads_stored(order.view_text)  # type: ignore[union-attr,arg-type]
        state = view["order"]
    else:
        state = render_order(order, location.timezone, location.public_id)
    refs = order.refs.get(str(client_id), {}) if client_id is not None else {}
    read = as_read_by(state, order, refs, customer_ref)
    read["id"] = order.public_id
    read["delivery"] = delivery
    return read


def read_json(
    order: OrderLike,
    location: LocationRef,
    client_id: int | None,
    customer_ref: str | None,
    delivery: dict[str, Any] | None,
) -> orjson.Fragment | dict[str, Any]:
    """What the API answers of an order for `client_id` (its GET, each order of a list): the
    view's text as it is stored when that is what this reader reads (`view_json`), else
    `personalise`'s. Either way the same bytes once written as JSON."""
    as_json = view_json(order, location, client_id, delivery)
    if as_json is not None:
        return as_json
    return personalise(order, location, client_id, customer_ref, delivery)


def as_read_by(
    state: dict[str, Any], order: OrderLike, refs: dict[str, str], customer_ref: str | None
) -> dict[str, Any]:
    """The order `state` (rendered without private refs: `render_order`, or its view) as the
    reader whose private `refs` on the order these are reads it: their refs on the order and
    its elements, its customer as `_as_attached` shows it to them."""
    read = dict(state)
    read["private_ref"] = refs.get(ORDER_REF)
    by_id = {ids.encode(ELEMENT_KIND, int(key)): ref for key, ref in refs.items() if key != ORDER_REF}
    if by_id:
        for collection in COLLECTIONS:
            read[collection] = [{**element, "private_ref": by_id.get(element["id"])} for element in state[collection]]
    customer = state["customer"]
    if customer is not None:
        shown = _as_attached(customer, order, customer_ref)
        if shown is not customer:
            read["customer"] = shown
            read["customer_id"], read["customer_list_id"] = shown["id"], shown["customer_list_id"]
    return read
