"""Callback subscriptions: one row per (callback, resource type, event type), indexed for
fan-out, filled from the callbacks' `events` maps.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21 14:37:32.506254
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:

    op.create_table(
        "callback_subscriptions",
        sa.Column("connection_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("resource_type", sa.String(length=32), nullable=False),
        sa.Column("event_type", sa.String(length=16), nullable=False),
        sa.ForeignKeyConstraint(
            ["connection_id"],
            ["callbacks.connection_id"],
            name=op.f("fk_callback_subscriptions_connection_id_callbacks"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("connection_id", "resource_type", "event_type", name=op.f("pk_callback_subscriptions")),
    )
    with op.batch_alter_table("callback_subscriptions", schema=None) as batch_op:
        batch_op.create_index(
            "ix_callback_subscriptions_lookup", ["resource_type", "event_type", "connection_id"], unique=False
        )

    callbacks = sa.table("callbacks", sa.column("connection_id"), sa.column("events", sa.JSON()))
    subscriptions = sa.table(
        "callback_subscriptions", sa.column("connection_id"), sa.column("resource_type"), sa.column("event_type")
    )
    bind = op.get_bind()
    rows = [
        {"connection_id": connection_id, "resource_type": resource_type, "event_type": event_type}
        for connection_id, events in bind.execute(sa.select(callbacks.c.connection_id, callbacks.c.events))
        for resource_type, event_types in (events or {}).items()
        for event_type in event_types
    ]
    if rows:
        bind.execute(subscriptions.insert(), rows)


def downgrade() -> None:

    with op.batch_alter_table("callback_subscriptions", schema=None) as batch_op:
        batch_op.drop_index("ix_callback_subscriptions_lookup")

    op.drop_table("callback_subscriptions")
