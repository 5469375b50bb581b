"""browser sessions hold a one-time flash (the back office shows a new client secret once)

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-25 14:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("browser_sessions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("flash", sa.String(length=100), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("browser_sessions", schema=None) as batch_op:
        batch_op.drop_column("flash")
