"""spec 8.1 with the keyset helper on a two-column key (the shape of newest-first lists):
a walk never repeats or skips an item while others insert, on both databases."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, NoReturn

from sqlalchemy import select

from comptoir.db.engine import Database
from comptoir.db.keyset import Key, paginate
from comptoir.kit import clock
from comptoir.kit.pagination import PageRequest
from comptoir.locations.service import create_location
from comptoir.models import Account, Location
from tests.factories import World

SEALED: dict[str, list[Any]] = {}  # what a cursor stands for, as the HTTP layer's seal keeps it hidden


def _seal(values: Sequence[Any]) -> str:
    cursor = str(len(SEALED))
    SEALED[cursor] = list(values)
    return cursor


def _refuse() -> NoReturn:
    raise AssertionError("cursor refused")


def _page(count: int, cursor: str | None) -> PageRequest:
    return PageRequest(count, SEALED[cursor] if cursor else None, _seal, _refuse)


async def test_newest_first_walk_sees_each_existing_row_once_while_others_insert(
    database: Database, world: World
) -> None:
    keys = [Key(Location.created_at, datetime), Key(Location.id, int)]
    account = await world.account()
    base = clock.now()
    for i in range(7):
        clock.freeze(base + timedelta(seconds=i // 2))  # pairs share a created_at: the id breaks ties
        await world.location(account, name=f"L{i}")
    seen: list[str] = []
    cursor = None
    inserted = 0
    while True:
        async with database.transaction(write=False) as session:
            stmt = select(Location).where(Location.account_id == account.id)
            page = await paginate(session, stmt, keys, _page(3, cursor), descending=True)
        seen += [row[0].name for row in page.rows]
        # others insert newer rows meanwhile: a newest-first walk must not see them or repeat
        clock.freeze(base + timedelta(minutes=1, seconds=inserted))
        async with database.transaction() as session:
            fresh = await session.get(Account, account.id)
            assert fresh is not None
            await create_location(session, account=fresh, name=f"new{inserted}", timezone="UTC", country="FR")
        inserted += 1
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == ["L6", "L5", "L4", "L3", "L2", "L1", "L0"]
