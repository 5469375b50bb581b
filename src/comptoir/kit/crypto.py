"""Secrets: derivation from the server key, lookup hashes, password hashing.

Tokens and client secrets are never stored in clear (docs/architecture.md "Secrets"). They are *derived* from the
server key (`COMPTOIR_SECRET_KEY`) and a random per-row seed, so the service can give the same
token back on re-authorisation (spec 5.5 item 2) and sign callbacks with the client secret
(spec 6.4), while the database alone reveals neither. Lookups go through an HMAC of the
presented value; comparisons are constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()  # argon2id with the library's recommended parameters


def new_seed() -> str:
    return secrets.token_hex(16)


def derive(key: bytes, purpose: str, *parts: str | int) -> str:
    """A 32-hex-character secret bound to `purpose` and `parts` under the server key."""
    message = "\x1f".join([purpose, *map(str, parts)]).encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()[:32]


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
