"""lz4 for order documents (PostgreSQL)

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-22 03:00:00.000000

An order's body and view, and a change's states, are a few KB of JSON each, written with
every order: beyond 2 KB PostgreSQL compresses them, and lz4 does it at a fraction of the
default pglz's cost (about a tenth of the database's CPU per order creation,
benchmarks/orders.py), where the server was built with it. Only new values are written so;
existing ones stay readable as they are. SQLite: nothing to do.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = {"orders": ("body", "view"), "changes": ("previous_state", "new_state")}


def _set(method: str) -> None:
    statements = " ".join(
        f"ALTER TABLE {table} "
        + ", ".join(f"ALTER COLUMN {column} SET COMPRESSION {method}" for column in columns)
        + ";"
        for table, columns in COLUMNS.items()
    )
    lz4 = "SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)"
    op.execute(f"DO $$ BEGIN IF EXISTS ({lz4}) THEN {statements} END IF; END $$")


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _set("lz4")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _set("default")
