"""The installation's data key, held by the database under every server key it accepts
(docs/operations.md "Server key").

Tokens, client secrets, sessions, cursors and the sealed callback secrets are derived from
the data key, never from COMPTOIR_SECRET_KEY itself. The database holds the data key only
wrapped: one row of `server_key_wraps` per accepted server key, the data key sealed under a
key derived from that server key (`kit.crypto.Sealer`: HKDF-SHA256, AES-GCM-SIV). A process
opens it once, at start; changing the server key adds a wrap and later removes the others,
and the data key, hence every secret derived from it, stays the same.

A database without any wrap yet (created, or upgraded from before wraps) takes the server
key itself as its data key: every secret derived from the server key so far stays valid.
"""

from __future__ import annotations

from sqlalchemy import delete, func, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.config import ServerKeyError
from comptoir.db.engine import Database, advisory_lock
from comptoir.kit import clock
from comptoir.kit.crypto import Sealer
from comptoir.models import ServerKeyWrap

PURPOSE = "comptoir-data-key-wrap"
_BOUND = b"server_key_wraps"
_LOCK = 0x6B657973  # "keys": serialises the changes of the wraps on PostgreSQL

MISMATCH = (
    "COMPTOIR_SECRET_KEY does not match this database's key: give a server key this database"
    ' accepts (docs/operations.md "Server key")'
)


class KeyMismatch(ServerKeyError):
    """No wrap of this database opens under the given server key."""


def wrap(server_key: bytes, data_key: bytes) -> bytes:
    return Sealer(server_key, PURPOSE).seal(data_key, _BOUND)


def unwrap(server_key: bytes, wrapped: bytes) -> bytes | None:
    """The data key in `wrapped`, or None when `server_key` is not the one it was sealed
    under or the wrap was altered."""
    return Sealer(server_key, PURPOSE).open(wrapped, _BOUND)


async def _wraps(session: AsyncSession) -> list[tuple[int, bytes]]:
    rows = await session.execute(select(ServerKeyWrap.id, ServerKeyWrap.wrapped).order_by(ServerKeyWrap.id))
    return [(row.id, row.wrapped) for row in rows]


def _opened(wraps: list[tuple[int, bytes]], server_key: bytes) -> tuple[int, bytes] | None:
    """The id of the first wrap `server_key` opens, and the data key in it."""
    for wrap_id, wrapped in wraps:
        data_key = unwrap(server_key, wrapped)
        if data_key is not None:
            return wrap_id, data_key
    return None


async def _add(session: AsyncSession, server_key: bytes, data_key: bytes) -> None:
    await session.execute(insert(ServerKeyWrap).values(wrapped=wrap(server_key, data_key), created_at=clock.now()))


async def data_key_in(session: AsyncSession, server_key: bytes) -> tuple[int, bytes]:
    """In the caller's write transaction: the id of the wrap `server_key` opens and the data
    key. With no wrap yet, the server key becomes the data key, wrapped under itself. Raises
    KeyMismatch when wraps exist and none opens."""
    wraps = await _wraps(session)
    if not wraps:  # the first process: one wrap, even when several start at once
        await advisory_lock(session, _LOCK)
        wraps = await _wraps(session)
        if not wraps:
            await _add(session, server_key, server_key)
            wraps = await _wraps(session)
    opened = _opened(wraps, server_key)
    if opened is None:
        raise KeyMismatch(MISMATCH)
    return opened


async def load_data_key(db: Database, server_key: bytes) -> bytes:
    """The data key a process derives every secret from, read once at its start (the app's
    lifespan, the worker, commands outside a transaction). Raises KeyMismatch."""
    async with db.transaction(write=False) as session:
        wraps = await _wraps(session)
    if wraps:
        opened = _opened(wraps, server_key)
        if opened is None:
            raise KeyMismatch(MISMATCH)
        return opened[1]
    async with db.transaction() as session:
        return (await data_key_in(session, server_key))[1]


async def add_server_key(session: AsyncSession, server_key: bytes, new_server_key: bytes) -> int:
    """Accept `new_server_key` beside `server_key` (a wrap of the data key under it, none
    when it is accepted already); the number of accepted keys."""
    await advisory_lock(session, _LOCK)
    _wrap_id, data_key = await data_key_in(session, server_key)
    if _opened(await _wraps(session), new_server_key) is None:
        await _add(session, new_server_key, data_key)
    return await _count(session)


async def retire_other_keys(session: AsyncSession, server_key: bytes) -> int:
    """Accept `server_key` only: every other wrap is deleted. The number of accepted keys."""
    await advisory_lock(session, _LOCK)
    wrap_id, _data_key = await data_key_in(session, server_key)
    await session.execute(delete(ServerKeyWrap).where(ServerKeyWrap.id != wrap_id))
    return await _count(session)


async def replace_data_key(session: AsyncSession, server_key: bytes, new_server_key: bytes, new_data_key: bytes) -> int:
    """A new data key, accepted under `new_server_key` only: every secret derived from the
    old one stops working. Needs the current key (whoever runs it is an operator)."""
    await advisory_lock(session, _LOCK)
    await data_key_in(session, server_key)
    await session.execute(delete(ServerKeyWrap))
    await _add(session, new_server_key, new_data_key)
    return await _count(session)


async def _count(session: AsyncSession) -> int:
    return int(await session.scalar(select(func.count()).select_from(ServerKeyWrap)) or 0)
