"""Customers of a list, and their anonymisation (docs/api/customers.md)."""

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
from comptoir.http.cursors import Pagination
from comptoir.http.dependencies import Session
from comptoir.http.openapi import IDEMPOTENT, PAGE_RESPONSES, READ_ERRORS, WRITE_ERRORS, body_example
from comptoir.http.routing import JSON, UPDATE, ComptoirRoute, plus_literal, route
from comptoir.idempotency.service import idempotent
from comptoir.kit.phone import phone_pattern
from comptoir.ratelimit import HEAVY

router = APIRouter(route_class=ComptoirRoute, tags=["Customers"])

Reader = Annotated[Ctx, Depends(require("location,account", READ_NEED))]
# docs/api/conventions.md "Rate limits": listing the customers of a list is a heavy query.
HeavyReader = Annotated[Ctx, Depends(require("location,account", READ_NEED, HEAVY))]
Writer = Annotated[Ctx, Depends(require("location,account", WRITE_NEED, on=WRITES_CUSTOMERS))]
PATH = "/customer_lists/{customer_list_id}/customers"
CUSTOMER_EXAMPLE = {
    "first_name": "Ann",
    "last_name": "Lee",
    "email": "ann@example.com",
    "phone": "+33612345678",
    "city": "Paris",
    "country": "FR",
    "email_marketing": True,
    "private_ref": "crm-7781",
}


async def customer_filters(
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
    """The list's customers, oldest first, a page at a time, filtered by `email` (any case),
    `phone` or your `private_ref`. In `email` and `phone`, `*` matches any characters: a
    trailing one (`john*`, `+4477*`) is fast in a list of any size, and the results are then
    ordered by that field. A heavy query for the rate limits."""
    body, result = await service.list_customers(session, ctx, customer_list_id, page, filters)
    return JSON(body, headers=result.headers())


@router.get(PATH + "/{customer_id}", response_model=Customer, responses=READ_ERRORS, summary="Get a customer")
async def get_customer(customer_list_id: str, customer_id: str, session: Session, ctx: Reader) -> JSON:
    """The customer, with the counters of its orders (`nb_orders`, `order_total`, first and
    last order dates), its loyalty cards and your own `private_ref` (another client's reads
    `null`)."""
    return JSON(await service.get_customer(session, ctx, customer_list_id, customer_id))


@router.post(
    PATH,
    response_model=Customer,
    responses=WRITE_ERRORS,
    summary="Create a customer",
    openapi_extra={**IDEMPOTENT, **body_example(CUSTOMER_EXAMPLE)},
)
async def create_customer(
    request: Request, customer_list_id: str, body: CustomerWrite, session: Session, ctx: Writer
) -> Response:
    """Adds a customer to the list. Every field is optional; read-only fields are ignored.
    Your `private_ref` is unique among your refs in the list. Send an `Idempotency-Key` to
    retry safely. Records a `customer.create` event."""
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
    openapi_extra=body_example({"phone": "+33698765432", "sms_marketing": False, "custom_fields": {"vip": True}}),
)
async def update_customer(
    customer_list_id: str, customer_id: str, body: CustomerWrite, session: Session, ctx: Writer
) -> JSON:
    """Changes only the fields sent; `private_ref: null` removes your ref. An anonymised
    customer's personal fields stay cleared. Records a `customer.update` event when something
    other clients can see changed."""
    return JSON(await service.update_customer(session, ctx, customer_list_id, customer_id, body))


@router.post(
    PATH + "/{customer_id}/anonymise",
    response_model=Customer,
    responses=WRITE_ERRORS,
    summary="Anonymise a customer, irreversibly",
)
async def anonymise_customer(customer_list_id: str, customer_id: str, session: Session, ctx: Writer) -> JSON:
    """Clears the customer's personal fields for good and sets `anonymised`; later writes of
    those fields are ignored. The customer's orders show the anonymised customer and each
    records an `order.update`. Takes no body; anonymising again changes nothing."""
    return JSON(await service.anonymise_customer(session, ctx, customer_list_id, customer_id))
