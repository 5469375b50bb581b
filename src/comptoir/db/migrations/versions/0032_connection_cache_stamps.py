"""connection cache stamps (SQLite)

Revision ID: 0032
Revises: 0031
Create Date: 2026-11-29 21:00:00.000000

On SQLite each process now keeps a connection cache too (`comptoir.db.connection_cache`).
SQLite has no notifications: instead, every change to what the cache holds (the same rows
and columns as 0015's notifications: a connection, its OAuth client, account and location;
callback subscriptions) sets `cache_stamps.stamp` of the row "connections" to a new random
number, in the changing transaction. A process that sees SQLite's count of commits move reads
that one row, and forgets what it holds when the stamp is not the one it saw last. A random
stamp, not a count: a row deleted (a test's cleanup) and made again never returns to a number
seen before. `connections.last_used_at`, written every second by each process, is not among
the columns watched.

A later migration that rebuilds one of these tables on SQLite drops its triggers and must
make them again (tests/api/test_connection_cache.py fails otherwise). PostgreSQL gets the
table, empty, so both databases have the same tables.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0032"
down_revision: str | None = "0031"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# 0015's list, one event per trigger as SQLite writes them
WATCHED = {
    "connections": [
        "UPDATE OF client_id, user_id, level, account_id, location_id, catalog_id, customer_list_id, "
        "name, scope, token_hash, revoked_at, blocked",
        "DELETE",
    ],
    "oauth_clients": ["UPDATE", "DELETE"],
    "accounts": ["UPDATE", "DELETE"],
    "locations": ["UPDATE", "DELETE"],
    "callback_subscriptions": ["INSERT", "UPDATE", "DELETE"],
}
NEW_STAMP = (
    "INSERT INTO cache_stamps (name, stamp) VALUES ('connections', random()) "
    "ON CONFLICT (name) DO UPDATE SET stamp = excluded.stamp"
)


def _triggers() -> list[tuple[str, str, str]]:
    return [
        (f"{table}_{event.split()[0].lower()}_stamp", table, event)
        for table, events in WATCHED.items()
        for event in events
    ]


def upgrade() -> None:
    op.create_table(
        "cache_stamps",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("stamp", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_cache_stamps")),
    )
    if op.get_bind().dialect.name != "sqlite":
        return
    for name, table, event in _triggers():
        op.execute(f"CREATE TRIGGER {name} AFTER {event} ON {table} BEGIN {NEW_STAMP}; END")


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for name, _table, _event in _triggers():
            op.execute(f"DROP TRIGGER {name}")
    op.drop_table("cache_stamps")
