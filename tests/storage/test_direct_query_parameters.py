"""db/direct.py `Query`: parameters go through their SQLAlchemy types as the engine sends
them (a datetime compares with the stored one on SQLite too, whole seconds included), and the
compiler's own parameters (SQLite's OFFSET after a LIMIT) are supplied; a list of integers
is one parameter (`within`); both databases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Integer, bindparam, insert, select

from comptoir.config import Settings
from comptoir.db.direct import FastReader, Query, within
from comptoir.db.engine import Database
from comptoir.models import Notice
from tests.factories import World

UP_TO = Query(
    select(Notice.text, Notice.created_at)
    .where(
        Notice.account_id == bindparam("account_id"),
        Notice.created_at <= bindparam("now", type_=Notice.created_at.type),
    )
    .order_by(Notice.id)
    .limit(bindparam("limit", type_=Integer))
)


async def test_a_datetime_parameter_and_a_limit_read_as_through_a_session(
    world: World, database: Database, settings: Settings
) -> None:
    account = await world.account()
    whole = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)  # no microseconds: the form SQLite's text must match
    async with database.transaction() as session:
        await session.execute(
            insert(Notice),
            [
                {"account_id": account.id, "created_at": whole, "text": "first"},
                {"account_id": account.id, "created_at": whole + timedelta(microseconds=1), "text": "second"},
            ],
        )
    reader = FastReader(settings)
    try:
        at = await reader.all(UP_TO, account_id=account.id, now=whole, limit=10)
        both = await reader.all(UP_TO, account_id=account.id, now=whole + timedelta(seconds=1), limit=10)
        one = await reader.all(UP_TO, account_id=account.id, now=whole + timedelta(seconds=1), limit=1)
        before = await reader.all(UP_TO, account_id=account.id, now=whole - timedelta(microseconds=1), limit=10)
    finally:
        await reader.close()
    assert at == [{"text": "first", "created_at": whole}]
    assert both == [
        {"text": "first", "created_at": whole},
        {"text": "second", "created_at": whole + timedelta(microseconds=1)},
    ]
    assert one == [{"text": "first", "created_at": whole}]
    assert before == []


AMONG = Query(
    select(Notice.text)
    .where(Notice.account_id == bindparam("account_id"), within(Notice.id, "keys"), ~within(Notice.id, "but"))
    .order_by(Notice.id)
)


async def test_within_keeps_the_rows_whose_value_is_among_an_integer_list_parameter(
    world: World, database: Database, settings: Settings
) -> None:
    account = await world.account()
    at = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
    async with database.transaction() as session:
        keys = [
            await session.scalar(
                insert(Notice).values(account_id=account.id, created_at=at, text=text).returning(Notice.id)
            )
            for text in ("a", "b", "c")
        ]
    reader = FastReader(settings)
    try:
        found = {
            name: [row["text"] for row in await reader.all(AMONG, account_id=account.id, keys=among, but=but)]
            for name, among, but in [
                ("all", keys, []),
                ("two but one", keys[:2], keys[1:]),
                ("none", [], []),
                ("all but none", keys, set()),
                ("many", [*keys, *range(10**9, 10**9 + 1000)], [keys[2]]),
            ]
        }
    finally:
        await reader.close()
    assert found == {
        "all": ["a", "b", "c"],
        "two but one": ["a"],
        "none": [],
        "all but none": ["a", "b", "c"],
        "many": ["a", "b"],
    }
