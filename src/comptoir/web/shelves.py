"""What a location or an account holds by name, catalogs or customer lists, as one kind of
back-office page (docs/back-office.md "Stock, catalogs and customers"): the location's own
and the account's shared ones, each a link, and a "New" form creating one through the
feature's service (the API's name rules and messages, its event caused by no client).

`web.catalogs` and `web.customers` each describe their kind with a `Shelf`; whose a page is
(`owner_and_location`) is shared by their other pages.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from fastapi import APIRouter
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request
from starlette.responses import Response

from comptoir.accounts import repository as accounts
from comptoir.errors import Unprocessable
from comptoir.http.state import app_state
from comptoir.locations import repository as locations
from comptoir.models import Account, Location, User
from comptoir.web.pages import owned_account, owned_location
from comptoir.web.render import PageAnswer, Person, Problem, Visitor, crumbs, page, problems, redirect, text, yours

NAME_FIELDS = {"name": "name"}  # API path -> form field of a "New" form


class Named(Protocol):
    @property
    def public_id(self) -> str: ...

    @property
    def name(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Shelf:
    """One kind of named thing of a location or an account."""

    noun: str  # "catalog", "customer list"
    plural: str  # "Catalogs", "Customer lists": the page's title
    location_path: str  # under /locations/ID/: "catalogs", "customers"
    account_path: str  # under /accounts/ID/: "catalogs", "customer-lists"
    item_path: str  # "/catalogs", "/customer-lists": + "/ID" is one's page
    empty: str  # what a new one holds, and how it fills
    by_name: Callable[[AsyncSession, Account, Location | None], Awaitable[Sequence[Named]]]
    create: Callable[[AsyncSession, Account, Location | None, str], Awaitable[str]]  # -> its public id

    def url(self, account: Account, location: Location | None) -> str:
        if location is not None:
            return f"/locations/{location.public_id}/{self.location_path}"
        return f"/accounts/{account.public_id}/{self.account_path}"


async def owner_and_location(
    db: AsyncSession, user: User, account_id: int, location_id: int | None, what: str
) -> tuple[Account, Location | None]:
    """The account (the user's, or a 404 page) and the location (None at account level) of
    a catalog or customer list."""
    account = yours(user, await accounts.get(db, account_id), what)
    return account, await locations.get(db, location_id) if location_id is not None else None


async def _level(
    db: AsyncSession, user: User, location_id: str | None, account_id: str | None
) -> tuple[Account, Location | None]:
    """The user's location (with its account) or account a page is of, or a 404 page."""
    if location_id is not None:
        location, account = await owned_location(db, user, location_id)
        return account, location
    return await owned_account(db, user, account_id or ""), None


async def _shelf_page(
    db: AsyncSession,
    you: Visitor,
    shelf: Shelf,
    account: Account,
    location: Location | None,
    *,
    name: str = "",
    errors: Sequence[Problem | str] = (),
) -> Response:
    own = await shelf.by_name(db, account, location)
    shared = await shelf.by_name(db, account, None) if location is not None else []
    where = location.name if location is not None else account.name
    return page(
        "bo_shelf.html",
        400 if errors else 200,
        title=f"{shelf.plural} · {where}",
        you=you,
        crumbs=crumbs(account, location),
        shelf=shelf,
        account=account,
        location=location,
        own=own,
        shared=shared,
        action=shelf.url(account, location),
        account_url=shelf.url(account, None),
        name=name,
        errors=list(errors),
    )


def mount(router: APIRouter, shelf: Shelf) -> None:
    """The shelf's pages on `router`: GET and POST (its New form) at the location's path and
    at the account's."""

    async def at_location(request: Request, you: Person, location_id: str) -> Response:
        if request.method == "POST":
            return await create_on_shelf(request, you, shelf, location_id=location_id)
        return await shelf_page(request, you, shelf, location_id=location_id)

    async def at_account(request: Request, you: Person, account_id: str) -> Response:
        if request.method == "POST":
            return await create_on_shelf(request, you, shelf, account_id=account_id)
        return await shelf_page(request, you, shelf, account_id=account_id)

    router.add_api_route(f"/locations/{{location_id}}/{shelf.location_path}", at_location, methods=["GET", "POST"])
    router.add_api_route(f"/accounts/{{account_id}}/{shelf.account_path}", at_account, methods=["GET", "POST"])


async def shelf_page(
    request: Request, you: Visitor, shelf: Shelf, *, location_id: str | None = None, account_id: str | None = None
) -> Response:
    """GET: the location's (and its account's) or the account's things of this kind."""
    async with app_state(request).db.transaction(write=False) as db:
        account, location = await _level(db, you.user, location_id, account_id)
        return await _shelf_page(db, you, shelf, account, location)


async def create_on_shelf(
    request: Request, you: Visitor, shelf: Shelf, *, location_id: str | None = None, account_id: str | None = None
) -> Response:
    """POST: a new one named as the form says, then its page; refused, the form again with
    the refusal beside its field, and nothing created."""
    form = await request.form()
    name = text(form, "name")
    async with app_state(request).db.transaction() as db:
        you.check(form)
        account, location = await _level(db, you.user, location_id, account_id)
        try:
            public_id = await shelf.create(db, account, location, name)
        except Unprocessable as exc:
            answer = await _shelf_page(db, you, shelf, account, location, name=name, errors=problems(exc, NAME_FIELDS))
            raise PageAnswer(answer) from None
    return redirect(f"{shelf.item_path}/{public_id}")
