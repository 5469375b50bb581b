"""Rebuilding a SQLite table in a migration without losing the rows that refer to it.

SQLite changes a table's constraints by rebuilding it: Alembic's batch mode creates the new
table, copies the rows, drops the old table and renames the new one. Comptoir runs its
migrations in one transaction with foreign keys on (`comptoir.db.migrate`, and the CLI runs them
in the transaction of its command), where `PRAGMA foreign_keys` cannot be turned off. There,
DROP TABLE first deletes every row of the table (https://www.sqlite.org/lang_droptable.html),
which carries out the ON DELETE actions of the tables referring to it: CASCADE deletes their
rows (and, in turn, the rows referring to those), SET NULL empties their references. The
dropped table's AUTOINCREMENT counter goes too: the new table's counter is its highest id,
and the ids of its newest rows, if deleted, would be handed out again.

`keeping_referring_rows(table)` around the rebuild copies the rows those actions reach and
the counter first, and puts back what the rebuild took, in the same transaction: a database
keeps every row. Elsewhere than SQLite it does nothing (no rebuild there).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import sqlalchemy as sa
from alembic import op

_COPY = "comptoir_kept_{}"  # temporary copies, gone at the end of the connection anyway


@dataclass
class _Reached:
    """A table the ON DELETE actions reach: its key, and the columns SET NULL empties."""

    key: list[str]
    emptied: set[str] = field(default_factory=set)


@contextmanager
def keeping_referring_rows(table: str) -> Iterator[None]:
    """Around a batch operation that rebuilds `table` on SQLite: every row stays as it was."""
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        yield
        return
    reached = _reached_by_delete_actions(bind, table)
    for name, target in reached.items():
        rowid = "" if target.key != ["rowid"] else "rowid AS rowid, "
        copy = f"CREATE TEMP TABLE {_q(_COPY.format(name))} AS SELECT {rowid}* FROM {_q(name)}"  # noqa: S608 - names only
        bind.exec_driver_sql(copy)
    counter = _counter(bind, table)
    yield
    if counter is not None and _autoincrement(bind, table) and (_counter(bind, table) or 0) < counter:
        bind.execute(sa.text("DELETE FROM sqlite_sequence WHERE name = :t"), {"t": table})
        bind.execute(sa.text("INSERT INTO sqlite_sequence (name, seq) VALUES (:t, :seq)"), {"t": table, "seq": counter})
    deferred = bind.exec_driver_sql("PRAGMA defer_foreign_keys").scalar_one()
    bind.exec_driver_sql("PRAGMA defer_foreign_keys = ON")  # rows come back parents or children first
    for name, target in reached.items():
        _put_back(bind, name, target)
    for name in reached:
        if bind.exec_driver_sql(f"PRAGMA foreign_key_check({_q(name)})").first() is not None:
            raise RuntimeError(f"rows of {name} kept across the rebuild of {table} refer to missing rows")
        bind.exec_driver_sql(f"DROP TABLE temp.{_q(_COPY.format(name))}")
    bind.exec_driver_sql(f"PRAGMA defer_foreign_keys = {int(deferred)}")


def _reached_by_delete_actions(bind: sa.Connection, table: str) -> dict[str, _Reached]:
    referring: dict[str, list[tuple[str, list[str], str]]] = {}  # table: [(child, columns, ON DELETE)]
    names = bind.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    for (child,) in names.all():
        keys: dict[int, tuple[str, list[str], str]] = {}
        for key_id, _seq, parent, column, _to, _on_update, on_delete, _match in bind.exec_driver_sql(
            f"PRAGMA foreign_key_list({_q(child)})"
        ):
            keys.setdefault(key_id, (parent, [], on_delete.upper()))[1].append(column)
        for parent, columns, on_delete in keys.values():
            referring.setdefault(parent, []).append((child, columns, on_delete))
    reached: dict[str, _Reached] = {}
    pending, seen = [table], {table}
    while pending:
        for child, columns, on_delete in referring.get(pending.pop(), []):
            if child == table or on_delete not in ("CASCADE", "SET NULL", "SET DEFAULT"):
                continue
            target = reached.setdefault(child, _Reached(_key(bind, child)))
            if on_delete != "CASCADE":
                target.emptied.update(columns)
            elif child not in seen:
                seen.add(child)
                pending.append(child)
    return reached


def _put_back(bind: sa.Connection, name: str, target: _Reached) -> None:
    """The rows of `name` the rebuild deleted, and the references it emptied."""
    copy = _COPY.format(name)
    columns = [row[1] for row in bind.exec_driver_sql(f"PRAGMA table_info({_q(name)})")]
    if target.key == ["rowid"]:
        columns = ["rowid", *columns]
    listed = ", ".join(_q(column) for column in columns)
    same_row = " AND ".join(f"{_q(name)}.{_q(k)} = {_q(copy)}.{_q(k)}" for k in target.key)
    # Only table and column names are written into these statements (quoted), no value.
    deleted = (
        f"INSERT INTO {_q(name)} ({listed}) SELECT {listed} FROM temp.{_q(copy)}"  # noqa: S608
        f" WHERE NOT EXISTS (SELECT 1 FROM {_q(name)} WHERE {same_row})"
    )
    bind.exec_driver_sql(deleted)
    if target.emptied:  # every emptied column of a row in one statement: a CHECK may tie them together
        kept = ", ".join(_q(column) for column in sorted(target.emptied))
        emptied = (
            f"UPDATE {_q(name)} SET ({kept}) = (SELECT {kept} FROM temp.{_q(copy)} WHERE {same_row})"  # noqa: S608
            f" WHERE EXISTS (SELECT 1 FROM temp.{_q(copy)} WHERE {same_row})"
        )
        bind.exec_driver_sql(emptied)


def _key(bind: sa.Connection, name: str) -> list[str]:
    primary = sorted((row[5], row[1]) for row in bind.exec_driver_sql(f"PRAGMA table_info({_q(name)})") if row[5])
    return [column for _position, column in primary] or ["rowid"]


def _counter(bind: sa.Connection, table: str) -> int | None:
    if bind.exec_driver_sql("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").first() is None:
        return None
    return bind.execute(sa.text("SELECT seq FROM sqlite_sequence WHERE name = :t"), {"t": table}).scalar()


def _autoincrement(bind: sa.Connection, table: str) -> bool:
    sql = bind.execute(sa.text("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = :t"), {"t": table})
    return "AUTOINCREMENT" in sql.scalar_one().upper()


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
