"""The two email rules, named apart:

- **a person's login address** (`normalise`, `lookup_key`): a user's email as people mean it
  (docs/api/oauth.md "Emails"), the one spelling an address is stored and looked up under,
  and the refusal of addresses made to look like another;
- **a contact address** (`ContactEmail`, `parse_contact_email`): a customer's email, which a
  shop copies from wherever it has it, kept exactly as sent and only checked for its shape
  (something, `@`, something; no white space; at most 255 characters;
  docs/api/customers.md).

A login address:

`normalise(text)` gives that spelling or raises `EmailRefused` saying why, in plain words:

1. Spaces around the text go; any other invisible or control character (Unicode categories
   Cc, Cf, Co, Cn, Cs, Zs, Zl, Zp: the zero-width space, the soft hyphen, bidi marks, a
   no-break space...) refuses the address.
2. Unicode NFKC, then lower case: fullwidth letters, ligatures and capitals are the letters
   people mean, so `ＫＡＴＥ@Example.com` is `kate@example.com`. The local part is compared
   without case too: two people whose addresses differ only by case do not exist in practice,
   and one person types their address either way.
3. The domain loses a trailing dot and is checked with IDNA 2008 (the `idna` package): its
   labels are letters, digits and inner hyphens; an `xn--` label is stored as the letters it
   stands for, so both spellings of an international domain are one address.
4. The local part has the ASCII characters RFC 5322 allows in an unquoted address, and
   beyond ASCII only letters, marks and digits (a look-alike of a dot or a slash is refused).
5. Look-alikes (the mixed-script rules of Unicode UTS #39, with its confusables data as the
   `confusable-homoglyphs` package ships it): each label (the local part, each label of the
   domain) is written in one script, or in Latin with Han, Hiragana, Katakana, Bopomofo or
   Hangul as Japanese, Chinese and Korean mix them ("highly restrictive"); and a label wholly
   in another script (Cyrillic, Greek, ...) is refused when every letter of it looks like a
   Latin letter or a digit (`сорее`, Cyrillic letters only, reads as the Latin `copee`).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from typing import Any

import idna
from confusable_homoglyphs import categories

from comptoir.kit.text import too_long
from comptoir.kit.wire import WireError, shown, wire_type

MAX_LENGTH = 254  # RFC 5321 4.5.3.1.3: a path of 256 octets, less its brackets
MAX_LOCAL = 64  # RFC 5321 4.5.3.1.1

_INVISIBLE = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "Zs", "Zl", "Zp"})
_ATEXT = frozenset("abcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+-/=?^_`{|}~")
_NEUTRAL = frozenset({"COMMON", "INHERITED"})
# UTS #39 5.2 "Highly Restrictive": the script mixes that are ordinary writing
_MIXES = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)
_ASCII_LOOKS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")

INVALID = "must be an address such as name@example.com"


class EmailRefused(ValueError):
    """Why an address is refused, in words a person reads (no Python representation)."""


def normalise(text: str) -> str:
    """The stored spelling of `text`; EmailRefused says why there is none."""
    text = text.strip()
    _refuse_invisible(text)
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).lower())
    _refuse_invisible(text)  # what NFKC made of it
    local, at, domain = text.rpartition("@")
    if not at or not local or not domain:
        raise EmailRefused(INVALID)
    domain = _domain(domain.removesuffix("."))
    _check_local(local)
    for label in (local, *domain.split(".")):
        _refuse_lookalike(label)
    email = f"{local}@{domain}"
    if len(email.encode()) > MAX_LENGTH:
        raise EmailRefused(f"must be at most {MAX_LENGTH} bytes long")
    return email


def lookup_key(text: str) -> str | None:
    """The spelling to look `text` up under, None when no stored address can have it."""
    try:
        return normalise(text)
    except EmailRefused:
        return None


def _refuse_invisible(text: str) -> None:
    for char in text:
        if unicodedata.category(char) in _INVISIBLE:
            raise EmailRefused(
                f"has an invisible or control character ({_code(char)}); type the address again without it"
            )


def _domain(domain: str) -> str:
    """The domain in letters (U-labels), checked by IDNA 2008."""
    if "." not in domain or domain.endswith("."):
        raise EmailRefused(INVALID)
    try:
        return idna.decode(idna.encode(domain))
    except idna.IDNAError:
        raise EmailRefused(
            "has a domain that is not a valid domain name (letters, digits and inner hyphens, between dots)"
        ) from None


def _check_local(local: str) -> None:
    if len(local.encode()) > MAX_LOCAL:
        raise EmailRefused(f"must have at most {MAX_LOCAL} bytes before the @")
    if local.startswith(".") or local.endswith(".") or ".." in local:
        raise EmailRefused(INVALID)
    for char in local:
        allowed = (char in _ATEXT or char == ".") if char.isascii() else unicodedata.category(char)[0] in "LMN"
        if not allowed:
            raise EmailRefused(f"has a character an address cannot have ({_code(char)} {char})")


def _refuse_lookalike(label: str) -> None:
    scripts = {_script(char) for char in label} - _NEUTRAL
    if len(scripts) > 1 and not any(scripts <= mix for mix in _MIXES):
        named = " and ".join(sorted(script.capitalize() for script in scripts))
        raise EmailRefused(
            f"mixes {named} letters in {label}, as addresses made to look like another do; type it in one alphabet"
        )
    if len(scripts) == 1 and scripts != {"LATIN"} and all(_looks_ascii(c) for c in label if _script(c) in scripts):
        raise EmailRefused(
            f"is written in {scripts.pop().capitalize()} letters that all look like Latin ones in {label}, "
            "as addresses made to look like another are; type it in Latin letters"
        )


@cache
def _script(char: str) -> str:
    return str(categories.alias(char))


@cache
def _looks_ascii(char: str) -> bool:
    """Whether UTS #39 lists an ASCII letter or digit among the look-alikes of `char`."""
    # imported here: loading the look-alikes data takes about 0.1 s, and only an address
    # written in one non-Latin script needs it
    from confusable_homoglyphs import confusables

    found = confusables.is_confusable(char, greedy=True) or []
    return any(glyph["c"] in _ASCII_LOOKS for entry in found for glyph in entry["homoglyphs"])


def _code(char: str) -> str:
    return f"U+{ord(char):04X}"


# --- a contact address --------------------------------------------------------------------

_CONTACT = re.compile(r"[^@\s]+@[^@\s]+")
MAX_CONTACT = 255


def parse_contact_email(value: Any) -> str:
    """A customer's email as sent, or WireError: a string of at most 255 characters shaped
    like an address."""
    if not isinstance(value, str):
        raise WireError("must be a string")
    if problem := too_long(value, MAX_CONTACT):
        raise WireError(problem)
    if not _CONTACT.fullmatch(value):
        raise WireError(f"{shown(value)} is not a valid email address")
    return value


ContactEmail = wire_type(
    str,
    parse_contact_email,
    None,
    {
        "type": "string",
        "pattern": "^[^@\\s\\u001c-\\u001f\\u0085]+@[^@\\s\\u001c-\\u001f\\u0085]+$",
        "maxLength": MAX_CONTACT,
        "examples": ["ann@example.com"],
    },
)
