"""What the retention purge costs the writes running beside it (docs/operations.md
"Retention"), on PostgreSQL.

A database of the demo data is filled with `--rows` request log lines and as many delivery
attempts older than their retention (200,000 each by default). Then `--writers` concurrent
writers each loop on one short transaction that inserts a request log line and a delivery
attempt (the rows the purge deletes, in the tables it deletes from, with the indexes it
uses), for `--seconds` without the purge, then for as long as the timed jobs' purge
(`jobs.timed.purge_logs` and `purge_history`: batches of 1,000 rows, each followed by a pause
as long) takes to delete the backlog.
Prints, for each phase, the writes per second and the median and p99 latency of a write,
and how long the purge took. If the p99 during the purge stays within a few milliseconds of
the p99 without it, batched DELETEs are enough and the tables need no time partitions.

Run by hand, not in CI (PostgreSQL at 127.0.0.1:5432, user postgres):

    uv run python benchmarks/purge.py --rows 200000 --writers 8 --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import time

import asyncpg

from _common import KEY, fresh_demo, in_process_settings, percentile

ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
NAME = "comptoir_bench_purge"
URL = f"postgresql://postgres@127.0.0.1:5432/{NAME}"
COMPTOIR = shutil.which("comptoir") or "comptoir"

WRITE = """
WITH line AS (
    INSERT INTO request_logs (connection_id, at, request_id, method, path, status, duration_ms,
        request_body, request_bytes, response_body, response_bytes)
    VALUES ($1, now(), 'bench', 'POST', '/v1/orders', 201, 12, $2, 600, $2, 600)
)
INSERT INTO delivery_attempts (connection_id, event_id, attempt, attempted_at, duration_ms, url,
    status_code, outcome)
VALUES ($1, 1, 1, now(), 20, 'https://app.example/hook', 200, 'acknowledged')
"""

SEED = """
INSERT INTO request_logs (connection_id, at, request_id, method, path, status, duration_ms,
    request_body, request_bytes, response_body, response_bytes)
SELECT $1, now() - interval '40 days' + g * interval '1 millisecond', 'old', 'POST', '/v1/orders',
    201, 12, $2, 600, $2, 600
FROM generate_series(1, $3) AS g;
"""

SEED_ATTEMPTS = """
INSERT INTO delivery_attempts (connection_id, event_id, attempt, attempted_at, duration_ms, url,
    status_code, outcome)
SELECT $1, g, 1, now() - interval '40 days' + g * interval '1 millisecond', 20,
    'https://app.example/hook', 200, 'acknowledged'
FROM generate_series(1, $2) AS g;
"""

BODY = '{"items": [' + ", ".join(['{"name": "Margherita", "quantity": 2}'] * 15) + "]}"


async def writers(connection_id: int, count: int, stop: asyncio.Event) -> list[tuple[float, float]]:
    """`count` writers looping until `stop`; every write's start and latency in ms."""
    pool = await asyncpg.create_pool(URL, min_size=count, max_size=count)
    latencies: list[tuple[float, float]] = []

    async def one() -> None:
        async with pool.acquire() as connection:
            while not stop.is_set():
                started = time.perf_counter()
                async with connection.transaction():
                    await connection.execute(WRITE, connection_id, BODY)
                latencies.append((started, (time.perf_counter() - started) * 1000))

    try:
        await asyncio.gather(*(one() for _ in range(count)))
    finally:
        await pool.close()
    return latencies


async def phase(connection_id: int, count: int, seconds: float, purge: bool) -> tuple[list[float], float]:
    """The latencies of the writes made for `seconds`, or, when `purge`, of those begun while
    the purge ran; and that time."""
    from comptoir.config import Settings
    from comptoir.db.engine import create_database
    from comptoir.jobs.timed import Retention, purge_history, purge_logs

    stop = asyncio.Event()
    writing = asyncio.create_task(writers(connection_id, count, stop))
    await asyncio.sleep(0.5)  # the writers are connected and going
    began = time.perf_counter()
    if purge:
        db = create_database(Settings(database_url=URL, secret_key=KEY))
        await db.load_id_key()
        try:
            logs = await purge_logs(db, Retention())
            history = await purge_history(db, Retention())
            print(f"  purged {logs} request log lines and {history} history rows")
        finally:
            await db.dispose()
    else:
        await asyncio.sleep(seconds)
    ended = time.perf_counter()
    stop.set()
    latencies = await writing
    return [ms for start, ms in latencies if began <= start < ended], ended - began


async def seed(rows: int) -> int:
    connection = await asyncpg.connect(URL)
    try:
        connection_id = await connection.fetchval("SELECT id FROM connections ORDER BY id LIMIT 1")
        await connection.execute(SEED, connection_id, BODY, rows)
        await connection.execute(SEED_ATTEMPTS, connection_id, rows)
        await connection.execute("VACUUM ANALYZE request_logs")
        await connection.execute("VACUUM ANALYZE delivery_attempts")
        return int(connection_id)
    finally:
        await connection.close()


def report(label: str, latencies: list[float], seconds: float) -> None:
    print(
        f"{label}: {len(latencies) / seconds:8.0f} writes/s  median {statistics.median(latencies):6.2f} ms"
        f"  p99 {percentile(latencies, 99):7.2f} ms  max {max(latencies):7.1f} ms  ({len(latencies)} writes)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPTOIR_")} | in_process_settings(NAME)
    fresh_demo(COMPTOIR, ADMIN_URL, NAME, env)
    os.environ.update(in_process_settings(NAME))
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    connection_id = asyncio.run(seed(args.rows))
    print(f"seeded {args.rows} old request log lines and {args.rows} old delivery attempts")
    quiet, quiet_seconds = asyncio.run(phase(connection_id, args.writers, args.seconds, purge=False))
    busy, purge_seconds = asyncio.run(phase(connection_id, args.writers, args.seconds, purge=True))
    report("without the purge", quiet, quiet_seconds)
    report("during the purge ", busy, purge_seconds)
    print(f"purge of {2 * args.rows} rows: {purge_seconds:.1f} s; load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
