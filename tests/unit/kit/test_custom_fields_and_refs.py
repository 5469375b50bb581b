"""spec 2.2: custom fields (object, 8 KB, merge rules) and private refs (255 characters)."""

from __future__ import annotations

import pytest

from comptoir.kit.custom_fields import MAX_BYTES, merge, parse_custom_fields
from comptoir.kit.refs import parse_private_ref
from comptoir.kit.wire import WireError


def test_merge_rules() -> None:
    current = {"keep": 1, "replace": "old", "remove": True}
    assert merge(current, {"replace": {"new": [1]}, "remove": None, "add": 0}) == {
        "keep": 1,
        "replace": {"new": [1]},
        "add": 0,
    }
    assert current == {"keep": 1, "replace": "old", "remove": True}  # not mutated


def test_removing_an_absent_key_is_harmless() -> None:
    assert merge({}, {"nothing": None}) == {}


def test_size_counts_the_merged_json_in_utf8() -> None:
    at_limit = {"k": "é" * ((MAX_BYTES - len('{"k":""}')) // 2)}
    assert merge({}, at_limit) == at_limit
    with pytest.raises(WireError, match="8192 bytes"):
        merge(at_limit, {"more": 1})


def test_only_objects_are_custom_fields() -> None:
    for bad in ([], "x", 1, None):
        with pytest.raises(WireError, match="JSON object"):
            parse_custom_fields(bad)


def test_private_refs_are_strings_of_at_most_255_characters() -> None:
    assert parse_private_ref("x" * 255) == "x" * 255
    assert parse_private_ref("") == ""
    with pytest.raises(WireError, match="at most 255 characters"):
        parse_private_ref("x" * 256)
    with pytest.raises(WireError, match="a string"):
        parse_private_ref(12)
