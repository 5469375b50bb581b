"""Customers and loyalty: customers, loyalty cards and operations; name claims enforcing the
account-wide naming rule of customer lists (and catalogs); scoped private refs.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-21 15:53:40.397524
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from comptoir.db.migrations.rebuild import keeping_referring_rows

# comptoir.models.base.ExactDecimal: NUMERIC on PostgreSQL, exact text on SQLite
EXACT_DECIMAL = sa.String(length=100).with_variant(sa.Numeric(), "postgresql")

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "name_claims",
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("account_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("account_level", sa.Boolean(), nullable=False),
        sa.Column("holders", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_name_claims_account_id_accounts"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("kind", "account_id", "name", name=op.f("pk_name_claims")),
    )
    op.create_table(
        "customers",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("customer_list_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("email", sa.String(length=255), nullable=True),
        sa.Column(
            "email_lower",
            sa.String(length=255).with_variant(sa.String(length=255, collation="C"), "postgresql"),
            nullable=True,
        ),
        sa.Column("first_name", sa.String(length=255), nullable=True),
        sa.Column("last_name", sa.String(length=255), nullable=True),
        sa.Column("gender", sa.String(length=6), nullable=True),
        sa.Column("birth_date", sa.Date(), nullable=True),
        sa.Column("company_name", sa.String(length=255), nullable=True),
        sa.Column(
            "phone", sa.String(length=64).with_variant(sa.String(length=64, collation="C"), "postgresql"), nullable=True
        ),
        sa.Column("phone_access_code", sa.String(length=64), nullable=True),
        sa.Column("address_1", sa.String(length=1000), nullable=True),
        sa.Column("address_2", sa.String(length=1000), nullable=True),
        sa.Column("postal_code", sa.String(length=32), nullable=True),
        sa.Column("city", sa.String(length=255), nullable=True),
        sa.Column("state", sa.String(length=255), nullable=True),
        sa.Column("country", sa.String(length=2), nullable=True),
        sa.Column("latitude", EXACT_DECIMAL, nullable=True),
        sa.Column("longitude", EXACT_DECIMAL, nullable=True),
        sa.Column("delivery_notes", sa.Text(), nullable=True),
        sa.Column("sms_marketing", sa.Boolean(), nullable=False),
        sa.Column("email_marketing", sa.Boolean(), nullable=False),
        sa.Column("custom_fields", sa.JSON(), nullable=False),
        sa.Column("anonymised", sa.Boolean(), nullable=False),
        sa.Column("nb_orders", sa.Integer(), nullable=False),
        sa.Column("order_total", EXACT_DECIMAL, nullable=False),
        sa.Column("first_order_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_order_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["customer_list_id"],
            ["customer_lists.id"],
            name=op.f("fk_customers_customer_list_id_customer_lists"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_customers")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("customers", schema=None) as batch_op:
        batch_op.create_index("ix_customers_email", ["customer_list_id", "email_lower", "id"], unique=False)
        batch_op.create_index("ix_customers_list", ["customer_list_id", "id"], unique=False)
        batch_op.create_index("ix_customers_phone", ["customer_list_id", "phone", "id"], unique=False)

    op.create_table(
        "loyalty_cards",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("customer_list_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("customer_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=True),
        sa.Column("ref", sa.String(length=255), nullable=True),
        sa.Column("balance", EXACT_DECIMAL, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["customer_id"], ["customers.id"], name=op.f("fk_loyalty_cards_customer_id_customers"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["customer_list_id"],
            ["customer_lists.id"],
            name=op.f("fk_loyalty_cards_customer_list_id_customer_lists"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_loyalty_cards")),
        sa.UniqueConstraint("customer_id", "ref", name=op.f("uq_loyalty_cards_customer_id_ref")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("loyalty_cards", schema=None) as batch_op:
        batch_op.create_index("ix_loyalty_cards_list", ["customer_list_id", "id"], unique=False)
        batch_op.create_index(
            "uq_loyalty_cards_null_ref",
            ["customer_id"],
            unique=True,
            sqlite_where=sa.text("ref IS NULL"),
            postgresql_where=sa.text("ref IS NULL"),
        )

    op.create_table(
        "loyalty_operations",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("loyalty_card_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("customer_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("delta", EXACT_DECIMAL, nullable=False),
        sa.Column("new_balance", EXACT_DECIMAL, nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("order_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("order_location_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["customer_id"],
            ["customers.id"],
            name=op.f("fk_loyalty_operations_customer_id_customers"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["loyalty_card_id"],
            ["loyalty_cards.id"],
            name=op.f("fk_loyalty_operations_loyalty_card_id_loyalty_cards"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["order_location_id"],
            ["locations.id"],
            name=op.f("fk_loyalty_operations_order_location_id_locations"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_loyalty_operations")),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("loyalty_operations", schema=None) as batch_op:
        batch_op.create_index("ix_loyalty_operations_card", ["loyalty_card_id", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_loyalty_operations_customer_id"), ["customer_id"], unique=False)

    with keeping_referring_rows("customer_lists"), op.batch_alter_table("customer_lists", schema=None) as batch_op:
        batch_op.create_unique_constraint(batch_op.f("uq_customer_lists_location_id_name"), ["location_id", "name"])

    with op.batch_alter_table("private_refs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("scope_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True))
        batch_op.create_index("uq_private_refs_scoped", ["resource_type", "client_id", "scope_id", "ref"], unique=True)

    _claim_existing_names("customer_list", "customer_lists")
    _claim_existing_names("catalog", "catalogs")


def _claim_existing_names(kind: str, table_name: str) -> None:
    """Name claims for the lists (catalogs) that exist already: account-level names first,
    then location-level names not claimed at account level (comptoir.core.names)."""
    table = sa.table(table_name, sa.column("account_id"), sa.column("location_id"), sa.column("name"))
    claims = sa.table(
        "name_claims",
        sa.column("kind"),
        sa.column("account_id"),
        sa.column("name"),
        sa.column("account_level"),
        sa.column("holders"),
    )
    bind = op.get_bind()
    found: dict[tuple[int, str], dict] = {}
    for account_id, location_id, name in bind.execute(sa.select(table.c.account_id, table.c.location_id, table.c.name)):
        claim = found.setdefault((account_id, name), {"account_level": False, "holders": 0})
        if location_id is None:
            claim["account_level"] = True
        claim["holders"] += 1
    rows = [
        {"kind": kind, "account_id": account_id, "name": name, **claim} for (account_id, name), claim in found.items()
    ]
    if rows:
        bind.execute(claims.insert(), rows)


def downgrade() -> None:
    with op.batch_alter_table("private_refs", schema=None) as batch_op:
        batch_op.drop_index("uq_private_refs_scoped")
        batch_op.drop_column("scope_id")

    with keeping_referring_rows("customer_lists"), op.batch_alter_table("customer_lists", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_customer_lists_location_id_name"), type_="unique")

    with op.batch_alter_table("loyalty_operations", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_loyalty_operations_customer_id"))
        batch_op.drop_index("ix_loyalty_operations_card")

    op.drop_table("loyalty_operations")
    with op.batch_alter_table("loyalty_cards", schema=None) as batch_op:
        batch_op.drop_index(
            "uq_loyalty_cards_null_ref", sqlite_where=sa.text("ref IS NULL"), postgresql_where=sa.text("ref IS NULL")
        )
        batch_op.drop_index("ix_loyalty_cards_list")

    op.drop_table("loyalty_cards")
    with op.batch_alter_table("customers", schema=None) as batch_op:
        batch_op.drop_index("ix_customers_phone")
        batch_op.drop_index("ix_customers_list")
        batch_op.drop_index("ix_customers_email")

    op.drop_table("customers")
    op.drop_table("name_claims")
