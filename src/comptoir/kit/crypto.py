"""Secrets: derivation from the data key, lookup hashes, password hashing, sealed values.

Tokens and client secrets are never stored in clear (docs/architecture.md "Secrets"). They are *derived* from the
installation's data key (which the server key, `COMPTOIR_SECRET_KEY`, opens: `db/server_key.py`) and a random
per-row seed, so the service can give the same token back on re-authorisation (spec 5.5 item 2) and sign callbacks
with the client secret (spec 6.4), while the database alone reveals neither. Lookups go through an HMAC of the
presented value; comparisons are constant-time. A sandbox's seed file may give a token or client secret as text
(docs/sandbox.md "Ids, tokens and secrets"): `given_seed` seals it into the row's seed, and `secret_of`, the one
function that turns a seed into its secret, opens it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCMSIV
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

_hasher = PasswordHasher()  # argon2id with the library's recommended parameters


_seeds: ContextVar[tuple[str, list[int], str | None] | None] = ContextVar("comptoir_seeds", default=None)


def new_seed() -> str:
    """A random per-row seed; inside `seeds_from(label)`, the next of `label`'s fixed seeds
    (the first being `given`, when `seeds_from` has one)."""
    fixed = _seeds.get()
    if fixed is None:
        return secrets.token_hex(16)
    label, drawn, given = fixed
    drawn[0] += 1
    if given is not None and drawn[0] == 1:
        return given
    return hashlib.sha256(f"comptoir-seed\x1f{label}\x1f{drawn[0]}".encode()).hexdigest()[:32]


@contextmanager
def seeds_from(label: str, given: str | None = None) -> Iterator[None]:
    """Seeds drawn inside are fixed by `label`, not random: the sandbox's tokens and client
    secrets are the same at every start of the same seed file (docs/sandbox.md "Ids, tokens and
    secrets"); the first is `given` when there is one (a secret the seed file gives, as
    `given_seed` made it). Nothing else uses it: a real installation's seeds are random."""
    token = _seeds.set((label, [0], given))
    try:
        yield
    finally:
        _seeds.reset(token)


def derive(key: bytes, purpose: str, *parts: str | int) -> str:
    """A 32-hex-character secret bound to `purpose` and `parts` under the server key."""
    message = "\x1f".join([purpose, *map(str, parts)]).encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()[:32]


# A seed holding a secret given as text (a sandbox seed file's `access_token` or
# `client_secret`, docs/sandbox.md "Ids, tokens and secrets"): the text sealed under the key,
# after this mark. A derived seed is hexadecimal: it never starts so.
GIVEN = "given:"
GIVEN_SEED_LENGTH = 512  # characters of a seed column: a given secret of 256 characters sealed fits


def given_seed(key: bytes, purpose: str, secret: str) -> str:
    """The seed whose secret for `purpose` (`secret_of`) is `secret` itself."""
    sealed = _given_sealer(key, purpose).seal(secret.encode(), purpose.encode())
    return GIVEN + base64.urlsafe_b64encode(sealed).decode().rstrip("=")


def secret_of(key: bytes, purpose: str, seed: str) -> str:
    """The secret a row's seed gives for `purpose`: derived from the key and the seed, or the
    text a given seed holds. A given seed that does not open under `key` (sealed under another
    key, or altered) gives a derived secret, as any seed would: a token whose lookup hash
    never matches, a client secret that changed with the key."""
    if seed.startswith(GIVEN):
        packed = seed[len(GIVEN) :]
        try:
            sealed = base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4))
        except (binascii.Error, ValueError):
            sealed = b""
        opened = _given_sealer(key, purpose).open(sealed, purpose.encode())
        if opened is not None:
            return opened.decode()
    return derive(key, purpose, seed)


@lru_cache(maxsize=16)
def _given_sealer(key: bytes, purpose: str) -> Sealer:
    return Sealer(key, f"comptoir-given-secret:{purpose}")


def lookup_hash(key: bytes, value: str) -> str:
    """What the database stores to find a token: an HMAC, useless without the server key."""
    return hmac.digest(key, b"lookup\x1f" + value.encode(), "sha256").hex()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    """Whether `password` is the one of `password_hash`. None (no such user) is checked
    against a stand-in hash of the same cost and is never right: a login for an email that
    does not exist takes as long as a wrong password for one that does."""
    try:
        if password_hash is None:
            _hasher.verify(_stand_in(), password)
            return False
        return _hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


_stand_ins: dict[PasswordHasher, str] = {}  # one per hasher (its parameters)


def _stand_in() -> str:
    hasher = _hasher
    found = _stand_ins.get(hasher)
    if found is None:
        found = _stand_ins[hasher] = hasher.hash(secrets.token_urlsafe(32))
    return found


class Sealer:
    """Authenticated encryption under a key derived from the server key for one `purpose`
    (HKDF-SHA256, the purpose as its info): `seal` hides a value and binds it to `bound_to`
    (authenticated, not hidden); `open` gives the value back only for the same key, purpose
    and `bound_to`, else None. AES-GCM-SIV with a random nonce: a sealed value is different
    every time, and a repeated nonce, however unlikely, reveals no key."""

    NONCE = 12
    TAG = 16

    def __init__(self, key: bytes, purpose: str) -> None:
        derived = HKDF(algorithm=SHA256(), length=32, salt=None, info=purpose.encode()).derive(key)
        self._aead = AESGCMSIV(derived)

    def seal(self, value: bytes, bound_to: bytes) -> bytes:
        nonce = secrets.token_bytes(self.NONCE)
        return nonce + self._aead.encrypt(nonce, value, bound_to)

    def open(self, sealed: bytes, bound_to: bytes) -> bytes | None:
        if len(sealed) < self.NONCE + self.TAG:
            return None
        try:
            return self._aead.decrypt(sealed[: self.NONCE], sealed[self.NONCE :], bound_to)
        except InvalidTag:
            return None
