"""Orders, kept as documents with indexed columns for the list filters; the id series of
order elements (a sequence on PostgreSQL, a counter row on SQLite).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-21 16:37:39.258583
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# comptoir.models.base.ExactDecimal: NUMERIC on PostgreSQL, exact text on SQLite
EXACT_DECIMAL = sa.String(length=100).with_variant(sa.Numeric(), "postgresql")

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "id_counters",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("value", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_id_counters")),
    )
    op.create_table(
        "orders",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("account_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("location_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("created_by", sa.String(length=255), nullable=False),
        sa.Column("client_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("connection_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("customer_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("total", EXACT_DECIMAL, nullable=False),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.Column("refs", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name=op.f("fk_orders_account_id_accounts")),
        sa.ForeignKeyConstraint(
            ["client_id"], ["oauth_clients.id"], name=op.f("fk_orders_client_id_oauth_clients"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["connection_id"], ["connections.id"], name=op.f("fk_orders_connection_id_connections"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["customer_id"], ["customers.id"], name=op.f("fk_orders_customer_id_customers"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(["location_id"], ["locations.id"], name=op.f("fk_orders_location_id_locations")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_orders")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("orders", schema=None) as batch_op:
        batch_op.create_index("ix_orders_account", ["account_id", "created_at", "id"], unique=False)
        batch_op.create_index("ix_orders_customer", ["customer_id", "created_at", "id"], unique=False)
        batch_op.create_index("ix_orders_location", ["location_id", "created_at", "id"], unique=False)
        batch_op.create_index(
            "ix_orders_location_created_by", ["location_id", "created_by", "created_at", "id"], unique=False
        )
        batch_op.create_index("ix_orders_location_status", ["location_id", "status", "created_at", "id"], unique=False)
    if op.get_bind().dialect.name == "postgresql":
        op.execute("CREATE SEQUENCE order_elements_id_seq")


def downgrade() -> None:
    with op.batch_alter_table("orders", schema=None) as batch_op:
        batch_op.drop_index("ix_orders_location_status")
        batch_op.drop_index("ix_orders_location_created_by")
        batch_op.drop_index("ix_orders_location")
        batch_op.drop_index("ix_orders_customer")
        batch_op.drop_index("ix_orders_account")

    op.drop_table("orders")
    op.drop_table("id_counters")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP SEQUENCE order_elements_id_seq")
