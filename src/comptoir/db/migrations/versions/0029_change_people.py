"""change_people: the person who made a change from the back office

Revision ID: 0029
Revises: 0028
Create Date: 2026-11-28 11:00:00.000000

An order moved from the back office is caused by no application; `change_people` names the
signed-in person who moved it, so its history reads "Accepted by alice@example.com"
(docs/back-office.md "Orders"). A row goes with its change (pruned) or its person.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0029"
down_revision: str | None = "0028"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "change_people",
        sa.Column("change_id", ID, nullable=False),
        sa.Column("user_id", ID, nullable=False),
        sa.ForeignKeyConstraint(
            ["change_id"], ["changes.id"], name=op.f("fk_change_people_change_id_changes"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_change_people_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("change_id", name=op.f("pk_change_people")),
    )
    op.create_index(op.f("ix_change_people_user_id"), "change_people", ["user_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_change_people_user_id"), table_name="change_people")
    op.drop_table("change_people")
