"""Accounts (spec 2.3, 4.8; docs/api/locations-accounts.md "Accounts")."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir.accounts import repository
from comptoir.auth.context import Ctx
from comptoir.errors import FieldErrors, NotFound, check_code, check_text
from comptoir.kit import clock, ids
from comptoir.kit.codes import parse_currency
from comptoir.models import Account, Location, Notice, User
from comptoir.models.accounts import AccountRef, AccountView


def render_account(account: AccountRef) -> dict[str, Any]:
    return {"id": account.public_id, "name": account.name, "currency": account.currency}


def account_in_reach(ctx: Ctx, public_id: str) -> AccountView:
    """The account behind `public_id` (a snapshot) if the connection reaches it; 404 otherwise."""
    pk = ids.decode(Account.KIND, public_id)
    if pk is None or not ctx.reaches_account(pk):
        raise NotFound("account", public_id)
    return connection_account(ctx)


def connection_account(ctx: Ctx) -> AccountView:
    """The connection's account, as read with its token."""
    assert ctx.account is not None
    return ctx.account


def account_of(ctx: Ctx, public_id: str | None) -> AccountView:
    """The account a path names: `public_id` in its long form (`account_in_reach`), the
    connection's own in its short form, where `public_id` is None (`connection_account`)."""
    return connection_account(ctx) if public_id is None else account_in_reach(ctx, public_id)


async def create_account(session: AsyncSession, *, owner: User, name: str, currency: str) -> Account:
    """An account of `owner`; its name and currency (`kit.codes.parse_currency`, the API's
    Currency) are checked before anything is written, every error named."""
    errors = FieldErrors()
    check_text(errors, "name", name, 255, required=True)
    check_code(errors, "currency", currency, parse_currency)
    errors.raise_if_any()
    account = Account(name=name, currency=currency, owner_id=owner.id, created_at=clock.now())
    await repository.add(session, account)
    return account


async def find_account(session: AsyncSession, public_id: str) -> Account | None:
    return await repository.by_public_id(session, public_id)


async def account_by_id(session: AsyncSession, account_id: int) -> Account | None:
    return await repository.get(session, account_id)


async def accounts_of(session: AsyncSession, user: User) -> list[Account]:
    """The user's accounts, oldest first."""
    return await repository.owned_by(session, user.id)


async def navigation_of(session: AsyncSession, user: User) -> list[tuple[Account, Location | None]]:
    """Every account of `user` with each of its locations (docs/back-office.md "Layout,
    navigation and words")."""
    return await repository.owned_with_locations(session, user.id)


async def set_suspended(session: AsyncSession, account: Account, suspended: bool) -> None:
    """spec 5.6: tokens of a suspended account get 401 for non payment."""
    await repository.set_suspended(session, account.id, suspended)


async def take_location_number(session: AsyncSession, account: Account) -> int:
    """The next location number of the account; two concurrent creations never share one."""
    return await repository.take_location_number(session, account.id)


@asynccontextmanager
async def next_location_number_is(session: AsyncSession, account: Account, number: int) -> AsyncIterator[None]:
    """Inside, the account's next location takes `number` (one no location of it has: the
    caller makes sure); after, its counter stands at the greater of where it stood and
    `number`, so the numbers it gives later never meet it. A sandbox's seed file giving a
    location's id (docs/sandbox.md "Ids, tokens and secrets")."""
    before = await repository.location_count(session, account.id)
    await repository.set_location_count(session, account.id, number - 1)
    yield
    await repository.set_location_count(session, account.id, max(before, number))


# --- notices (a disabled callback, docs/api/callbacks-events.md "Automatic disable") ------


async def add_notice(session: AsyncSession, connection_id: int, now: datetime, text: str) -> None:
    """A notice, made at `now`, to the users of the account the connection reaches (none for a
    connection without an account)."""
    await repository.add_notice(session, connection_id, now, text)


async def notices(session: AsyncSession, account_id: int) -> list[Notice]:
    """The notices the account's users have not dismissed, newest first (the back office)."""
    return await repository.notices_of(session, account_id)


async def dismiss_notice(session: AsyncSession, account_id: int, notice_pk: int) -> None:
    await repository.dismiss_notice(session, account_id, notice_pk, clock.now())
