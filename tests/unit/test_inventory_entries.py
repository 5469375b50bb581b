"""docs/architecture.md "Request bodies": an inventory's entries are read once, as they stream
in or as the back office gives them, with the same errors either way."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson
import pytest

from comptoir.catalogs import fields, inventory
from comptoir.errors import Unprocessable
from comptoir.kit import clock
from comptoir.kit.decimals import parse_decimal
from comptoir.kit.jsonstream import Stream

REFS = {"sku": {"cola"}, "option": {"mayo"}}
TIMEZONE = "Europe/Paris"
BAD = [
    {"sku_ref": "ghost", "stock": "1"},
    {"option_ref": "mayo", "stock": "0", "expires_at": "2026-06-24T12:00:00"},
    {"sku_ref": "cola", "stock": "1.2345", "expires_at": "soon"},
    {"sku_ref": "cola", "option_ref": "mayo"},
    {"sku_ref": "cola", "stock": None},
]


def streamed(body: Any, method: str) -> Any:
    """`body` as the API reads it: streamed with the inventory's Shape (one byte at a time)."""
    shape, errors = inventory.shape(method)
    stream = Stream(shape, tally=errors)
    for byte in orjson.dumps(body):
        stream.feed(bytes([byte]))
    return stream.close()


def errors_of(body: Any, *, patch: bool) -> list[tuple[str, str]]:
    with pytest.raises(Unprocessable) as refused:
        inventory._parse_entries(body, REFS, TIMEZONE, patch=patch)
    return [(error.field, error.message) for error in refused.value.errors]


FORMATS = [
    ("[2].stock", "must have at most 3 decimals"),
    ("[2].expires_at", "'soon' is not a valid ISO 8601 time (expected e.g. \"2026-06-24T17:07:53+02:00\")"),
    ("[2].expires_at", "is allowed only with stock 0 (when the item comes back)"),
    ("[3]", "must have exactly one of sku_ref and option_ref"),
]
AGAINST_THE_CATALOG = [
    ("[0].sku_ref", "no sku of the catalog has the ref 'ghost'"),
    ("[1].expires_at", "must be in the future"),
    ("[4].sku_ref", "'cola' is listed twice"),
]


@pytest.mark.parametrize(
    ("method", "errors"),
    [
        ("PUT", [*FORMATS, ("[4].stock", "is required"), *AGAINST_THE_CATALOG]),
        ("PATCH", [*FORMATS, *AGAINST_THE_CATALOG]),
    ],
)
def test_a_streamed_body_and_the_same_entries_given_whole_have_the_same_errors_in_one_order(
    method: str, errors: list[tuple[str, str]]
) -> None:
    clock.freeze(datetime(2026, 6, 24, 15, 0, tzinfo=UTC))  # 17:00 in Paris: noon is past
    patch = method == "PATCH"
    assert errors_of(streamed(BAD, method), patch=patch) == errors
    assert errors_of(BAD, patch=patch) == errors


@pytest.mark.parametrize("whole", [True, False])
def test_each_entry_is_read_once(monkeypatch: pytest.MonkeyPatch, whole: bool) -> None:
    read: list[Any] = []

    def counted(value: Any) -> Any:
        read.append(value)
        return parse_decimal(value)

    monkeypatch.setattr(fields, "parse_decimal", counted)
    body = [{"sku_ref": "cola", "stock": "12"}, {"option_ref": "mayo", "stock": "3"}]
    entries = inventory._parse_entries(body if whole else streamed(body, "PATCH"), REFS, TIMEZONE, patch=True)
    assert [entry[:3] for entry in entries] == [
        ("sku", "cola", parse_decimal("12")),
        ("option", "mayo", parse_decimal("3")),
    ]
    assert read == ["12", "3"]
