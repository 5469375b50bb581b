"""The convention of executable examples (docs/README.md "Examples", tests/docs_examples.py):
every fenced block of docs/api runs or says why not, and an answer matches the page's exactly
but for the documented placeholders. The examples themselves run in
tests/e2e/test_docs_examples.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs_examples import ExampleError, examples, fill, match

PAGES = sorted((Path(__file__).resolve().parents[2] / "docs" / "api").glob("*.md"))


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_block_of_the_page_runs_or_says_why_not(page: Path) -> None:
    examples(page)  # raises on a block that does neither


def test_the_pages_hold_examples() -> None:
    """A guard against a convention that silently matches nothing."""
    assert sum(len(examples(page)) for page in PAGES) >= 60


def page(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "page.md"
    path.write_text(text)
    return path


def test_a_request_and_its_answer_are_read(tmp_path: Path) -> None:
    [example] = examples(
        page(
            tmp_path,
            'Text\n\n```http\nPOST /v1/x\nX-Access-Token: {t}\nContent-Type: application/json\n\n{"a": 1}\n```\n\n'
            '```json 422\n{"b": 2}\n```\n',
        )
    )
    assert (example.method, example.target, example.status, example.expected) == ("POST", "/v1/x", 422, {"b": 2})
    assert example.headers == [("X-Access-Token", "{t}"), ("Content-Type", "application/json")]
    assert example.body == '{"a": 1}'


@pytest.mark.parametrize(
    "text",
    [
        "```sh\ncurl x\n```\n",  # another block, not marked
        "```http\nGET /v1/x\n```\n",  # a request without its answer
        "```json\n{}\n```\n",  # an answer without its request
        "```http\nGET /v1/x\n```\n```json\nnot json\n```\n",
        "```http\nGET /v1/x\n",  # never closed
    ],
)
def test_a_block_that_neither_runs_nor_says_why_is_refused(tmp_path: Path, text: str) -> None:
    with pytest.raises(ExampleError):
        examples(page(tmp_path, text))


def test_an_illustrative_block_says_why_and_is_skipped(tmp_path: Path) -> None:
    text = "<!-- illustrative: needs a second client -->\n```json\n{}\n```\n"
    assert examples(page(tmp_path, text)) == []
    with pytest.raises(ExampleError):
        examples(page(tmp_path, "<!-- illustrative: -->\n```json\n{}\n```\n"))  # no reason


def test_a_name_binds_at_its_first_sight_and_must_match_after() -> None:
    values: dict[str, str] = {}
    match({"id": "{order_id}"}, {"id": "abc"}, values)
    assert values == {"order_id": "abc"}
    match({"order": "{order_id}", "note": "order {order_id}"}, {"order": "abc", "note": "order abc"}, values)
    with pytest.raises(ExampleError):
        match({"id": "{order_id}"}, {"id": "xyz"}, values)
    assert fill("/v1/orders/{order_id}", values, "here") == "/v1/orders/abc"
    with pytest.raises(ExampleError):
        fill("/v1/orders/{other}", values, "here")


def test_dots_match_any_value_and_an_object_with_dots_at_least_its_keys() -> None:
    match({"a": "...", "b": [1, "..."]}, {"a": {"deep": 1}, "b": [1, None]}, {})
    match({"...": "...", "a": 1}, {"a": 1, "b": 2}, {})
    for expected, actual in (
        ({"a": 1}, {"a": 1, "b": 2}),  # a key the page does not show
        ({"a": 1, "b": 2}, {"a": 1}),  # a key the answer lacks
        ({"...": "...", "c": 1}, {"a": 1}),
        ([1, 2], [1]),
        ({"a": 1}, {"a": 1.0}),
        ({"a": 1}, {"a": True}),
        ({"a": "1"}, {"a": 1}),
    ):
        with pytest.raises(ExampleError):
            match(expected, actual, {})
