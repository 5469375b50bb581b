"""server key wraps: the data key, held under each accepted server key

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-25 17:30:00.000000

Tokens, client secrets, sessions and cursors are derived from the installation's data key,
which the database holds only sealed under each server key it accepts (docs/operations.md
"Server key"). The table starts empty: a migration has no server key, so the first process
to start after it writes the first wrap, of the server key itself (every secret derived from
it so far stays valid).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "server_key_wraps",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("wrapped", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_server_key_wraps")),
    )


def downgrade() -> None:
    op.drop_table("server_key_wraps")
