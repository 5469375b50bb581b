"""Customer lists, at long and short forms (`http.routing.route`; docs/api/customers.md)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from comptoir.accounts.service import account_of
from comptoir.auth.access import WriteOn, require
from comptoir.auth.context import Ctx
from comptoir.customer_lists import service
from comptoir.customer_lists.schemas import CustomerList, CustomerListWrite
from comptoir.customer_lists.service import READ_NEED, WRITE_NEED
from comptoir.http.cursors import Pagination
from comptoir.http.dependencies import Session
from comptoir.http.openapi import (
    PAGE_RESPONSES,
    READ_ERRORS,
    WRITE_ERRORS,
    answer_example,
    body_example,
    error_responses,
)
from comptoir.http.routing import ACCOUNT, JSON, LOCATION, UPDATE, ComptoirRoute, route
from comptoir.locations.service import location_of

router = APIRouter(route_class=ComptoirRoute, tags=["Customer lists"])

CREATE = "all_customer_lists.write"  # docs/api/customers.md "Access": only all_customer_lists creates lists
Reader = Annotated[Ctx, Depends(require("location,account", READ_NEED))]
AccountReader = Annotated[Ctx, Depends(require("account", READ_NEED))]
# docs/api/customers.md "Access": a location token may rename the account-level list it is
# bound to, and change nothing else of an account-level list.
LIST_ID = "customer_list_id"
Renamer = Annotated[
    Ctx,
    Depends(
        require(
            "location,account", WRITE_NEED, on=WriteOn("customer_list", LIST_ID, change="rename", bound_change=True)
        )
    ),
]
Deleter = Annotated[
    Ctx, Depends(require("location,account", WRITE_NEED, on=WriteOn("customer_list", LIST_ID, change="delete")))
]
Creator = Annotated[Ctx, Depends(require("location,account", CREATE))]
AccountCreator = Annotated[Ctx, Depends(require("account", CREATE))]
MODIFY_ERRORS = {**WRITE_ERRORS, **error_responses(401)}
NAME_EXAMPLE = body_example({"name": "Paris regulars"})
LIST_EXAMPLE = {"id": "rqs3g7", "name": "Paris regulars", "created_at": "2026-06-24T10:12:00+02:00"}


@router.get(
    "/customer_lists/{customer_list_id}", response_model=CustomerList, responses=READ_ERRORS, summary="Get a list"
)
async def get_list(customer_list_id: str, session: Session, ctx: Reader) -> JSON:
    """The customer list: its id, name and `created_at` (in its location's time zone; UTC for an
    account-level list)."""
    return JSON(service.render_list(await service.list_in_reach(session, ctx, customer_list_id)))


@route(
    router,
    "GET",
    LOCATION + "/customer_lists",
    response_model=list[CustomerList],
    responses=answer_example(PAGE_RESPONSES, [LIST_EXAMPLE]),
    summary="List a location's customer lists (account-level ones included)",
    own_summary="List the connection's location's customer lists (account-level ones included)",
)
async def list_location_lists(location_id: str | None, session: Session, ctx: Reader, page: Pagination) -> JSON:
    """The location's customer lists and its account's account-level ones, a page at a time. A
    connection bound to one list sees only that one."""
    location, account = await location_of(session, ctx, location_id)
    body, result = await service.list_lists(session, ctx, page, account=account, location=location)
    return JSON(body, headers=result.headers())


@route(
    router,
    "GET",
    ACCOUNT + "/customer_lists",
    response_model=list[CustomerList],
    responses=answer_example(PAGE_RESPONSES, [{**LIST_EXAMPLE, "created_at": "2026-06-24T08:12:00Z"}]),
    summary="List an account's account-level customer lists",
    own_summary="List the connection's account's account-level customer lists",
)
async def list_account_lists(account_id: str | None, session: Session, ctx: AccountReader, page: Pagination) -> JSON:
    """The account's account-level customer lists (not its locations' lists), a page at a time."""
    body, result = await service.list_lists(session, ctx, page, account=account_of(ctx, account_id), location=None)
    return JSON(body, headers=result.headers())


@route(
    router,
    "POST",
    LOCATION + "/customer_lists",
    response_model=CustomerList,
    responses=WRITE_ERRORS,
    summary="Create a location-level customer list",
    own_summary="Create a customer list in the connection's location",
    openapi_extra=NAME_EXAMPLE,
)
async def create_location_list(
    location_id: str | None, body: CustomerListWrite, session: Session, ctx: Creator
) -> JSON:
    """Creates a customer list at the location. Its `name` is unique among the location's
    lists and may not be an account-level list's name (422). Records a
    `customer_list.create` event."""
    location, account = await location_of(session, ctx, location_id)
    found = await service.create_list(session, ctx, account=account, location=location, name=body.name)
    return JSON(service.render_list(found))


@route(
    router,
    "POST",
    ACCOUNT + "/customer_lists",
    response_model=CustomerList,
    responses=WRITE_ERRORS,
    summary="Create an account-level customer list",
    own_summary="Create an account-level customer list in the connection's account",
    openapi_extra=NAME_EXAMPLE,
)
async def create_account_list(
    account_id: str | None, body: CustomerListWrite, session: Session, ctx: AccountCreator
) -> JSON:
    """Creates an account-level customer list, shared by every location of the account. Its
    `name` may be used by no other list of the account or of its locations (422). Records a
    `customer_list.create` event."""
    found = await service.create_list(session, ctx, account=account_of(ctx, account_id), location=None, name=body.name)
    return JSON(service.render_list(found))


@route(
    router,
    UPDATE,
    "/customer_lists/{customer_list_id}",
    response_model=CustomerList,
    responses=MODIFY_ERRORS,
    summary="Rename a customer list",
    openapi_extra=NAME_EXAMPLE,
)
async def rename_list(customer_list_id: str, body: CustomerListWrite, session: Session, ctx: Renamer) -> JSON:
    """Renames the list, under the same uniqueness rule as its creation. Records a
    `customer_list.update` event."""
    return JSON(await service.rename_list(session, ctx, customer_list_id, body.name))


@router.delete(
    "/customer_lists/{customer_list_id}",
    response_model=CustomerList,
    responses=answer_example({**READ_ERRORS, **error_responses(401)}, LIST_EXAMPLE),
    summary="Delete a customer list with its customers, loyalty cards and operations",
)
async def delete_list(customer_list_id: str, session: Session, ctx: Deleter) -> JSON:
    """Deletes the list with its customers, their loyalty cards and operations, and the
    private refs set on them; answers the list as it was. Records no event."""
    return JSON(await service.delete_list(session, ctx, customer_list_id))
