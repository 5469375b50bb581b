"""What keeps a hot read's cost independent of how many rows wait: the database serves its
order from an index (no sort of every matching row), on both databases. Asked of the
planner as it would run the statement in production, with sorting made as dear as it can be,
so the test fails when no index can give the order, not when a tiny table makes a sort
cheaper."""

from __future__ import annotations

from comptoir.callbacks.repository import DUE_EVENTS
from comptoir.db.direct import Query
from comptoir.db.engine import Database
from comptoir.kit import clock
from comptoir.orders.repository import page_query


async def _plan(database: Database, query: Query, params: dict[str, object]) -> str:
    """The plan of `query` as the direct driver sends it, one line per step."""
    sql = query.for_dialect(database.is_sqlite)[0]
    values = tuple(query.values(database.is_sqlite, params))
    async with database.transaction(write=False) as session:
        connection = await session.connection()
        if database.is_sqlite:
            rows = await connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}", values)
            return "\n".join(str(row[-1]) for row in rows)
        await connection.exec_driver_sql("SET LOCAL enable_sort = off")
        rows = await connection.exec_driver_sql(f"EXPLAIN {sql}", values)
        return "\n".join(str(row[0]) for row in rows)


async def test_a_lanes_due_events_are_read_in_order_from_the_queue_index(database: Database) -> None:
    """The delivery worker's batch read (oldest first, by created_at then id)."""
    plan = await _plan(
        database, DUE_EVENTS, {"connection_id": 1, "now": clock.now(), "token": "t", "limit": 100, "unwritten": [5, 6]}
    )
    assert "ix_events_queue" in plan
    assert "Sort" not in plan  # PostgreSQL
    assert "TEMP B-TREE" not in plan  # SQLite: "USE TEMP B-TREE FOR ORDER BY"


async def test_a_page_of_a_locations_orders_after_a_cursor_is_read_in_order_from_an_index(database: Database) -> None:
    """A page of the orders list (newest first, by created_at then id), with no filter and
    by status: the two walks of benchmarks/orders.py among a million orders."""
    after = {"after_0": clock.now(), "after_1": 10**6, "owner": 1, "client_id": 1, "limit": 101}
    for filters, params, index in (
        ((), {}, "ix_orders_location"),
        (("status",), {"status": "new"}, "ix_orders_location_status"),
    ):
        plan = await _plan(database, page_query(False, filters, True), after | params)
        assert index in plan
        assert "Sort" not in plan  # PostgreSQL
        assert "TEMP B-TREE" not in plan  # SQLite
