"""spec 4.8: GET /accounts/:id and its short form /account; GET /accounts
(docs/api/locations-accounts.md "Accounts")."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from comptoir.accounts import service
from comptoir.accounts.schemas import Account
from comptoir.auth.access import ANY, require
from comptoir.auth.context import Ctx
from comptoir.http.openapi import PAGE_RESPONSES, READ_ERRORS
from comptoir.http.pagination import Pagination
from comptoir.http.routing import ACCOUNT, JSON, ComptoirRoute, route

router = APIRouter(route_class=ComptoirRoute, tags=["Accounts"])

AccountReader = Annotated[Ctx, Depends(require("account", ANY))]


@router.get(
    "/accounts", response_model=list[Account], responses=PAGE_RESPONSES, summary="List the connection's accounts"
)
async def list_accounts(ctx: AccountReader, page: Pagination) -> JSON:
    # docs/api/locations-accounts.md "Accounts": the connection sees exactly one account,
    # its own (one page).
    return JSON([service.render_account(service.connection_account(ctx))])


@route(
    router,
    "GET",
    ACCOUNT,
    response_model=Account,
    responses=READ_ERRORS,
    summary="Get an account",
    own_summary="Get the connection's account",
)
async def get_account(account_id: str | None, ctx: AccountReader) -> JSON:
    return JSON(service.render_account(service.account_of(ctx, account_id)))
