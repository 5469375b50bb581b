"""The pool of `fastdb` (StatementPool): connections for single statements, on PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib

import asyncpg
import pytest

from comptoir.config import Settings
from comptoir.db.direct import StatementPool, asyncpg_options
from tests.waiting import PATIENCE, eventually

pytestmark = pytest.mark.parametrize("db_kind", ["postgresql"])  # SQLite reads in-process


@pytest.fixture
async def pool(settings: Settings) -> StatementPool:
    pool = StatementPool(asyncpg_options(settings), size=2)
    yield pool
    await pool.close()


async def _backend(pool: StatementPool, seconds: float = 0) -> int:
    async with pool.connection() as connection:
        return await connection.fetchval("SELECT pg_backend_pid() FROM pg_sleep($1)", seconds)


async def test_more_statements_than_connections_all_run_on_at_most_size_connections(pool: StatementPool) -> None:
    pids = await asyncio.gather(*(_backend(pool, 0.02) for _ in range(12)))
    assert len(pids) == 12
    assert len(set(pids)) == 2


async def test_a_refused_statement_closes_its_connection_and_the_pool_goes_on(pool: StatementPool) -> None:
    first = await _backend(pool)
    with pytest.raises(asyncpg.PostgresError):
        async with pool.connection() as connection:
            await connection.fetchval("SELECT 1 / 0")
    assert await _backend(pool) != first


async def test_a_cancelled_statement_closes_its_connection_and_the_pool_goes_on(
    pool: StatementPool, settings: Settings
) -> None:
    first = await _backend(pool)
    slow = asyncio.create_task(_backend(pool, PATIENCE))  # on that idle connection
    admin = await asyncpg.connect(**asyncpg_options(settings))
    try:

        async def running() -> bool:
            state = "SELECT state FROM pg_stat_activity WHERE pid = $1 AND query LIKE '%pg_sleep%'"
            return await admin.fetchval(state, first) == "active"

        await eventually(running, "the slow statement running")
    finally:
        await admin.close()
    slow.cancel()
    with pytest.raises(asyncio.CancelledError):
        await slow
    pids = await asyncio.gather(*(_backend(pool, 0.01) for _ in range(4)))
    assert first not in pids


async def test_a_waiter_cancelled_does_not_hold_up_the_others(pool: StatementPool) -> None:
    done = asyncio.Event()
    held: list[None] = []

    async def busy_until_done() -> None:
        async with pool.connection():
            held.append(None)
            await done.wait()

    busy = [asyncio.create_task(busy_until_done()) for _ in range(2)]

    async def both_held() -> bool:
        return len(held) == 2

    await eventually(both_held, "both connections held")
    waiting = [asyncio.create_task(_backend(pool)) for _ in range(3)]

    async def all_waiting() -> bool:
        return len(pool._waiters) == 3

    await eventually(all_waiting, "three statements waiting")
    waiting[0].cancel()
    done.set()
    await asyncio.gather(*busy)
    assert len(await asyncio.wait_for(asyncio.gather(*waiting[1:]), PATIENCE)) == 2


async def test_a_connection_the_server_dropped_is_replaced(pool: StatementPool, settings: Settings) -> None:
    pid = await _backend(pool)
    admin = await asyncpg.connect(**asyncpg_options(settings))
    await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
    await admin.close()

    async def heard_of_it() -> bool:  # the idle connection
        return all(connection.is_closed() for connection in pool._idle)

    await eventually(heard_of_it, "the idle connection closed")
    assert await _backend(pool) != pid


async def test_a_statement_on_a_connection_dropped_that_instant_fails_alone(
    pool: StatementPool, settings: Settings
) -> None:
    pid = await _backend(pool)
    admin = await asyncpg.connect(**asyncpg_options(settings))
    await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
    await admin.close()
    with contextlib.suppress(Exception):  # whichever way asyncpg reports the loss
        await _backend(pool)  # may still take the dropped connection, and then fails
    assert await _backend(pool) != pid
