"""connections.token_seed, oauth_clients.secret_seed: room for a given secret, sealed

Revision ID: 0030
Revises: 0029
Create Date: 2026-11-28 21:00:00.000000

A sandbox's seed file may give a connection's token or an application's client secret; the
row's seed then holds that text sealed under the key (`kit.crypto.given_seed`), up to 512
characters for a secret of 256 (docs/sandbox.md "Ids, tokens and secrets"). A derived seed
(32 hexadecimal characters) is unchanged.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from comptoir.db.migrations.rebuild import keeping_referring_rows

revision: str = "0030"
down_revision: str | None = "0029"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_NEVER_REUSE_IDS = {"sqlite_autoincrement": True}  # SQLite rebuilds the table to change a column
_SEEDS = (("connections", "token_seed"), ("oauth_clients", "secret_seed"))


def upgrade() -> None:
    for table, column in _SEEDS:
        with keeping_referring_rows(table), op.batch_alter_table(table, table_kwargs=_NEVER_REUSE_IDS) as batch_op:
            batch_op.alter_column(column, existing_type=sa.String(64), type_=sa.String(512), existing_nullable=False)


def downgrade() -> None:
    # a given seed does not fit back: the start of its sealed text becomes a seed like any
    # other (a derived secret; re-authorising the connection gives it a new token)
    for table, column in _SEEDS:
        op.execute(f"UPDATE {table} SET {column} = substr({column}, 7, 64) WHERE {column} LIKE 'given:%'")  # noqa: S608
        with keeping_referring_rows(table), op.batch_alter_table(table, table_kwargs=_NEVER_REUSE_IDS) as batch_op:
            batch_op.alter_column(column, existing_type=sa.String(512), type_=sa.String(64), existing_nullable=False)
