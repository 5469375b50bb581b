"""Foundation: users, accounts, locations, OAuth clients, connections, catalogs and customer
lists (bindings only), changes (the event outbox), private refs.

Revision ID: 0001
Revises:
Create Date: 2026-11-21 12:57:48.104598
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:

    op.create_table(
        "users",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("password_hash", sa.Text(), nullable=False),
        sa.Column("first_name", sa.String(length=255), nullable=True),
        sa.Column("last_name", sa.String(length=255), nullable=True),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("locales", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint("email", name=op.f("uq_users_email")),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "accounts",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("owner_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("suspended", sa.Boolean(), nullable=False),
        sa.Column("location_count", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["owner_id"], ["users.id"], name=op.f("fk_accounts_owner_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("accounts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_accounts_owner_id"), ["owner_id"], unique=False)

    op.create_table(
        "oauth_clients",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("secret_seed", sa.String(length=64), nullable=False),
        sa.Column("redirect_uris", sa.JSON(), nullable=False),
        sa.Column("owner_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["owner_id"], ["users.id"], name=op.f("fk_oauth_clients_owner_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_oauth_clients")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("oauth_clients", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_oauth_clients_owner_id"), ["owner_id"], unique=False)

    op.create_table(
        "locations",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("account_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("address", sa.Text(), nullable=True),
        sa.Column("postal_code", sa.String(length=32), nullable=True),
        sa.Column("city", sa.String(length=255), nullable=True),
        sa.Column("country", sa.String(length=2), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("cutoff_time", sa.String(length=5), nullable=False),
        sa.Column("opening_hours", sa.JSON(), nullable=True),
        sa.Column("preparation_time", sa.Integer(), nullable=False),
        sa.Column("acceptance_mode", sa.String(length=10), nullable=False),
        sa.Column("acceptance_resume_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("acceptance_extra_preparation_time", sa.Integer(), nullable=True),
        sa.Column("acceptance_reason", sa.Text(), nullable=True),
        sa.Column("custom_fields", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name=op.f("fk_locations_account_id_accounts")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_locations")),
        sa.UniqueConstraint("account_id", "number", name=op.f("uq_locations_account_id_number")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("locations", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_locations_acceptance_resume_at"), ["acceptance_resume_at"], unique=False)

    op.create_table(
        "private_refs",
        sa.Column("resource_type", sa.String(length=32), nullable=False),
        sa.Column("resource_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("client_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("ref", sa.String(length=255), nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"],
            ["oauth_clients.id"],
            name=op.f("fk_private_refs_client_id_oauth_clients"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("resource_type", "resource_id", "client_id", name=op.f("pk_private_refs")),
    )
    with op.batch_alter_table("private_refs", schema=None) as batch_op:
        batch_op.create_index("ix_private_refs_lookup", ["client_id", "resource_type", "ref"], unique=False)

    op.create_table(
        "catalogs",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("account_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("location_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name=op.f("fk_catalogs_account_id_accounts")),
        sa.ForeignKeyConstraint(["location_id"], ["locations.id"], name=op.f("fk_catalogs_location_id_locations")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_catalogs")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("catalogs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_catalogs_account_id"), ["account_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_catalogs_location_id"), ["location_id"], unique=False)

    op.create_table(
        "customer_lists",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("account_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("location_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name=op.f("fk_customer_lists_account_id_accounts")),
        sa.ForeignKeyConstraint(
            ["location_id"], ["locations.id"], name=op.f("fk_customer_lists_location_id_locations")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_customer_lists")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("customer_lists", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_customer_lists_account_id"), ["account_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_customer_lists_location_id"), ["location_id"], unique=False)

    op.create_table(
        "connections",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("client_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("user_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("level", sa.String(length=10), nullable=False),
        sa.Column("target", sa.String(length=40), nullable=False),
        sa.Column("account_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("location_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("catalog_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("customer_list_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("scope", sa.Text(), nullable=False),
        sa.Column("token_seed", sa.String(length=64), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("blocked", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name=op.f("fk_connections_account_id_accounts")),
        sa.ForeignKeyConstraint(
            ["catalog_id"], ["catalogs.id"], name=op.f("fk_connections_catalog_id_catalogs"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["client_id"], ["oauth_clients.id"], name=op.f("fk_connections_client_id_oauth_clients"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["customer_list_id"],
            ["customer_lists.id"],
            name=op.f("fk_connections_customer_list_id_customer_lists"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(["location_id"], ["locations.id"], name=op.f("fk_connections_location_id_locations")),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_connections_user_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_connections")),
        sa.UniqueConstraint("client_id", "target", "name", name=op.f("uq_connections_client_id_target_name")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_connections_token_hash")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("connections", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_connections_account_id"), ["account_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_connections_catalog_id"), ["catalog_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_connections_customer_list_id"), ["customer_list_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_connections_location_id"), ["location_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_connections_user_id"), ["user_id"], unique=False)

    op.create_table(
        "changes",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("resource_type", sa.String(length=32), nullable=False),
        sa.Column("event_type", sa.String(length=16), nullable=False),
        sa.Column("ids", sa.JSON(), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("location_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("catalog_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("customer_list_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("previous_state", sa.JSON(), nullable=True),
        sa.Column("new_state", sa.JSON(), nullable=True),
        sa.Column("state_change", sa.JSON(), nullable=True),
        sa.Column("connection_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("client_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("fanned_out_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_changes_account_id_accounts"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["client_id"], ["oauth_clients.id"], name=op.f("fk_changes_client_id_oauth_clients"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["connection_id"],
            ["connections.id"],
            name=op.f("fk_changes_connection_id_connections"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["location_id"], ["locations.id"], name=op.f("fk_changes_location_id_locations"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_changes")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("changes", schema=None) as batch_op:
        batch_op.create_index("ix_changes_pending", ["fanned_out_at", "id"], unique=False)


def downgrade() -> None:

    with op.batch_alter_table("changes", schema=None) as batch_op:
        batch_op.drop_index("ix_changes_pending")

    op.drop_table("changes")
    with op.batch_alter_table("connections", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_connections_user_id"))
        batch_op.drop_index(batch_op.f("ix_connections_location_id"))
        batch_op.drop_index(batch_op.f("ix_connections_customer_list_id"))
        batch_op.drop_index(batch_op.f("ix_connections_catalog_id"))
        batch_op.drop_index(batch_op.f("ix_connections_account_id"))

    op.drop_table("connections")
    with op.batch_alter_table("customer_lists", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_customer_lists_location_id"))
        batch_op.drop_index(batch_op.f("ix_customer_lists_account_id"))

    op.drop_table("customer_lists")
    with op.batch_alter_table("catalogs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_catalogs_location_id"))
        batch_op.drop_index(batch_op.f("ix_catalogs_account_id"))

    op.drop_table("catalogs")
    with op.batch_alter_table("private_refs", schema=None) as batch_op:
        batch_op.drop_index("ix_private_refs_lookup")

    op.drop_table("private_refs")
    with op.batch_alter_table("locations", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_locations_acceptance_resume_at"))

    op.drop_table("locations")
    with op.batch_alter_table("oauth_clients", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_oauth_clients_owner_id"))

    op.drop_table("oauth_clients")
    with op.batch_alter_table("accounts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_accounts_owner_id"))

    op.drop_table("accounts")
    op.drop_table("users")
