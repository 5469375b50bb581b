"""docs/architecture.md "Request bodies": a body read as it streams in gives `jsonutil.loads`'
values, however it is cut into chunks, and refuses what `loads` refuses."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from comptoir.errors import FieldErrors
from comptoir.kit import jsonstream
from comptoir.kit.jsonstream import REFUSED, Path, Shape, Stream
from comptoir.kit.jsonutil import loads

LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.decimals(allow_nan=False, allow_infinity=False).map(str).map(lambda text: json.loads(text))
    | st.text()
)
VALUES = st.recursive(
    LEAVES, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
)


def streamed(
    body: bytes, cuts: list[int], shape: Shape | None = None, tally: FieldErrors | None = None, *, whole: bool = True
) -> Any:
    """`body` fed in pieces cut at `cuts`; `whole=False`: walked even when small."""
    saved = jsonstream.WHOLE
    jsonstream.WHOLE = saved if whole else -1
    try:
        stream = Stream(shape, tally=tally)
        start = 0
        for cut in sorted(cut % (len(body) + 1) for cut in cuts):
            stream.feed(body[start:cut])
            start = cut
        stream.feed(body[start:])
        return stream.close()
    finally:
        jsonstream.WHOLE = saved


def keep(value: Any, _path: Path) -> Any:
    return value


@given(VALUES, st.lists(st.integers(min_value=0), max_size=8))
def test_any_json_streamed_in_any_chunks_is_what_loads_gives(value: Any, cuts: list[int]) -> None:
    body = json.dumps({"a": value, "b": [value, value], "c": value}).encode()
    shape = Shape(fields={"b": Shape(items=keep), "c": None}, ignored=False)
    expected = loads(body)
    for whole in (True, False):
        assert repr(streamed(body, cuts, whole=whole)) == repr(expected)
        assert repr(streamed(body, cuts, shape, whole=whole)) == repr(expected)


@pytest.mark.parametrize(
    "body",
    [
        b'{"a": NaN}',
        b'{"a": [Infinity]}',
        b'{"a": "\\ud800"}',
        b'{"\\udc00": 1}',
        b'{"a": 1,}',
        b'{"a" 1}',
        b"{} {}",
        b'{"a": ',
        b"  ",
        b"[" * 100_000 + b"]" * 100_000,
        b'{"b": [' + b"[" * 100_000 + b"]" * 100_000 + b"]}",
    ],
)
def test_what_loads_refuses_is_refused(body: bytes) -> None:
    with pytest.raises(ValueError):  # noqa: PT011  # each case has its own message
        loads(body)
    for cuts in ([], [1], [3, 7], list(range(0, len(body), 5))[:200]):
        for whole in (True, False):
            with pytest.raises(ValueError):  # noqa: PT011  # each case has its own message
                streamed(body, cuts, Shape(fields={"b": Shape(items=keep)}), whole=whole)


def test_after_the_50th_error_elements_are_counted_and_dropped() -> None:
    found = FieldErrors()

    def check(value: Any, path: Path) -> Any:
        if value != {}:
            return value
        found.add(f"[{path[-1]}]", "must not be empty")
        return REFUSED if found.full else value

    body = b'{"b": [1, ' + b",".join([b"{}"] * 100_000) + b', 2], "other": [1, 2]}'
    value = streamed(body, [10, 1000, 50_000], Shape(fields={"b": Shape(items=check)}), found)
    assert value == {"b": [], "other": [1, 2]}  # nothing kept once refused
    assert [error.field for error in found.errors] == [f"[{i}]" for i in range(1, 51)]
    assert found.more == 100_000 - 50


def test_ignored_keys_are_skipped_and_a_container_of_the_wrong_kind_is_kept_empty() -> None:
    shape = Shape(fields={"keep": None, "list": Shape(items=keep)}, ignored=True)
    body = b'{"skip": [[1], {"x": 2}], "keep": {"y": 3}, "list": {"not": "a list"}}'
    for whole in (True, False):
        assert streamed(body, [7], shape, whole=whole) == {"keep": {"y": 3}, "list": {}}


@pytest.mark.parametrize("cut", range(12, 20))
def test_a_nul_escape_cut_in_two_is_seen(cut: int) -> None:
    body = b'{"a": "x\\u0000y"}'
    stream = Stream(Shape(fields={"a": None}))
    stream.feed(body[:cut])
    stream.feed(body[cut:])
    assert stream.close() == {"a": "x\x00y"}
    assert stream.has_nul
