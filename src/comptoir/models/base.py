"""Declarative base with constraint naming conventions and the column types every model uses."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import JSON, BigInteger, DateTime, Integer, MetaData, Numeric, String, TypeDecorator
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase

from comptoir.kit.jsonutil import plain_fragment

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# Integer primary keys: BIGINT on PostgreSQL, INTEGER (the rowid alias) on SQLite.
PK = BigInteger().with_variant(Integer(), "sqlite")


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in, aware UTC datetimes out, on both databases (docs/architecture.md "Times and money")."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime stored; use comptoir.kit.clock / times.localize")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class JSONValue(TypeDecorator[Any]):
    """JSON kept as written (key order, exact numbers): plain JSON, never JSONB. Python None
    is SQL NULL."""

    impl = JSON(none_as_null=True)
    cache_ok = True


class StoredJSON(JSONValue):
    """JSONValue for large shapes read often (an order's view): a value without fractions or
    huge integers is stored marked, and read back by orjson (`kit.jsonutil.plain_fragment`)."""

    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        return None if value is None else plain_fragment(value)


class ExactDecimal(TypeDecorator[Decimal]):
    """An exact decimal of any size and scale (spec 2.1: never a float): PostgreSQL NUMERIC,
    so balances can be added in SQL; text on SQLite, whose NUMERIC affinity would round
    through a double. The value read back keeps the scale it was written with."""

    impl = String(100)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> Any:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(Numeric(asdecimal=True))
        return dialect.type_descriptor(String(100))

    def process_bind_param(self, value: Decimal | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if not isinstance(value, Decimal):
            raise TypeError(f"ExactDecimal takes Decimal values, not {type(value).__name__}")
        return value if dialect.name == "postgresql" else format(value, "f")

    def process_result_value(self, value: Any, dialect: Dialect) -> Decimal | None:
        if value is None:
            return None
        return value if isinstance(value, Decimal) else Decimal(value)


def search_text(length: int) -> Any:
    """A column searched by prefix (`john*`): compared byte-wise on both databases (collation
    "C" on PostgreSQL; SQLite's default BINARY), so a range `>= 'john' AND < 'joho'` on its
    index finds exactly the values starting with "john"."""
    return String(length).with_variant(String(length, collation="C"), "postgresql")


# SQLite reuses the largest rowid once its row is deleted; with AUTOINCREMENT it never
# does, like PostgreSQL's sequences. Public ids (and X-Event-Id) must never be reused.
NEVER_REUSE_IDS = {"sqlite_autoincrement": True}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
