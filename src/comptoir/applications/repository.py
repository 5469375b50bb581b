"""Every statement on OAuth clients (applications): a registration, one found by id, public
id or owner. The rules are `comptoir.applications.service`'s."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.auth import people
from comptoir.db.engine import get_by_public_id
from comptoir.models import OAuthClient


async def add_client(session: AsyncSession, client: OAuthClient) -> None:
    session.add(client)
    await session.flush()


async def client(session: AsyncSession, client_id: int) -> OAuthClient | None:
    return await session.get(OAuthClient, client_id)


async def client_by_public_id(session: AsyncSession, public_id: str) -> OAuthClient | None:
    return await get_by_public_id(session, OAuthClient, public_id)


async def clients_owned_by(session: AsyncSession, user_id: int) -> list[OAuthClient]:
    """The user's applications, oldest first."""
    stmt = select(OAuthClient).where(people.owned_by(OAuthClient, user_id)).order_by(OAuthClient.id)
    return list(await session.scalars(stmt))
