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

import asyncio
import hashlib
import sys
from array import array
from collections.abc import Iterator
from functools import lru_cache
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
    _TABLES.clear()
    _building.clear()  # a build under the old key finds the key changed and keeps nothing
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
    tables = _TABLES.get(kind)
    if tables is None:
        _count(kind)
        return _to_base32(_permute(pk, kind), 6)
    return _encode_tabulated(tables, pk)


def _count(kind: str, n: int = 1) -> None:
    """Count uses of `kind`'s round function: once it is worth it (a process that keeps
    creating orders, 17 element ids each, or reading them, after a few hundred), its tables
    are built, and each id is then about ten times cheaper."""
    used = _uses.get(kind, 0) + n
    _uses[kind] = used
    if used >= TABULATE_AFTER:
        building = _building.get(kind)
        # none yet, or one that ended without its tables (cancelled with its loop)
        if building is None or building.done() or building.get_loop().is_closed():
            _tabulate_soon(kind)


def _tabulate_soon(kind: str) -> None:
    """In a serving process (an event loop running), a task builds the tables a step at a
    time, spaced out (`_build_in_steps`): built at once, they held the request that crossed
    the count, and every other request of its process, for 60-100 ms (docs/performance.md
    "Id tables off the request path; no dependency in a thread"). Elsewhere (a command, a
    thread) they are built at once."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        tabulate(kind)
        return
    _building[kind] = loop.create_task(_build_in_steps(kind, _require_key()), name=f"comptoir-id-tables-{kind}")


def tabulate(kind: str) -> None:
    """Build `kind`'s tables now, in one go (a batch of many ids, a command, a benchmark's warm-up)."""
    if kind not in _TABLES:
        for _ in _steps(kind, _require_key()):
            pass


def _encode_tabulated(tables: tuple[array[int], ...], pk: int) -> str:
    left, right = pk >> _HALF_BITS, pk & _HALF_MASK
    for table in tables:
        left, right = right, left ^ table[right]
    n = (left << _HALF_BITS) | right
    return _PAIRS[n >> 20] + _PAIRS[(n >> 10) & 1023] + _PAIRS[n & 1023]


def encode_many(kind: str, pks: list[int]) -> list[str]:
    """`encode` of many keys at once (a catalog's 30,000 items): a batch of TABULATE_AFTER keys
    or more is worth its kind's tables at once (4 x 32,768 values, kept)."""
    tables = _TABLES.get(kind)
    if tables is None and len(pks) >= TABULATE_AFTER:
        tabulate(kind)
        tables = _TABLES[kind]
    if tables is None:
        return [encode(kind, pk) for pk in pks]
    return [_encode_tabulated(tables, pk) if 1 <= pk < _DOMAIN else encode(kind, pk) for pk in pks]


# The tables: `_f(key, half)` for every half of every round key of a kind, 64 KB a round
# (256 KB a kind, for the few kinds a process uses most). In a serving process they are built
# in TABLE_STEPS steps of _STEP halves (about 0.5 ms each), one every _PAUSE seconds: the
# steps run back to back would still hold the requests under way (a page's 444 KB answer is
# written in many turns of the loop, each waiting for a step); spaced, a request waits for
# one step at most every 5 ms, and the tables are ready within a second.
_STEP = 1024
_PAUSE = 0.005
TABLE_STEPS = _ROUNDS * ((1 << _HALF_BITS) // _STEP)
_LOW_SEVEN = bytes(b & 0x7F for b in range(256))  # the first byte of a big-endian half, masked to 15 bits


def _digests(key: bytes, start: int) -> list[bytes]:
    """`_f`'s digests for _STEP halves from `start`, the key set once (tests/unit/kit/test_ids.py
    compares the ids made from the tables with `_permute`'s)."""
    keyed = hashlib.blake2b(key=key, digest_size=2)
    out = []
    for half in range(start, start + _STEP):
        h = keyed.copy()
        h.update(half.to_bytes(2, "big"))
        out.append(h.digest())
    return out


def _table(digests: list[bytes]) -> array[int]:
    raw = bytearray(b"".join(digests))
    raw[0::2] = bytes(raw[0::2]).translate(_LOW_SEVEN)
    table = array("H")
    table.frombytes(raw)
    if sys.byteorder == "little":
        table.byteswap()
    return table


def _steps(kind: str, key: str) -> Iterator[None]:
    """Build `kind`'s tables under `key`, pausing (yielding) after each step; they are kept
    only if `key` is still the installation's."""
    tables = []
    for r in range(_ROUNDS):
        digests: list[bytes] = []
        for start in range(0, 1 << _HALF_BITS, _STEP):
            if _key != key:
                return
            digests += _digests(_round_keys(kind)[r], start)
            yield
        tables.append(_table(digests))
    _install(kind, key, tuple(tables))


async def _build_in_steps(kind: str, key: str) -> None:
    for _ in _steps(kind, key):
        await asyncio.sleep(_PAUSE)


def _install(kind: str, key: str, tables: tuple[array[int], ...]) -> None:
    if _key == key:
        _TABLES[kind] = tables


_TABLES: dict[str, tuple[array[int], ...]] = {}
_building: dict[str, asyncio.Task[None]] = {}
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
        tables = _TABLES.get(kind)
        if tables is None:
            _count(kind)
            pk = _unpermute(n, kind)
        else:
            left, right = n >> _HALF_BITS, n & _HALF_MASK
            for table in reversed(tables):
                left, right = right ^ table[left], left
            pk = (left << _HALF_BITS) | right
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
