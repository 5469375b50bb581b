"""GET /accounts/:id and its short form /account; GET /accounts
(docs/api/locations-accounts.md "Accounts")."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from comptoir.accounts import service
from comptoir.accounts.schemas import Account
from comptoir.auth.access import ANY, require
from comptoir.auth.context import Ctx
from comptoir.http.cursors import Pagination
from comptoir.http.openapi import PAGE_RESPONSES, READ_ERRORS, answer_example
from comptoir.http.routing import ACCOUNT, JSON, ComptoirRoute, route

router = APIRouter(route_class=ComptoirRoute, tags=["Accounts"])

AccountReader = Annotated[Ctx, Depends(require("account", ANY))]
ACCOUNT_EXAMPLE = {"id": "4k3jxr", "name": "Demo Bistro", "currency": "EUR"}


@router.get(
    "/accounts",
    response_model=list[Account],
    responses=answer_example(PAGE_RESPONSES, [ACCOUNT_EXAMPLE]),
    summary="List the connection's accounts",
)
async def list_accounts(ctx: AccountReader, page: Pagination) -> JSON:
    """The account the connection is bound to, as a list of one: an account-level connection
    reaches exactly one account."""
    # docs/api/locations-accounts.md "Accounts": the connection sees exactly one account,
    # its own (one page).
    return JSON([service.render_account(service.connection_account(ctx))])


@route(
    router,
    "GET",
    ACCOUNT,
    response_model=Account,
    responses=answer_example(READ_ERRORS, ACCOUNT_EXAMPLE),
    summary="Get an account",
    own_summary="Get the connection's account",
)
async def get_account(account_id: str | None, ctx: AccountReader) -> JSON:
    """The account: its id, name and currency (every amount of its catalogs and orders is in
    that currency). Another account's id is a 404."""
    return JSON(service.render_account(service.account_of(ctx, account_id)))
