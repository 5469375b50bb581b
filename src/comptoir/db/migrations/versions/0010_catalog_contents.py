"""catalog contents: the read shape of each catalog's data, and its items by kind and id

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-21 20:53:49.111157
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "catalog_contents",
        sa.Column("catalog_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("tag", sa.BigInteger(), nullable=False),
        sa.Column("sku_refs", sa.JSON(), nullable=False),
        sa.Column("option_refs", sa.JSON(), nullable=False),
        sa.Column("image_ids", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["catalog_id"], ["catalogs.id"], name=op.f("fk_catalog_contents_catalog_id_catalogs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("catalog_id", name=op.f("pk_catalog_contents")),
    )
    op.create_table(
        "catalog_items",
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("catalog_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["catalog_id"], ["catalogs.id"], name=op.f("fk_catalog_items_catalog_id_catalogs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("kind", "id", name=op.f("pk_catalog_items")),
    )
    with op.batch_alter_table("catalog_items", schema=None) as batch_op:
        batch_op.create_index("ix_catalog_items_listing", ["catalog_id", "kind", "position"], unique=False)

    if op.get_bind().dialect.name == "postgresql":
        op.execute("CREATE SEQUENCE catalog_items_id_seq")
        # A catalog's data is megabytes of JSON: lz4 writes it 3 times faster than the default
        # pglz (benchmarks/catalog.py), where the server was built with it.
        op.execute(
            "DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression'"
            " AND 'lz4' = ANY(enumvals)) THEN"
            " ALTER TABLE catalog_contents ALTER COLUMN data SET COMPRESSION lz4; END IF; END $$"
        )


def downgrade() -> None:
    with op.batch_alter_table("catalog_items", schema=None) as batch_op:
        batch_op.drop_index("ix_catalog_items_listing")

    op.drop_table("catalog_items")
    op.drop_table("catalog_contents")
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP SEQUENCE catalog_items_id_seq")
