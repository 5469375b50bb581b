"""kit.patterns: `*` wildcards as index ranges, equalities or LIKE."""

from __future__ import annotations

import pytest
from sqlalchemy import String, column
from sqlalchemy.dialects import postgresql

from comptoir.kit.patterns import _successor, matches


def sql(pattern: str) -> str:
    compiled = matches(column("phone", String), pattern).compile(
        dialect=postgresql.dialect(), compile_kwargs={"literal_binds": True}
    )
    return str(compiled)


@pytest.mark.parametrize(
    ("prefix", "successor"),
    [("john", "joho"), ("+4477", "+4478"), ("a\U0010ffff", "b"), ("\U0010ffff", None), ("\ud7ff", "\ue000")],
)
def test_successor_is_the_first_string_after_the_prefix_range(prefix: str, successor: str | None) -> None:
    assert _successor(prefix) == successor


def test_a_trailing_wildcard_is_a_range() -> None:
    assert sql("+4477*") == "phone >= '+4477' AND phone < '+4478'"
    assert sql("+4477**") == "phone >= '+4477' AND phone < '+4478'"


def test_no_wildcard_is_an_equality() -> None:
    assert sql("+447911123456") == "phone = '+447911123456'"


def test_a_lone_wildcard_matches_any_value() -> None:
    assert sql("*") == "phone IS NOT NULL"


def test_other_wildcards_are_like_with_like_characters_escaped() -> None:
    # (the PostgreSQL compiler doubles % for the driver's paramstyle)
    assert sql("*0_1%*") == r"phone LIKE '%%0\_1\%%%%' ESCAPE '\'"
