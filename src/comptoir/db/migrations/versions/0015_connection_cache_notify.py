"""connection cache notifications (PostgreSQL)

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-22 02:30:00.000000

Every change to what the connection cache holds (a connection, its OAuth client, account
and location; callback subscriptions) sends `NOTIFY comptoir_connections` at commit (once per
transaction: PostgreSQL folds identical notifications), so each process's cache
(`comptoir.db.connection_cache`) forgets what it holds. `connections.last_used_at`, written
every second by each process, is not among the columns watched. SQLite has no cache.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WATCHED = {
    "connections": "UPDATE OF client_id, user_id, level, account_id, location_id, catalog_id, customer_list_id, "
    "name, scope, token_hash, revoked_at, blocked OR DELETE",
    "oauth_clients": "UPDATE OR DELETE",
    "accounts": "UPDATE OR DELETE",
    "locations": "UPDATE OR DELETE",
    "callback_subscriptions": "INSERT OR UPDATE OR DELETE",
}


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(
        """
        CREATE FUNCTION comptoir_connections_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('comptoir_connections', '');
            RETURN NULL;
        END
        $$
        """
    )
    for table, events in WATCHED.items():
        op.execute(
            f"CREATE TRIGGER {table}_changed AFTER {events} ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION comptoir_connections_changed()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in WATCHED:
        op.execute(f"DROP TRIGGER {table}_changed ON {table}")
    op.execute("DROP FUNCTION comptoir_connections_changed()")
