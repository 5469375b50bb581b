"""spec 4.5 and 4.6: customers of a list, and their anonymisation."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query
from starlette.requests import Request
from starlette.responses import Response

from comptoir.auth.access import require
from comptoir.auth.context import Ctx
from comptoir.customer_lists.service import READ_NEED, WRITE_NEED, WRITES_CUSTOMERS
from comptoir.customers import service
from comptoir.customers.schemas import Customer, CustomerWrite
from comptoir.http.dependencies import Session
from comptoir.http.idempotency import idempotent
from comptoir.http.openapi import PAGE_RESPONSES, READ_ERRORS, WRITE_ERRORS
from comptoir.http.pagination import Pagination
from comptoir.http.routing import JSON, UPDATE, ComptoirRoute, plus_literal, route
from comptoir.kit.phone import phone_pattern
from comptoir.ratelimit import HEAVY

router = APIRouter(route_class=ComptoirRoute, tags=["Customers"])

Reader = Annotated[Ctx, Depends(require("location,account", READ_NEED))]
# docs/api/conventions.md "Rate limits": listing the customers of a list is a heavy query.
HeavyReader = Annotated[Ctx, Depends(require("location,account", READ_NEED, HEAVY))]
Writer = Annotated[Ctx, Depends(require("location,account", WRITE_NEED, on=WRITES_CUSTOMERS))]
PATH = "/customer_lists/{customer_list_id}/customers"


def customer_filters(
    request: Request,
    private_ref: Annotated[str | None, Query(description="Your private ref of the customer (exact).")] = None,
    email: Annotated[
        str | None,
        Query(description="Email, case-insensitive; `*` matches any characters (`john*` is index-backed)."),
    ] = None,
    phone: Annotated[
        str | None,
        Query(description="Phone; `*` matches any characters. `+` is a plus sign (`%2B` works too)."),
    ] = None,
) -> service.CustomerFilters:
    return service.CustomerFilters(
        private_ref=private_ref,
        email=plus_literal(request, "email", email),
        phone=phone_pattern(plus_literal(request, "phone", phone)),
    )


@router.get(PATH, response_model=list[Customer], responses=PAGE_RESPONSES, summary="List the customers of a list")
async def list_customers(
    customer_list_id: str,
    session: Session,
    ctx: HeavyReader,
    page: Pagination,
    filters: Annotated[service.CustomerFilters, Depends(customer_filters)],
) -> JSON:
    body, result = await service.list_customers(session, ctx, customer_list_id, page, filters)
    return JSON(body, headers=result.headers())


@router.get(PATH + "/{customer_id}", response_model=Customer, responses=READ_ERRORS, summary="Get a customer")
async def get_customer(customer_list_id: str, customer_id: str, session: Session, ctx: Reader) -> JSON:
    return JSON(await service.get_customer(session, ctx, customer_list_id, customer_id))


@router.post(PATH, response_model=Customer, responses=WRITE_ERRORS, summary="Create a customer")
async def create_customer(
    request: Request, customer_list_id: str, body: CustomerWrite, session: Session, ctx: Writer
) -> Response:
    return await idempotent(
        request, session, ctx, lambda: service.create_customer(session, ctx, customer_list_id, body)
    )


@route(
    router,
    UPDATE,
    PATH + "/{customer_id}",
    response_model=Customer,
    responses=WRITE_ERRORS,
    summary="Update a customer (only the fields present)",
)
async def update_customer(
    customer_list_id: str, customer_id: str, body: CustomerWrite, session: Session, ctx: Writer
) -> JSON:
    return JSON(await service.update_customer(session, ctx, customer_list_id, customer_id, body))


@router.post(
    PATH + "/{customer_id}/anonymise",
    response_model=Customer,
    responses=WRITE_ERRORS,
    summary="Anonymise a customer, irreversibly",
)
async def anonymise_customer(customer_list_id: str, customer_id: str, session: Session, ctx: Writer) -> JSON:
    return JSON(await service.anonymise_customer(session, ctx, customer_list_id, customer_id))
