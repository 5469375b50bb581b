"""inventory entries

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-21 21:11:35.235390
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "inventory_entries",
        sa.Column("catalog_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("location_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("ref", sa.String(length=255), nullable=False),
        sa.Column("stock", sa.String(100).with_variant(sa.Numeric(), "postgresql"), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["catalog_id"], ["catalogs.id"], name=op.f("fk_inventory_entries_catalog_id_catalogs"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["location_id"],
            ["locations.id"],
            name=op.f("fk_inventory_entries_location_id_locations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("catalog_id", "location_id", "kind", "ref", name=op.f("pk_inventory_entries")),
    )
    with op.batch_alter_table("inventory_entries", schema=None) as batch_op:
        batch_op.create_index("ix_inventory_entries_expiry", ["expires_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("inventory_entries", schema=None) as batch_op:
        batch_op.drop_index("ix_inventory_entries_expiry")

    op.drop_table("inventory_entries")
