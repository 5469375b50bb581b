"""Text a stranger sent is made storable on both databases and shown as text only."""

from __future__ import annotations

import pytest

from comptoir.kit.safetext import printable, storable


@pytest.mark.parametrize(
    ("sent", "stored"),
    [
        ("ok", "ok"),
        ("ok\x00", "ok\ufffd"),
        ("caf\u00e9 cr\u00e8me", "caf\u00e9 cr\u00e8me"),
        ("caf\u00e9\x00", "caf\u00e9\ufffd"),
        ("a\ud800b", "a\ufffdb"),
        ("\u00e9\ud800\x00", "\u00e9\ufffd\ufffd"),
    ],
)
def test_nul_and_lone_surrogates_are_replaced_and_the_rest_kept(sent: str, stored: str) -> None:
    assert storable(sent) == stored


def test_storable_text_is_cut_to_its_bound() -> None:
    assert storable("abc\x00def", 4) == "abc\ufffd"


def test_an_excerpt_shows_printable_text_only_and_marks_a_cut() -> None:
    assert printable("a\x1b[31mb\u202ec", 5) == "a\ufffd[31\u2026"
