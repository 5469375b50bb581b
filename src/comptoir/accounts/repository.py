"""Every statement on accounts (spec 2.3 Account). The rules are in
`comptoir.accounts.service`; a connection's own account comes with its token, as a read-only
snapshot (`comptoir.auth.repository.connection_by_token_hash`); the notices an account's users
read in the back office."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.auth import people
from comptoir.db.engine import get_by_public_id
from comptoir.models import Account, Connection, Location, Notice


async def add(session: AsyncSession, account: Account) -> None:
    session.add(account)
    await session.flush()


async def get(session: AsyncSession, account_id: int) -> Account | None:
    return await session.get(Account, account_id)


async def by_public_id(session: AsyncSession, public_id: str) -> Account | None:
    return await get_by_public_id(session, Account, public_id)


async def owned_by(session: AsyncSession, user_id: int) -> list[Account]:
    """The user's accounts, oldest first."""
    return list(await session.scalars(select(Account).where(people.owned_by(Account, user_id)).order_by(Account.id)))


async def owned_with_locations(session: AsyncSession, user_id: int) -> list[tuple[Account, Location | None]]:
    """The user's accounts, oldest first, each with its locations by number (None for an
    account without one): one statement, for the back office's navigation."""
    stmt = (
        select(Account, Location)
        .outerjoin(Location, Location.account_id == Account.id)
        .where(people.owned_by(Account, user_id))
        .order_by(Account.id, Location.number)
    )
    return [(account, location) for account, location in (await session.execute(stmt)).all()]


async def set_suspended(session: AsyncSession, account_id: int, suspended: bool) -> None:
    await session.execute(update(Account).where(Account.id == account_id).values(suspended=suspended))


async def take_location_number(session: AsyncSession, account_id: int) -> int:
    """The next location number of the account: an atomic increment of its counter, so two
    concurrent creations never share a number."""
    number = await session.scalar(
        update(Account)
        .where(Account.id == account_id)
        .values(location_count=Account.location_count + 1)
        .returning(Account.location_count)
    )
    assert number is not None
    return number


async def location_count(session: AsyncSession, account_id: int) -> int:
    return (await session.scalar(select(Account.location_count).where(Account.id == account_id))) or 0


async def set_location_count(session: AsyncSession, account_id: int, count: int) -> None:
    await session.execute(update(Account).where(Account.id == account_id).values(location_count=count))


# --- notices: what the account's users read in the back office until they dismiss it ------


async def add_notice(session: AsyncSession, connection_id: int, now: datetime, text: str) -> None:
    """A notice to the users of the account the connection reaches (none for a user's own)."""
    account = select(Connection.account_id).where(Connection.id == connection_id).scalar_subquery()
    exists_account = select(Connection.id).where(Connection.id == connection_id, Connection.account_id.is_not(None))
    if (await session.execute(exists_account)).first() is not None:
        await session.execute(
            insert(Notice).values(account_id=account, connection_id=connection_id, created_at=now, text=text)
        )


async def notices_of(session: AsyncSession, account_id: int, limit: int = 20) -> list[Notice]:
    """The account's notices not dismissed, newest first (the back office's banner)."""
    rows = await session.scalars(
        select(Notice)
        .where(Notice.account_id == account_id, Notice.dismissed_at.is_(None))
        .order_by(Notice.id.desc())
        .limit(limit)
    )
    return list(rows)


async def dismiss_notice(session: AsyncSession, account_id: int, notice_pk: int, now: datetime) -> None:
    await session.execute(
        update(Notice).where(Notice.id == notice_pk, Notice.account_id == account_id).values(dismissed_at=now)
    )
