"""every catalog has its content row

Revision ID: 0028
Revises: 0027
Create Date: 2026-11-28 07:30:00.000000

A catalog made before `catalog_contents` existed (0010), or by the demo of an earlier version,
has no content row, and reads had to treat the missing row as an empty catalog. Each such
catalog gets the row an empty catalog is made with (docs/api/catalogs.md), so a catalog is
always read one way.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from comptoir.kit import clock

revision: str = "0028"
down_revision: str | None = "0027"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# an empty catalog's `data`, as `comptoir.catalogs.content.EMPTY_DATA` writes it today
# (written out here: a migration keeps what it wrote, whatever the code becomes)
EMPTY_DATA = '{"variants":[],"categories":[],"products":[],"option_lists":[],"deals":[],"discounts":[],"charges":[]}'


def upgrade() -> None:
    bind = op.get_bind()
    now = clock.now()  # stored as every UTCDateTime: naive UTC on SQLite
    if bind.dialect.name == "sqlite":
        now = now.replace(tzinfo=None)
    # a random tag per row, as `store_content` gives one: what a cached read is checked against
    tag = "(random() * 4611686018427387903)::bigint" if bind.dialect.name == "postgresql" else "abs(random() >> 2)"
    empty_list = "'[]'::json" if bind.dialect.name == "postgresql" else "'[]'"
    bind.execute(
        sa.text(  # the f-string joins two constants of this file
            "INSERT INTO catalog_contents (catalog_id, data, tag, sku_refs, option_refs, image_ids, updated_at)"  # noqa: S608
            f" SELECT c.id, :data, {tag}, {empty_list}, {empty_list}, {empty_list}, :now FROM catalogs c"
            " WHERE NOT EXISTS (SELECT 1 FROM catalog_contents k WHERE k.catalog_id = c.id)"
        ).bindparams(sa.bindparam("now", type_=sa.DateTime(timezone=True))),
        {"data": EMPTY_DATA, "now": now},
    )


def downgrade() -> None:
    pass  # the rows stay: an older version reads an empty content row as it reads its absence
