"""The email rules (docs/api/oauth.md "Emails"): the stored spelling of an address, and
the addresses refused as made to look like another."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from comptoir.kit.emails import EmailRefused, lookup_key, normalise


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("Kate838@Example.COM", "kate838@example.com"),
        (" kate838@example.com. ", "kate838@example.com"),
        ("ｋａｔｅ838@ｅｘａｍｐｌｅ.com", "kate838@example.com"),
        ("ﬁona@example.com", "fiona@example.com"),  # a ligature is its letters
        ("Müller@XN--EXMPLE-CUA.com", "müller@exämple.com"),
        ("почта@пример.рф", "почта@пример.рф"),  # one script per label
        ("田中tanaka@example.jp", "田中tanaka@example.jp"),  # Latin with Han, as Japanese is written
        ("first.o'brien+tag@example.co.uk", "first.o'brien+tag@example.co.uk"),
    ],
)
def test_an_address_is_stored_as_people_mean_it(typed: str, stored: str) -> None:
    assert normalise(typed) == stored


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("kate838", "must be an address such as name@example.com"),
        ("kate838@localhost", "must be an address such as name@example.com"),
        ("kate..838@example.com", "must be an address such as name@example.com"),
        ("kate838@example.com..", "must be an address such as name@example.com"),
        ("kate 838@example.com", "has an invisible or control character (U+0020); type the address again without it"),
        (
            "kate838@example.com\u00a0x",
            "has an invisible or control character (U+00A0); type the address again without it",
        ),
        (
            "kate\u200d838@example.com",
            "has an invisible or control character (U+200D); type the address again without it",
        ),
        (
            "kate\u200f838@example.com",
            "has an invisible or control character (U+200F); type the address again without it",
        ),
        (
            "kate838@ex_ample.com",
            "has a domain that is not a valid domain name (letters, digits and inner hyphens, between dots)",
        ),
        ("kate\u2215838@example.com", "has a character an address cannot have (U+2215 \u2215)"),
        ("kate(838)@example.com", "has a character an address cannot have (U+0028 ()"),
        ("a" * 65 + "@example.com", "must have at most 64 bytes before the @"),
        (
            "\u0455\u0441\u043e\u0440\u0435@example.com",  # all Cyrillic, reads as "scope"
            "is written in Cyrillic letters that all look like Latin ones in \u0455\u0441\u043e\u0440\u0435, "
            "as addresses made to look like another are; type it in Latin letters",
        ),
        (
            "kate838@\u0440\u0430\u0443\u0440\u0430\u04cf.com",  # all Cyrillic, reads as "paypal"
            "is written in Cyrillic letters that all look like Latin ones in \u0440\u0430\u0443\u0440\u0430\u04cf, "
            "as addresses made to look like another are; type it in Latin letters",
        ),
    ],
)
def test_an_address_that_is_not_one_or_imitates_another_is_refused(typed: str, message: str) -> None:
    with pytest.raises(EmailRefused) as refused:
        normalise(typed)
    assert str(refused.value) == message
    assert lookup_key(typed) is None


@given(st.text(min_size=1, max_size=30), st.sampled_from(["example.com", "EXAMPLE.com.", "exämple.de", "пример.рф"]))
def test_the_stored_spelling_is_its_own_spelling(local: str, domain: str) -> None:
    """Any address the rules accept is stored so that looking it up again finds it."""
    try:
        stored = normalise(f"{local}@{domain}")
    except EmailRefused:
        return
    assert normalise(stored) == stored
