"""`wire_type(..., memo=True)`: what a string parses to is remembered, with the same answers
as parsing it every time (refusals, JSON numbers, a full memo)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from comptoir.kit import wire
from comptoir.kit.decimals import DecimalStr
from comptoir.kit.money import Money, MoneyStr
from comptoir.kit.wire import WireError, wire_type


class Priced(BaseModel):
    price: MoneyStr
    quantity: DecimalStr


def counting_type(calls: list[Any]) -> Any:
    def parse(value: Any) -> str:
        calls.append(value)
        if value == "bad":
            raise WireError("is bad")
        return str(value).upper()

    return wire_type(str, parse, None, {"type": "string"}, memo=True)


def test_a_repeated_string_is_parsed_once() -> None:
    calls: list[Any] = []

    class Model(BaseModel):
        code: counting_type(calls)  # type: ignore[valid-type]

    assert [Model(code="abc").code for _ in range(3)] == ["ABC", "ABC", "ABC"]
    assert calls == ["abc"]


def test_a_refusal_is_not_remembered() -> None:
    calls: list[Any] = []

    class Model(BaseModel):
        code: counting_type(calls)  # type: ignore[valid-type]

    for _ in range(2):
        with pytest.raises(ValidationError) as caught:
            Model(code="bad")
        assert caught.value.errors()[0]["msg"] == "is bad"
    assert calls == ["bad", "bad"]


def test_values_that_are_not_strings_are_parsed_every_time() -> None:
    calls: list[Any] = []

    class Model(BaseModel):
        code: counting_type(calls)  # type: ignore[valid-type]

    Model(code=Decimal("1.0"))  # type: ignore[arg-type]
    Model(code=Decimal("1"))  # type: ignore[arg-type]
    assert calls == [Decimal("1.0"), Decimal("1")]


def test_json_numbers_keep_their_own_text_after_an_equal_string() -> None:
    assert str(Priced(price="1 EUR", quantity="1").quantity) == "1"
    assert str(Priced(price="1 EUR", quantity=Decimal("1.0")).quantity) == "1.0"  # type: ignore[arg-type]
    assert str(Priced(price="1 EUR", quantity="1.0").quantity) == "1.0"


def test_remembered_amounts_are_the_same_values() -> None:
    first, second = Priced(price="10.5 EUR", quantity="2"), Priced(price="10.5 EUR", quantity="2")
    assert first.price == second.price == Money(Decimal("10.50"), "EUR")
    assert second.quantity == Decimal(2)


def test_a_full_memo_starts_over(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wire, "MEMO_SIZE", 2)
    calls: list[Any] = []

    class Model(BaseModel):
        code: counting_type(calls)  # type: ignore[valid-type]

    for text in ("a", "b", "c", "a", "c"):
        Model(code=text)
    assert calls == ["a", "b", "c", "a"]  # "c" came when full: the memo restarted with it
