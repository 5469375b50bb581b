"""Upgrading a database that holds data keeps every row of it, as it was, on both databases.

On SQLite a migration that changes a table's constraints rebuilds the table (drop and
rename) inside the migration's transaction, with foreign keys on: the drop would carry out
the ON DELETE actions of every table referring to it (comptoir.db.migrations.rebuild). Each
test fills every table of the database at a revision just before such a rebuild (0004:
customer lists, 0009: catalogs, 0017: changes, 0018: orders, 0030: connections and
applications), every column set, each row referring to the others, then upgrades to the
newest revision."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import text

from comptoir.db.engine import Database
from tests.storage.migrating import migrate

Rows = dict[str, list[tuple[Any, ...]]]

# Revisions just before a migration that rebuilds a table on SQLite.
BEFORE_REBUILDS = ["0003", "0008", "0016", "0017", "0023", "0029"]


@pytest.fixture(autouse=True)
async def _back_at_head(database: Database) -> AsyncIterator[None]:
    """The PostgreSQL test database is shared by the tests that follow: at head again."""
    yield
    await migrate(database, "head")


def _value(column: sa.Column, number: int) -> Any:
    """A value for a column that no foreign key sets: the row's `number` for integers."""
    kind = column.type
    if isinstance(kind, sa.Boolean):
        return True
    if isinstance(kind, sa.DateTime):
        return datetime(2026, 11, 20, 12, 30, number % 60, tzinfo=UTC)
    if isinstance(kind, sa.Date):
        return date(2026, 11, 20)
    if isinstance(kind, sa.Time):
        return time(12, 30)
    if isinstance(kind, sa.Integer):
        return number
    if isinstance(kind, sa.Numeric):
        return Decimal("12.50")
    if isinstance(kind, sa.JSON):
        return {"kept": number}
    if isinstance(kind, sa.LargeBinary):
        return b"kept"
    if isinstance(kind, sa.String):
        return f"kept {column.name} {number}"[: kind.length or None]
    raise AssertionError(f"no test value for {column.table.name}.{column.name} ({kind!r})")


def _fill(connection: sa.Connection) -> None:
    """One row in every table, every column set; a foreign key refers to the parent's row."""
    metadata = sa.MetaData()
    metadata.reflect(connection)
    rows: dict[str, dict[str, Any]] = {}
    for number, table in enumerate(metadata.sorted_tables, start=1):
        if table.name in ("alembic_version", "installation"):
            continue
        generated = table.autoincrement_column  # the database numbers the row, as it does in use
        row = {column.name: _value(column, number) for column in table.columns if column is not generated}
        for key in table.foreign_key_constraints:
            parent = rows[key.referred_table.name]
            for element in key.elements:
                row[element.parent.name] = parent[element.column.name]
        if generated is not None and generated.name not in row:
            row[generated.name] = connection.execute(table.insert().returning(generated), row).scalar_one()
        else:
            connection.execute(table.insert(), row)
        rows[table.name] = row


def _rows(connection: sa.Connection, tables: dict[str, list[str]] | None = None) -> Rows:
    """Every row of every table (of `tables`' columns when given), in key order."""
    metadata = sa.MetaData()
    metadata.reflect(connection)
    found: Rows = {}
    for table in metadata.sorted_tables:
        if table.name == "alembic_version" or (tables is not None and table.name not in tables):
            continue
        names = tables[table.name] if tables is not None else [column.name for column in table.columns]
        columns = [table.c[name] for name in names]
        order = [column for column in columns if not isinstance(column.type, sa.JSON)]  # no order on PostgreSQL
        found[table.name] = [tuple(row) for row in connection.execute(sa.select(*columns).order_by(*order))]
    return found


async def _all_rows(database: Database, columns: dict[str, list[str]] | None = None) -> Rows:
    async with database.engine.connect() as connection:
        return await connection.run_sync(_rows, columns)


async def _fill_at(database: Database, revision: str) -> Rows:
    await migrate(database, revision)
    async with database.engine.begin() as connection:
        await connection.run_sync(_fill)
    before = await _all_rows(database)
    assert all(before[table] for table in before if table != "installation")
    return before


async def _columns(database: Database) -> dict[str, list[str]]:
    def read(connection: sa.Connection) -> dict[str, list[str]]:
        inspector = sa.inspect(connection)
        return {table: [c["name"] for c in inspector.get_columns(table)] for table in inspector.get_table_names()}

    async with database.engine.connect() as connection:
        return await connection.run_sync(read)


@pytest.mark.parametrize("revision", BEFORE_REBUILDS)
async def test_upgrading_keeps_every_row_of_every_table(database: Database, revision: str) -> None:
    before = await _fill_at(database, revision)
    columns = await _columns(database)
    await migrate(database, "head")
    after = await _all_rows(database, {table: columns[table] for table in before})
    assert {table: len(rows) for table, rows in after.items()} == {table: len(rows) for table, rows in before.items()}
    assert after == before


@pytest.mark.parametrize("db_kind", ["sqlite"])  # SQLite's own checks: PostgreSQL checks as it goes
@pytest.mark.parametrize("revision", BEFORE_REBUILDS)
async def test_an_upgraded_sqlite_database_passes_its_integrity_checks(database: Database, revision: str) -> None:
    await _fill_at(database, revision)
    await migrate(database, "head")
    async with database.engine.connect() as connection:
        assert (await connection.execute(text("PRAGMA foreign_key_check"))).all() == []
        assert (await connection.execute(text("PRAGMA integrity_check"))).scalars().all() == ["ok"]


@pytest.mark.parametrize(("revision", "table"), [("0008", "catalogs"), ("0016", "changes"), ("0017", "orders")])
async def test_a_rebuilt_table_never_hands_out_the_id_of_a_deleted_row_again(
    database: Database, revision: str, table: str
) -> None:
    await _fill_at(database, revision)
    async with database.engine.begin() as connection:
        deleted = await connection.run_sync(_copy_of_a_row, table)
        await connection.execute(text(f"DELETE FROM {table} WHERE id = :id"), {"id": deleted})
    await migrate(database, "head")
    async with database.engine.begin() as connection:
        again = await connection.run_sync(_copy_of_a_row, table)
    assert again > deleted


def _copy_of_a_row(connection: sa.Connection, name: str) -> int:
    """A copy of the row of `name` with the smallest id, under the next id: that id."""
    table = sa.Table(name, sa.MetaData(), autoload_with=connection)
    row = dict(connection.execute(sa.select(table).order_by(table.c.id).limit(1)).mappings().one())
    del row["id"]
    for unique in sa.inspect(connection).get_unique_constraints(name):
        for column in unique["column_names"]:
            if isinstance(table.c[column].type, sa.String):
                row[column] = f"{row[column]} copy"
    return connection.execute(table.insert().returning(table.c.id), row).scalar_one()


async def test_downgrading_across_the_rebuilds_keeps_every_row_of_every_table(database: Database) -> None:
    before = await _fill_at(database, "0016")
    await migrate(database, "head")
    await migrate(database, "0016")
    assert await _all_rows(database) == before
