"""Every statement on authorisation codes (spec 5.2-5.3) and on what the consent page
offers to bind. The rules are in `comptoir.oauth2.service`; the OAuth clients and the
connections are `comptoir.connections.repository`'s."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple, TypeVar

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.db.engine import get_by_public_id, rowcount
from comptoir.models import Account, AuthorizationCode, Catalog, CustomerList, Location, User

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
    return rowcount(spent) == 1


async def token_hash_of_code(session: AsyncSession, code_id: int) -> str | None:
    """The lookup hash of the token the code gave, once its exchange has committed."""
    return await session.scalar(select(AuthorizationCode.token_hash).where(AuthorizationCode.id == code_id))


async def record_token(session: AsyncSession, code_id: int, token_hash: str) -> None:
    await session.execute(
        update(AuthorizationCode).where(AuthorizationCode.id == code_id).values(token_hash=token_hash)
    )


class Approved(NamedTuple):
    """What the user approved with a code: the rows it refers to (each None when it names
    none, or when the row is gone)."""

    user: User | None
    location: Location | None
    account: Account | None
    catalog: Catalog | None
    customer_list: CustomerList | None


async def approved(session: AsyncSession, code: AuthorizationCode) -> Approved:
    return Approved(
        await session.get(User, code.user_id),
        await session.get(Location, code.location_id) if code.location_id else None,
        await session.get(Account, code.account_id) if code.account_id else None,
        await session.get(Catalog, code.catalog_id) if code.catalog_id else None,
        await session.get(CustomerList, code.customer_list_id) if code.customer_list_id else None,
    )


# --- what a connection may be bound to (the consent page) -------------------------------


Binding = TypeVar("Binding", Catalog, CustomerList)


async def bindable(session: AsyncSession, model: type[Binding], account_ids: list[int]) -> list[Binding]:
    """Every catalog (or customer list) of these accounts, oldest first."""
    stmt = select(model).where(model.account_id.in_(account_ids)).order_by(model.id)
    return list(await session.scalars(stmt))


async def binding_by_public_id(session: AsyncSession, model: type[Binding], public_id: str) -> Binding | None:
    return await get_by_public_id(session, model, public_id)


# --- retention ----------------------------------------------------------------------------


async def purge_codes(session: AsyncSession, expired_before: datetime, limit: int) -> int:
    """Up to `limit` authorisation codes that expired before `expired_before`; how many went."""
    old = AuthorizationCode.expires_at < expired_before
    batch = select(AuthorizationCode.id).where(old).limit(limit).scalar_subquery()
    result = await session.execute(delete(AuthorizationCode).where(AuthorizationCode.id.in_(batch)))
    return rowcount(result)
