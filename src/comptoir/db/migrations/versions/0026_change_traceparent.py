"""changes: the trace context of the write that recorded them

Revision ID: 0026
Revises: 0025
Create Date: 2026-11-25 17:40:00.000000

A nullable `traceparent` on `changes`: the W3C trace context of the request that recorded the
change, kept while tracing is on, so that the delivery of its events continues that trace
(docs/operations.md "Traces"). Null for every change recorded without tracing.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0026"
down_revision: str | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("changes", sa.Column("traceparent", sa.String(length=55), nullable=True))


def downgrade() -> None:
    op.drop_column("changes", "traceparent")
