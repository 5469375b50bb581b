"""The database's share of an order creation: the one statement that writes it on
PostgreSQL (`orders.repository.OrderRepository.insert`), run alone over many connections.

Builds the realistic order of benchmarks/orders.py into its statement once, then runs that
statement (a new order id each time) on `--connections` connections concurrently, and prints
the PostgreSQL CPU and the client CPU per statement, median of `--runs` runs. The server's
CPU is read from /proc for the connections' backends, so PostgreSQL must run on this host.
This is the figure to watch when changing the statement or the tables it writes (indexes,
foreign keys, storage): with wrk and the Python processes out of the way it varies far less
than the end-to-end benchmark.

    uv run python benchmarks/order_statement.py
    uv run python benchmarks/order_statement.py --connections 20 --statements 3000 --runs 5

The PostgreSQL database `comptoir_bench_order_statement` is (re)created by each run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import asyncpg

from _common import fresh_demo, in_process_settings
from orders import ADMIN_URL, realistic_order

COMPTOIR = str(Path(sys.executable).parent / "comptoir")
NAME = "comptoir_bench_order_statement"
URL = f"postgresql://postgres@127.0.0.1:5432/{NAME}"


class Recorder:
    """A FastReader whose single write is kept instead of run."""

    def __init__(self, reader: Any) -> None:
        self._reader = reader
        self.recorded: tuple[Any, dict[str, Any]] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._reader, name)

    async def write(self, write: Any, **params: Any) -> None:
        self.recorded = (write, params)


async def statement(token: str) -> tuple[str, list[Any], int]:
    """The creation statement of the realistic order, its values, and the order id's index."""
    from comptoir.auth.tokens import resolve
    from comptoir.config import Settings
    from comptoir.db.connection_cache import ConnectionCache
    from comptoir.db.direct import FastReader
    from comptoir.db.engine import create_database
    from comptoir.db.unit import Unit
    from comptoir.kit.jsonutil import dumps
    from comptoir.orders.repository import OrderRepository
    from comptoir.orders.schemas import OrderCreate
    from comptoir.orders.service import create_order

    settings = Settings()
    reader, cache, db = FastReader(settings), ConnectionCache(settings), create_database(settings)
    try:
        await db.load_id_key()
        ctx = await resolve(reader, cache, settings.server_key(), token)
        body = OrderCreate.model_validate(json.loads(dumps(realistic_order())))
        recorder = Recorder(reader)
        orders = OrderRepository(Unit(db, recorder), cache)  # type: ignore[arg-type]
        await create_order(orders, ctx, ctx.location, ctx.account, body)  # type: ignore[arg-type]
    finally:
        await reader.close()
        await db.dispose()
    assert recorder.recorded is not None
    write, params = recorder.recorded
    return write.sql, write.values(params), write.order.index("o_id")


def _cpu_seconds(pids: list[int]) -> float:
    ticks = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


async def run(args: argparse.Namespace, sql: str, values: list[Any], id_index: int) -> None:
    connections = [await asyncpg.connect(URL) for _ in range(args.connections)]
    pids = [connection.get_server_pid() for connection in connections]
    per_connection = args.statements // args.connections

    async def statements(connection: Any, ids: list[int]) -> None:
        mine = list(values)
        for order_id in ids:
            mine[id_index] = order_id
            await connection.fetchrow(sql, *mine)

    async def one_run() -> tuple[float, float]:
        ids = [row[0] for row in await connections[0].fetch(
            "SELECT nextval('orders_id_seq') FROM generate_series(1, $1)", per_connection * len(connections)
        )]  # fmt: skip
        server, client = _cpu_seconds(pids), time.process_time()
        await asyncio.gather(
            *(statements(c, ids[i * per_connection : (i + 1) * per_connection]) for i, c in enumerate(connections))
        )
        done = per_connection * len(connections)
        return (_cpu_seconds(pids) - server) * 1000 / done, (time.process_time() - client) * 1000 / done

    try:
        await one_run()  # warm-up: plans, caches
        results = [await one_run() for _ in range(args.runs)]
    finally:
        for connection in connections:
            await connection.close()
    print(f"\nOne order creation statement, {args.connections} connections at once, {per_connection * len(connections)}"
          f" statements per run, {args.runs} runs")  # fmt: skip
    print(f"{'':<28}{'per run':<40}{'median':>9}")
    for label, index in (("PostgreSQL CPU ms/statement", 0), ("client CPU ms/statement", 1)):
        figures = [result[index] for result in results]
        print(f"{label:<28}{' '.join(f'{f:.3f}' for f in figures):<40}{statistics.median(figures):>9.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--connections", type=int, default=20)
    parser.add_argument("--statements", type=int, default=3000, help="per run")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    os.environ.update(in_process_settings(NAME))
    demo = fresh_demo(COMPTOIR, ADMIN_URL, NAME, dict(os.environ))
    sql, values, id_index = asyncio.run(statement(demo["tokens"]["location"]))
    asyncio.run(run(args, sql, values, id_index))


if __name__ == "__main__":
    main()
