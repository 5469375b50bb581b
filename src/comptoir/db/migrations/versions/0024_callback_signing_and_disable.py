"""callbacks: signing secrets, automatic disable; events kept once done; notices

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-25 14:30:00.000000

Callbacks get their Standard Webhooks signing secrets (sealed; made on first use, since a
migration has no server key), `failing_since`, `disabled_at` and `disabled_reason`. Events
get `done_at` and `redelivery`, and `next_attempt_at` becomes nullable (null once done).
Notices to an account's users are a new table.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from comptoir.db.migrations.rebuild import keeping_referring_rows

_EVENTS = {"sqlite_autoincrement": True}  # SQLite rebuilds the table to change a column: ids never reused

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("callbacks", schema=None) as batch_op:
        batch_op.add_column(sa.Column("signing_secret", sa.LargeBinary(), nullable=True))
        batch_op.add_column(sa.Column("previous_secret", sa.LargeBinary(), nullable=True))
        batch_op.add_column(sa.Column("previous_secret_expires_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("failing_since", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("disabled_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("disabled_reason", sa.Text(), nullable=True))
    with keeping_referring_rows("events"), op.batch_alter_table("events", table_kwargs=_EVENTS) as batch_op:
        batch_op.add_column(sa.Column("done_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("redelivery", sa.Boolean(), server_default=sa.false(), nullable=False))
        batch_op.alter_column("next_attempt_at", existing_type=sa.DateTime(timezone=True), nullable=True)
    # the pending list reads past no done event, however many are kept
    pending = sa.text("done_at IS NULL")
    op.create_index(
        "ix_events_pending", "events", ["connection_id", "id"], postgresql_where=pending, sqlite_where=pending
    )
    done = sa.text("done_at IS NOT NULL")  # the purge of events done 30 days ago
    op.create_index("ix_events_done", "events", ["done_at"], postgresql_where=done, sqlite_where=done)
    op.create_table(
        "notices",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("account_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("connection_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("dismissed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_notices_account_id_accounts"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["connection_id"], ["connections.id"], name=op.f("fk_notices_connection_id_connections"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notices")),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_notices_account", "notices", ["account_id", "id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_notices_account", table_name="notices")
    op.drop_table("notices")
    op.drop_index("ix_events_done", table_name="events")
    op.drop_index("ix_events_pending", table_name="events")
    op.execute("DELETE FROM events WHERE next_attempt_at IS NULL")
    with keeping_referring_rows("events"), op.batch_alter_table("events", table_kwargs=_EVENTS) as batch_op:
        batch_op.alter_column("next_attempt_at", existing_type=sa.DateTime(timezone=True), nullable=False)
        batch_op.drop_column("redelivery")
        batch_op.drop_column("done_at")
    with keeping_referring_rows("callbacks"), op.batch_alter_table("callbacks") as batch_op:
        for name in (
            "disabled_reason",
            "disabled_at",
            "failing_since",
            "previous_secret_expires_at",
            "previous_secret",
            "signing_secret",
        ):
            batch_op.drop_column(name)
