"""ix_events_queue: a lane's due events read in the order they go out

Revision ID: 0031
Revises: 0030
Create Date: 2026-11-29 03:30:00.000000

The delivery worker reads a lane's due events oldest first, by `created_at` then id, 100 at a
time (`callbacks.repository.DUE_EVENTS`). No index gave that order: each read fetched and
sorted every due event of the connection, so a backlog of 10,000 cost 17-33 ms a batch, and
draining it grew with the square of its size. This index holds only the events waiting for
a POST (`next_attempt_at` set), in that order (docs/performance.md "Callback delivery").
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0031"
down_revision: str | None = "0030"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    queued = sa.text("next_attempt_at IS NOT NULL")
    op.create_index(
        "ix_events_queue",
        "events",
        ["connection_id", "created_at", "id"],
        postgresql_where=queued,
        sqlite_where=queued,
    )


def downgrade() -> None:
    op.drop_index("ix_events_queue", table_name="events")
