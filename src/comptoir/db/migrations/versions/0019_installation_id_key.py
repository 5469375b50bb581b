"""installation id key; customer list ids never reused on SQLite

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-24 23:00:00.000000

Public ids are a keyed permutation of row numbers (`comptoir.kit.ids`). Until now the key was
the same everywhere, so two installations handed out the same ids in the same order and an
id told its row number. `installation` holds one row: `id_key`, random for a database
created by this migration, and "" (the derivation used so far) for a database that has
already handed out ids, so that every id it gave keeps naming the same row.

On SQLite, `customer_lists` lost AUTOINCREMENT when migration 0004 rebuilt it, so the id of
the newest list, once deleted, was handed out again. It gets AUTOINCREMENT in place, by the
documented procedure for schema changes that leave the stored rows as they are
(https://www.sqlite.org/lang_altertable.html#otheralter): a rebuild would have to drop the
table, and dropping a table inside the migration's transaction, with foreign keys on, would
delete its customers (ON DELETE CASCADE). Its counter starts at the highest list id the
database still knows of: its rows, and the changes recorded for lists.

Downgrade drops `installation` and takes AUTOINCREMENT off again. Upgrading again gives a
database that holds data the "" key: ids handed out under a random key in between change,
as they did under the older code anyway.
"""

import re
import secrets
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Tables whose integer keys are, or make, public ids.
ID_TABLES = (
    "users",
    "accounts",
    "locations",
    "oauth_clients",
    "connections",
    "events",
    "changes",
    "customer_lists",
    "customers",
    "loyalty_cards",
    "loyalty_operations",
    "deliveries",
    "delivery_quotes",
    "catalogs",
    "catalog_images",
    "catalog_items",
    "orders",
)
LEGACY_KEY = ""  # the derivation before installation keys: `comptoir-id:{kind}:{round}`
# High-water marks of customer list ids beside the table's own rows.
CUSTOMER_LIST_IDS_ELSEWHERE = ("SELECT max(customer_list_id) FROM changes",)


def upgrade() -> None:
    bind = op.get_bind()
    key = LEGACY_KEY if _has_handed_out_ids(bind) else secrets.token_hex(16)
    op.create_table(
        "installation",
        sa.Column("id_key", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("id_key", name=op.f("pk_installation")),
    )
    bind.execute(sa.text("INSERT INTO installation (id_key) VALUES (:key)"), {"key": key})
    if bind.dialect.name == "sqlite":
        _autoincrement_in_place(bind, "customer_lists", CUSTOMER_LIST_IDS_ELSEWHERE)


def downgrade() -> None:
    op.drop_table("installation")
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        _set_sql(bind, "customer_lists", "PRIMARY KEY (id AUTOINCREMENT)", "PRIMARY KEY (id)")
        bind.execute(sa.text("DELETE FROM sqlite_sequence WHERE name = 'customer_lists'"))


def _has_handed_out_ids(bind: sa.Connection) -> bool:
    for table in ID_TABLES:
        if bind.execute(sa.select(sa.literal(1)).select_from(sa.table(table)).limit(1)).first() is not None:
            return True
    if bind.execute(sa.text("SELECT 1 FROM id_counters WHERE value > 0 LIMIT 1")).first() is not None:
        return True
    if bind.dialect.name == "sqlite":
        counters = "SELECT 1 FROM sqlite_sequence WHERE seq > 0 LIMIT 1"
    else:  # a sequence read at least once (rows since deleted still had ids)
        counters = "SELECT 1 FROM pg_sequences WHERE schemaname = current_schema() AND last_value IS NOT NULL LIMIT 1"
    return bind.execute(sa.text(counters)).first() is not None


def _autoincrement_in_place(bind: sa.Connection, table: str, elsewhere: Sequence[str]) -> None:
    """AUTOINCREMENT on `table` (its key a table-level PRIMARY KEY (id)), and its counter at
    the highest id it holds or that `elsewhere` names."""
    _set_sql(bind, table, "PRIMARY KEY (id)", "PRIMARY KEY (id AUTOINCREMENT)")
    highest = [bind.execute(sa.select(sa.func.max(sa.column("id"))).select_from(sa.table(table))).scalar()]
    highest += [bind.execute(sa.text(query)).scalar() for query in elsewhere]
    known = bind.execute(sa.text("SELECT seq FROM sqlite_sequence WHERE name = :t"), {"t": table}).scalar()
    seq = max([value for value in [*highest, known] if value is not None], default=0)
    bind.execute(sa.text("DELETE FROM sqlite_sequence WHERE name = :t"), {"t": table})
    bind.execute(sa.text("INSERT INTO sqlite_sequence (name, seq) VALUES (:t, :seq)"), {"t": table, "seq": seq})


def _set_sql(bind: sa.Connection, table: str, old: str, new: str) -> None:
    """Replace `old` by `new` in `table`'s definition, rows untouched (nothing when `new` is
    there already): the in-place procedure of the SQLite documentation, in the caller's
    transaction, the schema version bumped so that every connection reads it again."""
    sql = bind.execute(
        sa.text("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = :t"), {"t": table}
    ).scalar_one()
    if new in sql:
        return
    new_sql, count = re.subn(re.escape(old), new, sql)
    if count != 1:
        raise RuntimeError(f"unexpected definition of {table}: {sql}")
    version = bind.exec_driver_sql("PRAGMA schema_version").scalar_one()
    bind.exec_driver_sql("PRAGMA writable_schema = ON")
    bind.execute(
        sa.text("UPDATE sqlite_master SET sql = :sql WHERE type = 'table' AND name = :t"), {"sql": new_sql, "t": table}
    )
    bind.exec_driver_sql(f"PRAGMA schema_version = {int(version) + 1}")
    bind.exec_driver_sql("PRAGMA writable_schema = OFF")
