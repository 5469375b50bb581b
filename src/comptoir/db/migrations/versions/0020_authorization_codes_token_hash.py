"""authorization codes: the token each code produced

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-24 23:30:00.000000

A code exchanged a second time revokes the token the first exchange gave (RFC 6749 4.1.2,
RFC 9700 4.1): the code keeps that token's lookup hash, the one `connections.token_hash`
holds, so a token issued later to the same connection (after a revocation) is not touched.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("authorization_codes", schema=None) as batch_op:
        batch_op.add_column(sa.Column("token_hash", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("authorization_codes", schema=None) as batch_op:
        batch_op.drop_column("token_hash")
