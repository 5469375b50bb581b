"""Order totals (spec 2.5 rule 1, docs/api/orders.md "Totals"), exact: no rounding anywhere.

    item subtotal = (item price + sum of option price x option quantity) x item quantity
    order total   = sum of item subtotals + sum of charge prices - sum of discount price_off

over the elements that are not deleted; an option without price is free. Amounts are the
Decimal amounts of Money in the order's currency. An order is never refused for its
arithmetic: when the discounts exceed the rest, the total is 0 (Money is never negative,
spec 2.1).

`order_total` is the one computation of an order's total: every creation path, update and
read takes the total it stores or shows from it.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from comptoir.kit.decimals import exact_add, exact_mul, exact_sub

ZERO = Decimal(0)


def item_subtotal(item: dict[str, Any]) -> Decimal:
    unit = Decimal(item["price"])
    for option in item.get("options") or []:
        if option.get("price") is not None:
            unit = exact_add(unit, exact_mul(Decimal(option["price"]), Decimal(option["quantity"])))
    return exact_mul(unit, Decimal(item["quantity"]))


def order_total(body: dict[str, Any]) -> Decimal:
    total = ZERO
    for item in body["items"]:
        if not item["deleted"]:
            total = exact_add(total, item_subtotal(item))
    for charge in body["charges"]:
        if not charge["deleted"]:
            total = exact_add(total, Decimal(charge["price"]))
    for discount in body["discounts"]:
        if not discount["deleted"]:
            total = exact_sub(total, Decimal(discount["price_off"]))
    return total if total > ZERO else ZERO
