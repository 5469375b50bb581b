"""Public ids: short lowercase base-32 strings derived from integer primary keys.

docs/api/conventions.md "Ids": ids are 6-character base-32 strings (7+ beyond 2**30 rows), unique per resource type.
Each table keeps an integer primary key; its public id is a keyed Feistel permutation of that
integer over 30 bits (6 characters of a 32-letter alphabet without 0/o/1/l), so consecutive
rows get unrelated-looking ids, ids never collide, and decoding an id gives the key back
without any lookup table. Integers of 2**30 and more (a billion rows) get 7+ characters.

The permutation is keyed per installation and per resource type: each database holds a
random key made once, when it is created (table `installation`, `Database.load_id_key`), so
two installations hand out unrelated ids and an id does not tell its row number. It is not
the server key (rotating that changes no id). A database created before there was such a key
keeps the empty key, the derivation it has always used, so every id it handed out holds.
Every process loads the key (`use_key`) before it encodes or decodes an id; until then both
raise, so an id is never made with the wrong key.
"""

from __future__ import annotations

import hashlib
from array import array
from functools import cache, lru_cache
from typing import Annotated

from pydantic import Strict, WithJsonSchema

ALPHABET = "23456789abcdefghijkmnpqrstuvwxyz"
_INDEX = {c: i for i, c in enumerate(ALPHABET)}
_HALF_BITS = 15
_HALF_MASK = (1 << _HALF_BITS) - 1
_DOMAIN = 1 << (2 * _HALF_BITS)  # 32**6
_ROUNDS = 4
MAX_KEY = 1 << 63  # primary keys are signed 64-bit integers on both databases


_key: str | None = None  # this installation's id key (`use_key`); "" for databases made before keys


class IdKeyNotLoaded(RuntimeError):
    """An id was encoded or decoded before the installation's id key was loaded."""


def use_key(key: str) -> None:
    """Key the permutation with `key`, the installation's id key. Changing it forgets every
    id computed and every table built under the previous key."""
    global _key
    if key == _key:
        return
    _key = key
    _round_keys.cache_clear()
    encode.cache_clear()
    _round_tables.cache_clear()
    _TABULATED.clear()
    _uses.clear()


def current_key() -> str | None:
    return _key


def _require_key() -> str:
    if _key is None:
        raise IdKeyNotLoaded("the installation's id key is not loaded (Database.load_id_key)")
    return _key


@lru_cache(maxsize=64)
def _round_keys(kind: str) -> tuple[bytes, ...]:
    key = _require_key()
    prefix = f"comptoir-id:{key}" if key else "comptoir-id"  # "": the derivation before keys
    return tuple(hashlib.sha256(f"{prefix}:{kind}:{r}".encode()).digest()[:16] for r in range(_ROUNDS))


def _f(key: bytes, half: int) -> int:
    digest = hashlib.blake2b(half.to_bytes(2, "big"), key=key, digest_size=2).digest()
    return int.from_bytes(digest, "big") & _HALF_MASK


def _permute(n: int, kind: str) -> int:
    left, right = n >> _HALF_BITS, n & _HALF_MASK
    for key in _round_keys(kind):
        left, right = right, left ^ _f(key, right)
    return (left << _HALF_BITS) | right


def _unpermute(m: int, kind: str) -> int:
    left, right = m >> _HALF_BITS, m & _HALF_MASK
    for key in reversed(_round_keys(kind)):
        left, right = right ^ _f(key, left), left
    return (left << _HALF_BITS) | right


def _to_base32(n: int, width: int) -> str:
    chars = []
    for _ in range(width):
        chars.append(ALPHABET[n & 31])
        n >>= 5
    while n:
        chars.append(ALPHABET[n & 31])
        n >>= 5
    return "".join(reversed(chars))


TABULATE_AFTER = 5000  # ids of one kind encoded or decoded by a process


@lru_cache(maxsize=65536)
def encode(kind: str, pk: int) -> str:
    """Public id of row `pk` of resource type `kind`."""
    if pk < 1:
        raise ValueError("primary keys start at 1")
    if pk >= _DOMAIN:
        _require_key()
        return _to_base32(pk, 7)
    if kind in _TABULATED or _count(kind):
        return _encode_tabulated(_round_tables(kind), pk)
    return _to_base32(_permute(pk, kind), 6)


def _count(kind: str, n: int = 1) -> bool:
    """Count uses of `kind`'s round function; True once it is worth tabulating: a process
    that keeps creating orders (17 element ids each) or reading them gets its tables after a
    few hundred, and each id is then about ten times cheaper."""
    used = _uses.get(kind, 0) + n
    _uses[kind] = used
    if used < TABULATE_AFTER:
        return False
    _TABULATED.add(kind)
    return True


def _encode_tabulated(tables: tuple[array[int], ...], pk: int) -> str:
    left, right = pk >> _HALF_BITS, pk & _HALF_MASK
    for table in tables:
        left, right = right, left ^ table[right]
    n = (left << _HALF_BITS) | right
    return _PAIRS[n >> 20] + _PAIRS[(n >> 10) & 1023] + _PAIRS[n & 1023]


def encode_many(kind: str, pks: list[int]) -> list[str]:
    """`encode` of many keys at once (a catalog's 30,000 items): from 5,000 keys on, the
    round function is tabulated once per kind (4 x 32,768 values, kept)."""
    if kind not in _TABULATED and not _count(kind, len(pks)):
        return [encode(kind, pk) for pk in pks]
    tables = _round_tables(kind)
    return [_encode_tabulated(tables, pk) if 1 <= pk < _DOMAIN else encode(kind, pk) for pk in pks]


@cache  # 256 KB per kind, for the few kinds a process uses most
def _round_tables(kind: str) -> tuple[array[int], ...]:
    """`_f(key, half)` for every half of every round key of `kind` (about 0.1 s, once)."""
    tables = []
    for key in _round_keys(kind):
        keyed = hashlib.blake2b(key=key, digest_size=2)
        table = array("H", bytes(2 << _HALF_BITS))
        for half in range(1 << _HALF_BITS):
            h = keyed.copy()
            h.update(half.to_bytes(2, "big"))
            table[half] = int.from_bytes(h.digest(), "big") & _HALF_MASK
        tables.append(table)
    return tuple(tables)


_TABULATED: set[str] = set()
_uses: dict[str, int] = {}
_PAIRS = [ALPHABET[i >> 5] + ALPHABET[i & 31] for i in range(1024)]  # 10 bits -> 2 characters


def decode(kind: str, public_id: str) -> int | None:
    """Primary key behind `public_id`, or None when it is not an id of that kind."""
    if not 6 <= len(public_id) <= 13:
        return None
    n = 0
    for c in public_id:
        i = _INDEX.get(c)
        if i is None:
            return None
        n = (n << 5) | i
    if len(public_id) == 6:
        if kind in _TABULATED or _count(kind):
            left, right = n >> _HALF_BITS, n & _HALF_MASK
            for table in reversed(_round_tables(kind)):
                left, right = right ^ table[left], left
            pk = (left << _HALF_BITS) | right
        else:
            pk = _unpermute(n, kind)
        return pk if pk >= 1 else None
    # 7+ characters are only ever produced for keys beyond the 6-character domain, and a key
    # is a 64-bit integer: 13 characters may spell more (65 bits), which names no row.
    _require_key()
    return n if _DOMAIN <= n < MAX_KEY else None


# --- ids as the document states them (docs/api/conventions.md "Ids") -------------------------

# 6 characters of ALPHABET (7 to 13 beyond the first billion rows of a kind)
ID_PATTERN = "^[2-9a-km-np-z]{6,13}$"
# a location's: its account's id, a dash and its number
LOCATION_ID_PATTERN = "^[2-9a-km-np-z]{6,13}-[1-9][0-9]{0,8}$"
ID_SCHEMA = {"type": "string", "pattern": ID_PATTERN, "examples": ["4k3jxr"]}
# A resource's id as read and as a body names it: `Id` in a read shape, `IdIn` in a request
# (strict: a JSON string). A request's id that names nothing is answered by its service.
Id = Annotated[str, WithJsonSchema(ID_SCHEMA)]
IdIn = Annotated[str, Strict(), WithJsonSchema(ID_SCHEMA)]
LocationId = Annotated[
    str, WithJsonSchema({"type": "string", "pattern": LOCATION_ID_PATTERN, "examples": ["4k3jxr-1"]})
]
