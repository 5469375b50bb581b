"""catalog names unique per location (spec 2.4 rule 2)

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-21
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from comptoir.db.migrations.rebuild import keeping_referring_rows

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _rebuild(change) -> None:  # type: ignore[no-untyped-def]
    """SQLite rebuilds the table: keep AUTOINCREMENT and its counter (ids are never reused)."""
    bind = op.get_bind()
    sqlite = bind.dialect.name == "sqlite"
    seq = bind.scalar(sa.text("SELECT seq FROM sqlite_sequence WHERE name = 'catalogs'")) if sqlite else None
    with (
        keeping_referring_rows("catalogs"),
        op.batch_alter_table("catalogs", table_kwargs={"sqlite_autoincrement": True}) as batch_op,
    ):
        change(batch_op)
    if seq is not None:
        bind.execute(sa.text("UPDATE sqlite_sequence SET seq = :seq WHERE name = 'catalogs'"), {"seq": seq})


def upgrade() -> None:
    _rebuild(lambda b: b.create_unique_constraint(b.f("uq_catalogs_location_id_name"), ["location_id", "name"]))


def downgrade() -> None:
    _rebuild(lambda b: b.drop_constraint(b.f("uq_catalogs_location_id_name"), type_="unique"))
