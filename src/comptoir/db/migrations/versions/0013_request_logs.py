"""request logs

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-21 23:42:04.175087
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "request_logs",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("connection_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("request_id", sa.String(length=128), nullable=False),
        sa.Column("method", sa.String(length=10), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("duration_ms", sa.Integer(), nullable=False),
        sa.Column("request_body", sa.Text(), nullable=False),
        sa.Column("request_bytes", sa.Integer(), nullable=False),
        sa.Column("response_body", sa.Text(), nullable=False),
        sa.Column("response_bytes", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["connection_id"],
            ["connections.id"],
            name=op.f("fk_request_logs_connection_id_connections"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_request_logs")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("request_logs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_request_logs_at"), ["at"], unique=False)
        batch_op.create_index("ix_request_logs_connection", ["connection_id", "id"], unique=False)

    if op.get_bind().dialect.name == "postgresql":
        # Bodies are a few KB each, written all day: lz4 compresses them at a fraction of the
        # default pglz's cost (benchmarks/request_log.py), where the server was built with it.
        op.execute(
            "DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression'"
            " AND 'lz4' = ANY(enumvals)) THEN"
            " ALTER TABLE request_logs ALTER COLUMN request_body SET COMPRESSION lz4,"
            " ALTER COLUMN response_body SET COMPRESSION lz4; END IF; END $$"
        )
    with op.batch_alter_table("connections", schema=None) as batch_op:
        batch_op.add_column(sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("connections", schema=None) as batch_op:
        batch_op.drop_column("last_used_at")
    with op.batch_alter_table("request_logs", schema=None) as batch_op:
        batch_op.drop_index("ix_request_logs_connection")
        batch_op.drop_index(batch_op.f("ix_request_logs_at"))

    op.drop_table("request_logs")
