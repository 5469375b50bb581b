"""Alembic environment. Comptoir runs migrations itself (`comptoir.db.migrate.upgrade`), handing
over an open connection; there is no alembic.ini."""

from __future__ import annotations

from alembic import context

from comptoir.models import Base

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
