"""The statements of the timed jobs that no feature repository holds yet: the purge of old
changes of the outbox (`events`), whose other statements are the outbox's own."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, delete, exists, select
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.models import Change, Event


async def purge_changes(session: AsyncSession, before: datetime, limit: int) -> int:
    """Up to `limit` changes recorded before `before` that no pending event refers to; how
    many went."""
    old = (Change.created_at < before) & ~exists().where(Event.change_id == Change.id)
    batch = select(Change.id).where(old).limit(limit).scalar_subquery()
    result = await session.execute(delete(Change).where(Change.id.in_(batch)))
    return cast("CursorResult[Any]", result).rowcount
