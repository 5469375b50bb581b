"""Every statement on users (spec 2.3 User) and on their browser sessions (the signed-in
sessions of the OAuth pages and the back office, `comptoir.users.sessions`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.db.engine import rowcount
from comptoir.models import BrowserSession, User


async def add(session: AsyncSession, user: User) -> bool:
    """Inserts `user`; False, with nothing written, when another user has its email (the
    unique index decides: two signups for one address at once cannot both succeed)."""
    try:
        async with session.begin_nested():
            session.add(user)
    except IntegrityError:
        return False
    return True


async def get(session: AsyncSession, user_id: int) -> User | None:
    return await session.get(User, user_id)


async def by_email(session: AsyncSession, email: str) -> User | None:
    """The user whose (normalised) email is `email`."""
    return await session.scalar(select(User).where(User.email == email))


async def email_taken(session: AsyncSession, email: str) -> bool:
    return bool(await session.scalar(select(func.count()).select_from(User).where(User.email == email)))


# --- browser sessions -------------------------------------------------------------------


async def add_browser_session(session: AsyncSession, browser_session: BrowserSession) -> None:
    session.add(browser_session)
    await session.flush()


async def browser_session(session: AsyncSession, sid_hash: str) -> BrowserSession | None:
    return await session.get(BrowserSession, sid_hash)


async def set_flash(session: AsyncSession, sid_hash: str, flash: str) -> None:
    await session.execute(update(BrowserSession).where(BrowserSession.sid_hash == sid_hash).values(flash=flash))


async def take_flash(session: AsyncSession, sid_hash: str, flash: str) -> bool:
    """Clears the session's flash if it is `flash`: True for the one caller that cleared it
    (a compare-and-clear, so two reloads at once cannot both show it)."""
    result = await session.execute(
        update(BrowserSession)
        .where(BrowserSession.sid_hash == sid_hash, BrowserSession.flash == flash)
        .values(flash=None)
    )
    return rowcount(result) == 1


async def delete_browser_session(session: AsyncSession, sid_hash: str) -> None:
    await session.execute(delete(BrowserSession).where(BrowserSession.sid_hash == sid_hash))


async def purge_browser_sessions(session: AsyncSession, now: datetime) -> int:
    """Browser sessions expired at `now` (the hourly retention job); how many went."""
    result = await session.execute(delete(BrowserSession).where(BrowserSession.expires_at < now))
    return rowcount(result)
