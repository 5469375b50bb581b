"""spec 2.1 Money: non-negative, 2 decimals on read, ISO 4217 currency; never float."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from comptoir.kit.money import Money, parse_money, render_money
from comptoir.kit.wire import WireError


@pytest.mark.parametrize(
    ("text", "rendered"),
    [("10 EUR", "10.00 EUR"), ("12.5 EUR", "12.50 EUR"), ("0.99 GBP", "0.99 GBP"), ("0 USD", "0.00 USD")],
)
def test_money_reads_back_with_two_decimals(text: str, rendered: str) -> None:
    assert render_money(parse_money(text)) == rendered


@pytest.mark.parametrize(
    "bad",
    [
        "10",
        "EUR 10",
        "10 eur",
        "10  EUR",
        "-1.00 EUR",
        "1.234 EUR",
        "10 XXQ",
        "1,50 EUR",
        10,
        None,
        "10.00EUR",
        "1e2 EUR",
    ],
)
def test_invalid_money_is_refused_with_a_clear_message(bad: object) -> None:
    with pytest.raises(WireError, match=r"monetary amount|currency"):
        parse_money(bad)


def test_amounts_are_decimals() -> None:
    money = parse_money("0.10 EUR")
    assert money == Money(Decimal("0.10"), "EUR")
    assert money + parse_money("0.20 EUR") == parse_money("0.30 EUR")
    with pytest.raises(ValueError, match="different currencies"):
        _ = money + parse_money("1 USD")


@given(st.integers(min_value=0, max_value=10**13), st.sampled_from(["EUR", "USD", "GBP", "JPY"]))
def test_render_then_parse_is_identity(cents: int, currency: str) -> None:
    money = Money(Decimal(cents) / 100, currency)
    assert parse_money(render_money(money)) == money
