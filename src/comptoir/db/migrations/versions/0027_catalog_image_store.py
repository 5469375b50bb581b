"""catalog images: which store holds their bytes

Revision ID: 0027
Revises: 0026
Create Date: 2026-11-25 17:30:00.000000

`catalog_images.store` says where an image's bytes are: "database" (`image_data`, every image
so far) or "filesystem" (a file under COMPTOIR_IMAGE_DIRECTORY; docs/operations.md "Images").
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from comptoir.db.migrations.rebuild import keeping_referring_rows

revision: str = "0027"
down_revision: str | None = "0026"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # a column with a constant default: added in place on both databases, no table rebuild
    op.add_column(
        "catalog_images",
        sa.Column("store", sa.String(length=16), server_default=sa.text("'database'"), nullable=False),
    )


def downgrade() -> None:
    files = op.get_bind().scalar(sa.text("SELECT count(*) FROM catalog_images WHERE store <> 'database'"))
    if files:
        raise RuntimeError(f"{files} images are files: run `comptoir images move --to database` before downgrading")
    with (
        keeping_referring_rows("catalog_images"),
        op.batch_alter_table("catalog_images", table_kwargs={"sqlite_autoincrement": True}) as batch_op,
    ):
        batch_op.drop_column("store")
