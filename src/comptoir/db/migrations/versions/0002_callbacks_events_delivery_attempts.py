"""Callbacks and events: the callbacks table (one per connection, also its delivery lane),
events (one per subscribed connection and change), the delivery log; changes gain
origin_connection_id (own_order) and lose fanned_out_at (fan-out now happens in the writer's
transaction).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21 14:02:24.744144
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:

    op.create_table(
        "callbacks",
        sa.Column("connection_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("url", sa.Text(), nullable=True),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease_owner", sa.String(length=80), nullable=True),
        sa.Column("leased_until", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["connection_id"],
            ["connections.id"],
            name=op.f("fk_callbacks_connection_id_connections"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("connection_id", name=op.f("pk_callbacks")),
    )
    op.create_table(
        "delivery_attempts",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("connection_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("event_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        sa.Column("attempted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("duration_ms", sa.Integer(), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=True),
        sa.Column("error", sa.String(length=80), nullable=True),
        sa.Column("response_excerpt", sa.Text(), nullable=True),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.ForeignKeyConstraint(
            ["connection_id"],
            ["connections.id"],
            name=op.f("fk_delivery_attempts_connection_id_connections"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_delivery_attempts")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("delivery_attempts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_delivery_attempts_attempted_at"), ["attempted_at"], unique=False)
        batch_op.create_index("ix_delivery_attempts_connection", ["connection_id", "id"], unique=False)

    op.create_table(
        "events",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("connection_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("change_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("resource_type", sa.String(length=32), nullable=False),
        sa.Column("event_type", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["change_id"], ["changes.id"], name=op.f("fk_events_change_id_changes"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["connection_id"], ["connections.id"], name=op.f("fk_events_connection_id_connections"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_events_change_id"), ["change_id"], unique=False)
        batch_op.create_index("ix_events_connection", ["connection_id", "id"], unique=False)
        batch_op.create_index("ix_events_due", ["connection_id", "next_attempt_at"], unique=False)

    with op.batch_alter_table("changes", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("origin_connection_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True)
        )
        batch_op.drop_index(batch_op.f("ix_changes_pending"))
        batch_op.create_index("ix_changes_created_at", ["created_at"], unique=False)
        batch_op.create_foreign_key(
            batch_op.f("fk_changes_origin_connection_id_connections"),
            "connections",
            ["origin_connection_id"],
            ["id"],
            ondelete="SET NULL",
        )
        batch_op.drop_column("fanned_out_at")


def downgrade() -> None:

    with op.batch_alter_table("changes", schema=None) as batch_op:
        batch_op.add_column(sa.Column("fanned_out_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.drop_constraint(batch_op.f("fk_changes_origin_connection_id_connections"), type_="foreignkey")
        batch_op.drop_index("ix_changes_created_at")
        batch_op.create_index(batch_op.f("ix_changes_pending"), ["fanned_out_at", "id"], unique=False)
        batch_op.drop_column("origin_connection_id")

    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.drop_index("ix_events_due")
        batch_op.drop_index("ix_events_connection")
        batch_op.drop_index(batch_op.f("ix_events_change_id"))

    op.drop_table("events")
    with op.batch_alter_table("delivery_attempts", schema=None) as batch_op:
        batch_op.drop_index("ix_delivery_attempts_connection")
        batch_op.drop_index(batch_op.f("ix_delivery_attempts_attempted_at"))

    op.drop_table("delivery_attempts")
    op.drop_table("callbacks")
