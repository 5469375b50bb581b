"""Customer lists (spec 2.6, 4.4) and who may use them (spec 5.1,
docs/api/customers.md "Access").

A list is readable by a connection at its level (a location token: lists of its location
and account-level lists of its account; an account token: every list of the account) when
it is the list bound to the connection and the scope has `customer_list.*`, or when the
scope has `all_customer_lists.*`. Anything else is a 404, whether or not the list exists.
Who may write one, or its customers, cards and operations (the write scope, a location token
and an account-level list), is declared by the endpoints (`auth.access.WriteOn`).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from comptoir import events
from comptoir.auth.access import WriteOn
from comptoir.auth.context import Ctx
from comptoir.core import levels, names
from comptoir.core.levels import InReach
from comptoir.customer_lists import repository
from comptoir.customer_lists.repository import KIND
from comptoir.errors import FieldError, FieldErrors, NotFound, Unprocessable, check_text
from comptoir.kit import clock, ids
from comptoir.kit.pagination import Page, PageRequest
from comptoir.kit.times import render_datetime
from comptoir.kit.wire import shown
from comptoir.models import CustomerList
from comptoir.models.accounts import AccountRef
from comptoir.models.locations import LocationRef

ListInReach = InReach[CustomerList]  # a list with what rendering it and its customers needs

BOUND, ALL = "customer_list", "all_customer_lists"
# What endpoints of a list and of its customers, cards and operations require (access.require);
# which list the connection reaches is `list_in_reach`.
READ_NEED = f"{BOUND}.read|{ALL}.read"
WRITE_NEED = f"{BOUND}.write|{ALL}.write"
# docs/api/customers.md "Access": writing a list's customers, cards and operations needs the
# write scope on that list; it is not a change of the list (no 401 for a location token).
WRITES_CUSTOMERS = WriteOn("customer_list", "customer_list_id", "writing to customer list '{id}'")


def render_list(found: ListInReach) -> dict[str, Any]:
    row = found.row
    return {"id": row.public_id, "name": row.name, "created_at": render_datetime(row.created_at, found.timezone)}


# --- access -------------------------------------------------------------------------------


def may(ctx: Ctx, row: CustomerList, right: str) -> bool:
    """spec 5.1: `customer_list` reaches the bound list, `all_customer_lists` every list at
    the connection's level; write implies read."""
    return ctx.may_use(BOUND, row, right)


async def list_in_reach(session: AsyncSession, ctx: Ctx, public_id: str, *, for_update: bool = False) -> ListInReach:
    """The list behind `public_id` if the connection may read it; 404 otherwise."""
    pk = ids.decode(CustomerList.KIND, public_id)
    found = await repository.find_list(session, pk, for_update=for_update) if pk is not None else None
    if found is None or not may(ctx, found.row, "read"):
        raise NotFound(KIND, public_id)
    return found


# --- reading ------------------------------------------------------------------------------


async def list_lists(
    session: AsyncSession, ctx: Ctx, page: PageRequest, *, account: AccountRef, location: LocationRef | None
) -> tuple[list[dict[str, Any]], Page]:
    """spec 4.4: a location's lists include the account-level ones; an account's lists are
    its account-level lists (like catalogs, spec 4.3)."""
    found, result = await repository.lists_page(
        session,
        page,
        account_id=account.id,
        location_id=location.id if location else None,
        every=ctx.scope.allows(ALL),  # else only the list bound to the connection
        bound_id=ctx.customer_list_id,
    )
    return [render_list(one) for one in found], result


# --- writing ------------------------------------------------------------------------------


def _name_taken(name: str) -> Unprocessable:
    return Unprocessable(
        FieldError("name", f"{shown(name)} is already the name of another customer list of this location or account")
    )


def _check_name(name: str) -> None:
    errors = FieldErrors()
    check_text(errors, "name", name, 255, required=True)
    errors.raise_if_any()


async def _record(session: AsyncSession, ctx: Ctx | None, found: ListInReach, event_type: str, **states: Any) -> None:
    row = found.row
    await events.record(
        session,
        resource_type=KIND,
        event_type=event_type,
        ids={"customer_list_id": row.public_id},
        account_id=row.account_id,
        location_id=row.location_id,
        customer_list_id=row.id,
        timezone=found.timezone,
        ctx=ctx,
        **states,
    )


async def create_list(
    session: AsyncSession, ctx: Ctx | None, *, account: AccountRef, location: LocationRef | None, name: str
) -> ListInReach:
    """The one way a customer list is made, whoever asks (POST .../customer_lists, spec 4.4;
    the back office's and the OAuth pages' "A new list"; the demo): at location level
    (`location`) or account level, its name claimed under the rules of spec 2.6 (enforced by
    the database: `comptoir.core.names`), its `customer_list.create` recorded."""
    _check_name(name)
    row = CustomerList(
        name=name, account_id=account.id, location_id=location.id if location else None, created_at=clock.now()
    )
    await names.insert_named(session, KIND, row, lambda: _name_taken(name))
    found = levels.written(row, account, location)
    await _record(session, ctx, found, "create", new_state=render_list(found))
    return found


async def rename_list(session: AsyncSession, ctx: Ctx, public_id: str, name: str) -> dict[str, Any]:
    """PATCH /customer_lists/:id (spec 4.4): refused when another list holds the name."""
    found = await list_in_reach(session, ctx, public_id, for_update=True)
    _check_name(name)
    row = found.row
    if name == row.name:
        return render_list(found)
    previous = render_list(found)
    await names.rename(session, KIND, row, name, lambda: _name_taken(name))
    new = render_list(found)
    await _record(session, ctx, found, "update", previous_state=previous, new_state=new)
    return new


async def delete_list(session: AsyncSession, ctx: Ctx, public_id: str) -> dict[str, Any]:
    """DELETE /customer_lists/:id (spec 4.4): its customers, loyalty cards and operations
    go with it (foreign keys cascade), and so do the private refs set on its customers.
    No event (spec 4.4, 6.3). Answers the list as it was."""
    found = await list_in_reach(session, ctx, public_id, for_update=True)
    body = render_list(found)
    await repository.delete_list(session, found.row)
    return body


async def lists_by_name(session: AsyncSession, account: AccountRef, location: LocationRef | None) -> list[CustomerList]:
    """The customer lists of `location` (or, with None, the account's account-level ones),
    by name (the back office, the demo)."""
    return await repository.lists_by_name(session, account.id, location.id if location is not None else None)
