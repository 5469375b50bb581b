"""Delivery quotes and deliveries of orders; the answers kept for Idempotency-Key.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-21 16:53:39.655244
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# comptoir.models.base.ExactDecimal: NUMERIC on PostgreSQL, exact text on SQLite
EXACT_DECIMAL = sa.String(length=100).with_variant(sa.Numeric(), "postgresql")

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "idempotency_keys",
        sa.Column("connection_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("request_hash", sa.String(length=64), nullable=False),
        sa.Column("response", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["connection_id"],
            ["connections.id"],
            name=op.f("fk_idempotency_keys_connection_id_connections"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("connection_id", "key", name=op.f("pk_idempotency_keys")),
    )
    with op.batch_alter_table("idempotency_keys", schema=None) as batch_op:
        batch_op.create_index("ix_idempotency_keys_created_at", ["created_at"], unique=False)

    op.create_table(
        "deliveries",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("order_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("carrier", sa.String(length=255), nullable=False),
        sa.Column("carrier_ref", sa.String(length=255), nullable=True),
        sa.Column("ref", sa.String(length=255), nullable=True),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("fee", sa.String(length=64), nullable=True),
        sa.Column("estimated_pickup_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("estimated_dropoff_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("tracking_url", sa.Text(), nullable=True),
        sa.Column("driver_name", sa.String(length=255), nullable=True),
        sa.Column("driver_phone", sa.String(length=64), nullable=True),
        sa.Column("driver_phone_access_code", sa.String(length=64), nullable=True),
        sa.Column("driver_latitude", EXACT_DECIMAL, nullable=True),
        sa.Column("driver_longitude", EXACT_DECIMAL, nullable=True),
        sa.Column("driver_pickup_url", sa.Text(), nullable=True),
        sa.Column("assigned_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("pickup_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("cancelled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("driver_position_updated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["order_id"], ["orders.id"], name=op.f("fk_deliveries_order_id_orders"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_deliveries")),
        sa.UniqueConstraint("order_id", name=op.f("uq_deliveries_order_id")),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "delivery_quotes",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("order_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("carrier", sa.String(length=255), nullable=False),
        sa.Column("carrier_ref", sa.String(length=255), nullable=True),
        sa.Column("ref", sa.String(length=255), nullable=True),
        sa.Column("fee", sa.String(length=64), nullable=False),
        sa.Column("estimated_pickup_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("estimated_dropoff_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("accepted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["order_id"], ["orders.id"], name=op.f("fk_delivery_quotes_order_id_orders"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_delivery_quotes")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("delivery_quotes", schema=None) as batch_op:
        batch_op.create_index("ix_delivery_quotes_order", ["order_id", "id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("delivery_quotes", schema=None) as batch_op:
        batch_op.drop_index("ix_delivery_quotes_order")

    op.drop_table("delivery_quotes")
    op.drop_table("deliveries")
    with op.batch_alter_table("idempotency_keys", schema=None) as batch_op:
        batch_op.drop_index("ix_idempotency_keys_created_at")

    op.drop_table("idempotency_keys")
