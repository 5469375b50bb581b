"""spec 2.5 rule 1: totals, exact (0 when the discounts exceed the rest), checked against
an independent computation over random items, options, quantities, charges, discounts and
deletions (hypothesis)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from comptoir.orders.totals import order_total

cents = st.integers(min_value=0, max_value=10_000_000).map(lambda c: f"{Decimal(c) / 100:.2f}")
quantities = st.decimals(min_value=Decimal("0.001"), max_value=Decimal(1000), places=3).map(str)
options = st.lists(
    st.fixed_dictionaries({"price": st.one_of(st.none(), cents), "quantity": st.integers(1, 20)}), max_size=4
)
items = st.lists(
    st.fixed_dictionaries({"price": cents, "quantity": quantities, "options": options, "deleted": st.booleans()}),
    max_size=8,
)
charges = st.lists(st.fixed_dictionaries({"price": cents, "deleted": st.booleans()}), max_size=4)
discounts = st.lists(st.fixed_dictionaries({"price_off": cents, "deleted": st.booleans()}), max_size=4)


def independent_total(body: dict) -> Fraction:
    """The rule, with fractions: nothing shared with the implementation."""
    total = Fraction(0)
    for item in body["items"]:
        if item["deleted"]:
            continue
        unit = Fraction(item["price"]) + sum(
            (Fraction(o["price"]) * o["quantity"] for o in item["options"] if o["price"] is not None), Fraction(0)
        )
        total += unit * Fraction(item["quantity"])
    total += sum((Fraction(c["price"]) for c in body["charges"] if not c["deleted"]), Fraction(0))
    total -= sum((Fraction(d["price_off"]) for d in body["discounts"] if not d["deleted"]), Fraction(0))
    return max(total, Fraction(0))  # discounts beyond the rest leave a total of 0, never negative


@settings(max_examples=300)
@given(items=items, charges=charges, discounts=discounts)
def test_the_total_is_the_exact_sum(items: list, charges: list, discounts: list) -> None:
    body = {"items": items, "charges": charges, "discounts": discounts}
    assert Fraction(order_total(body)) == independent_total(body)
