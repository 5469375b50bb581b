"""docs/operations.md "Database pool": COMPTOIR_DATABASE_POOL_SIZE, COMPTOIR_DATABASE_MAX_OVERFLOW,
COMPTOIR_DATABASE_DIRECT_POOL_SIZE and COMPTOIR_CONNECTION_CACHE_SIZE reach what they size."""

from __future__ import annotations

import asyncio

from sqlalchemy import text

from comptoir.config import Settings
from comptoir.db.connection_cache import TOKENS, ConnectionCache
from comptoir.db.direct import FastReader
from comptoir.db.engine import create_database
from tests.conftest import SECRET_KEY
from tests.waiting import PATIENCE, eventually


def _settings(url: str) -> Settings:
    return Settings(
        database_url=url,
        secret_key=SECRET_KEY,
        database_pool_size=3,
        database_max_overflow=1,
        database_direct_pool_size=2,
        connection_cache_size=2,
    )


async def test_the_sqlalchemy_pool_opens_at_most_its_size_and_overflow(postgres_template: str) -> None:
    db = create_database(_settings(postgres_template))
    try:
        assert (db.engine.pool.size(), db.engine.pool._max_overflow) == (3, 1)  # type: ignore[attr-defined]
        held = [await db.engine.connect().start() for _ in range(4)]
        assert db.engine.pool.checkedout() == 4  # type: ignore[attr-defined]
        fifth = asyncio.create_task(db.engine.connect().start())
        await asyncio.sleep(0.3)  # time enough to open a fifth connection: none is
        assert not fifth.done()  # waits for one of the four
        await held.pop().close()
        held.append(await asyncio.wait_for(fifth, PATIENCE))
        for connection in held:
            await connection.close()
    finally:
        await db.dispose()


async def test_the_direct_pool_opens_at_most_its_size(postgres_template: str) -> None:
    reader = FastReader(_settings(postgres_template))
    pool = reader._pool
    held = [await pool._acquire() for _ in range(2)]
    third = asyncio.create_task(pool._acquire())

    async def waiting_or_open() -> bool:
        return bool(pool._waiters) or third.done() or pool._open > 2

    await eventually(waiting_or_open, "the third acquisition waiting or opening")
    assert (third.done(), pool._open, len(pool._waiters)) == (False, 2, 1)  # waits for one of the two
    pool._release(held.pop())
    held.append(await asyncio.wait_for(third, PATIENCE))
    assert pool._open == 2
    for connection in held:
        pool._release(connection)
    await reader.close()


def test_the_connection_cache_keeps_its_size_per_kind() -> None:
    cache = ConnectionCache(_settings("postgresql://127.0.0.1/x"))
    cache._listener = object()  # as if listening
    for key in ("a", "b"):
        cache.put(TOKENS, key, key, cache.generation)
    assert (cache.get(TOKENS, "a"), cache.get(TOKENS, "b")) == ("a", "b")
    cache.put(TOKENS, "c", "c", cache.generation)  # beyond 2: the kind starts afresh
    assert (cache.get(TOKENS, "a"), cache.get(TOKENS, "c")) == (None, "c")


async def test_a_command_or_test_may_ask_a_smaller_pool(postgres_template: str) -> None:
    db = create_database(_settings(postgres_template), pool_size=1)
    try:
        assert (db.engine.pool.size(), db.engine.pool._max_overflow) == (1, 1)  # type: ignore[attr-defined]
        async with db.engine.connect() as connection:
            assert await connection.scalar(text("SELECT 1")) == 1
    finally:
        await db.dispose()
