"""catalog images

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-21 21:13:26.333026
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "catalog_images",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("catalog_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("md5", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["catalog_id"], ["catalogs.id"], name=op.f("fk_catalog_images_catalog_id_catalogs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_catalog_images")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("catalog_images", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_catalog_images_catalog_id"), ["catalog_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_catalog_images_created_at"), ["created_at"], unique=False)

    op.create_table(
        "image_data",
        sa.Column("image_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["image_id"], ["catalog_images.id"], name=op.f("fk_image_data_image_id_catalog_images"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("image_id", name=op.f("pk_image_data")),
    )


def downgrade() -> None:
    op.drop_table("image_data")
    with op.batch_alter_table("catalog_images", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_catalog_images_created_at"))
        batch_op.drop_index(batch_op.f("ix_catalog_images_catalog_id"))

    op.drop_table("catalog_images")
