"""Every statement on OAuth clients (the applications integrators register) and on
authorisation codes (spec 5.2-5.3). The rules are in `comptoir.oauth2.service` and, for
clients, `comptoir.connections.service`; a connection's token is looked up in
`comptoir.connections.repository`."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.db.engine import get_by_public_id
from comptoir.models import AuthorizationCode, OAuthClient

# --- clients ----------------------------------------------------------------------------


async def add_client(session: AsyncSession, client: OAuthClient) -> None:
    session.add(client)
    await session.flush()


async def client_by_public_id(session: AsyncSession, public_id: str) -> OAuthClient | None:
    return await get_by_public_id(session, OAuthClient, public_id)


async def clients_owned_by(session: AsyncSession, user_id: int) -> list[OAuthClient]:
    """The user's applications, oldest first."""
    stmt = select(OAuthClient).where(OAuthClient.owner_id == user_id).order_by(OAuthClient.id)
    return list(await session.scalars(stmt))


# --- authorisation codes ----------------------------------------------------------------


async def add_code(session: AsyncSession, code: AuthorizationCode) -> None:
    session.add(code)
    await session.flush()


async def code_by_hash(session: AsyncSession, code_hash: str) -> AuthorizationCode | None:
    return await session.scalar(select(AuthorizationCode).where(AuthorizationCode.code_hash == code_hash))


async def spend_code(session: AsyncSession, code_id: int, now: datetime) -> bool:
    """Mark the code used, atomically: False when it already was (a concurrent exchange)."""
    spent = await session.execute(
        update(AuthorizationCode)
        .where(AuthorizationCode.id == code_id, AuthorizationCode.used_at.is_(None))
        .values(used_at=now)
    )
    return cast("CursorResult[Any]", spent).rowcount == 1


async def token_hash_of_code(session: AsyncSession, code_id: int) -> str | None:
    """The lookup hash of the token the code gave, once its exchange has committed."""
    return await session.scalar(select(AuthorizationCode.token_hash).where(AuthorizationCode.id == code_id))


async def record_token(session: AsyncSession, code_id: int, token_hash: str) -> None:
    await session.execute(
        update(AuthorizationCode).where(AuthorizationCode.id == code_id).values(token_hash=token_hash)
    )
