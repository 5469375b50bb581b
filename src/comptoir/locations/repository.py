"""Every statement on locations (spec 2.3): reads with their account, the row lock of an
update, the account's page of locations, the timed reversion's claim, and the lists the back
office and the authorisation pages show. The rules are in `comptoir.locations.service`.

A location-level connection's own location is not read here per request: it comes with the
token, as a read-only snapshot (`comptoir.auth.repository.connection_by_token_hash`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.auth import people
from comptoir.db.keyset import Key, paginate
from comptoir.kit.pagination import Page, PageRequest
from comptoir.models import Account, Location


def _with_account() -> Select[Location, Account]:
    return select(Location, Account).join(Account, Account.id == Location.account_id)


def _locked(stmt: Select[Location, Account]) -> Select[Location, Account]:
    # Row lock on PostgreSQL (SQLite writers are already serialised by BEGIN IMMEDIATE);
    # populate_existing refreshes what the auth query loaded earlier in this transaction.
    return stmt.with_for_update(of=Location).execution_options(populate_existing=True)


async def get(session: AsyncSession, location_id: int) -> Location | None:
    return await session.get(Location, location_id)


async def with_account(
    session: AsyncSession, account_pk: int, number: int, *, for_update: bool = False
) -> tuple[Location, Account] | None:
    """The location numbered `number` in the account `account_pk`, with its account;
    `for_update`: locked in the session's transaction."""
    stmt = _with_account().where(Location.account_id == account_pk, Location.number == number)
    row = (await session.execute(_locked(stmt) if for_update else stmt)).first()
    return (row[0], row[1]) if row is not None else None


async def locked_by_id(session: AsyncSession, location_id: int) -> tuple[Location, Account]:
    """The location `location_id` (which exists) and its account, the location locked."""
    stmt = _locked(_with_account().where(Location.id == location_id))
    location, account = (await session.execute(stmt)).one()
    return location, account


async def page_of_account(session: AsyncSession, account_id: int, page: PageRequest) -> Page:
    """One page of the account's locations by number; rows are (Location, Account)."""
    stmt = _with_account().where(Location.account_id == account_id)
    return await paginate(session, cast("Select[Any]", stmt), [Key(Location.number, int)], page)


async def any_due(session: AsyncSession, now: datetime) -> bool:
    """Whether some busy or paused location's `resume_at` has passed (no lock taken)."""
    found = await session.scalar(select(Location.id).where(*_due(now)).limit(1))
    return found is not None


async def claim_due(session: AsyncSession, now: datetime, batch: int) -> list[tuple[Location, Account]]:
    """Up to `batch` locations due to revert, earliest first, locked; rows another worker
    holds are skipped (SKIP LOCKED on PostgreSQL; SQLite serialises writers)."""
    stmt = (
        _with_account()
        .where(*_due(now))
        .order_by(Location.acceptance_resume_at)
        .limit(batch)
        .with_for_update(of=Location, skip_locked=True)
    )
    return [(location, account) for location, account in (await session.execute(stmt)).all()]


def _due(now: datetime) -> tuple[Any, ...]:
    return Location.acceptance_mode != "normal", Location.acceptance_resume_at <= now


async def add(session: AsyncSession, location: Location) -> None:
    session.add(location)
    await session.flush()


async def of_account(session: AsyncSession, account_id: int) -> list[Location]:
    """The account's locations by number."""
    stmt = select(Location).where(Location.account_id == account_id).order_by(Location.number)
    return list(await session.scalars(stmt))


async def first_of_account(session: AsyncSession, account_id: int) -> Location | None:
    """The account's location with the lowest number."""
    return await session.scalar(select(Location).where(Location.account_id == account_id).order_by(Location.number))


async def of_accounts(session: AsyncSession, account_ids: Sequence[int]) -> list[Location]:
    """The locations of these accounts, by account then number."""
    stmt = (
        select(Location)
        .where(Location.account_id.in_(list(account_ids)))
        .order_by(Location.account_id, Location.number)
    )
    return list(await session.scalars(stmt))


async def owned_by(session: AsyncSession, user_id: int) -> list[tuple[Location, Account]]:
    """Every location of the user's accounts with its account, by account then number."""
    stmt = _with_account().where(people.owned_by(Account, user_id)).order_by(Account.id, Location.number)
    return [(location, account) for location, account in (await session.execute(stmt)).all()]
