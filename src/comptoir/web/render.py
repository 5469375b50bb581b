"""What every back-office page shares: the templates (the OAuth pages' look), the signed-in
visitor and its navigation, CSRF checks, form errors in page words (`Problem`, `problems`)
and the answers that end a request early (login redirect, 403, 404). The layout rules are
written in docs/back-office.md "Layout, navigation and words".

A handler stops early by raising `PageAnswer(response)`: raised inside a transaction, it
rolls that transaction back, so a refused form changes nothing; the app answers with the
response it carries.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Protocol, TypeVar, cast

import orjson
from fastapi import Depends
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, select_autoescape
from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from comptoir.accounts.service import navigation_of
from comptoir.auth import people
from comptoir.auth.request_context import context_of
from comptoir.errors import FieldError, ServiceUnavailable, Unprocessable, field_path, validation_message
from comptoir.http import page_headers
from comptoir.http.state import app_state
from comptoir.kit import ids
from comptoir.kit.safetext import printable
from comptoir.models import User
from comptoir.users import sessions
from comptoir.web import words
from comptoir.web.scope_words import scope_words
from comptoir.web.words import local_time

_here = Path(__file__).parent
templates = Environment(
    loader=ChoiceLoader(
        [FileSystemLoader(_here / "templates"), FileSystemLoader(_here.parent / "oauth2" / "templates")]
    ),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)


__all__ = ["local_time"]  # every time a page shows: `words.local_time`, also the `when` filter
templates.globals["local_time"] = local_time
templates.filters["status_words"] = words.status_words
templates.filters["service_type_words"] = words.service_type_words
templates.filters["quantity"] = words.quantity
templates.filters["when"] = words.when
templates.filters["scope_words"] = scope_words
templates.globals["scope_words"] = scope_words
templates.globals["public_id"] = ids.encode  # public_id("event", 12)


def pretty(body: str) -> str:
    """A whole JSON body indented for reading; anything else (a body cut at 10 KB) as is."""
    try:
        return orjson.dumps(orjson.loads(body), option=orjson.OPT_INDENT_2).decode()
    except orjson.JSONDecodeError:
        return body


templates.globals["pretty"] = pretty


def reply_excerpt(text: str) -> str:
    """A callback receiver's reply as the pages show it: short, text only (escaped by the
    template like any value)."""
    return printable(text, REPLY_EXCERPT_CHARS)


REPLY_EXCERPT_CHARS = 200
templates.globals["reply_excerpt"] = reply_excerpt


class Place(Protocol):
    """An account or a location as a breadcrumb names it."""

    @property
    def name(self) -> str: ...

    @property
    def public_id(self) -> str: ...


@dataclass(frozen=True, slots=True)
class Named:
    """A `Place` known only by its name and public id (a row of a list)."""

    name: str
    public_id: str


HOME = ("Your Comptoir", "/")


def crumbs(
    account: Place | None = None, location: Place | None = None, *more: tuple[str, str]
) -> list[tuple[str, str]]:
    """The one breadcrumb builder: a page's ancestors, each a link: home, then the account and
    the location it is under (each when given), then `more`."""
    trail = [HOME]
    if account is not None:
        trail.append((account.name, f"/accounts/{account.public_id}"))
    if location is not None:
        trail.append((location.name, f"/locations/{location.public_id}"))
    return [*trail, *more]


T = TypeVar("T")


class PageAnswer(Exception):
    """Ends a page request with `response` (see the module's docstring)."""

    def __init__(self, response: Response) -> None:
        super().__init__(response.status_code)
        self.response = response


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a form, in page words: `field` is the form field's name (the
    summary links to `#field`, the message is shown beside it), None for the whole form."""

    field: str | None
    message: str


def _as_problems(errors: Iterable[Problem | str]) -> list[Problem]:
    return [e if isinstance(e, Problem) else Problem(None, str(e)) for e in errors]


def page(
    template: str,
    status: int = 200,
    *,
    scripts: tuple[str, ...] = (),
    crumbs: Sequence[tuple[str, str]] = (),
    errors: Iterable[Problem | str] = (),
    **context: Any,
) -> Response:
    """`template` rendered; `crumbs`: the page's ancestors, (label, url) each, every one a
    link; `errors`: what is wrong with the posted form (a summary at the top, each message
    beside its field); `scripts`: the inline scripts it holds, allowed by its CSP."""
    body = templates.get_template(template).render(crumbs=list(crumbs), errors=_as_problems(errors), **context)
    return page_headers.protect(HTMLResponse(body, status_code=status), scripts)


def redirect(url: str) -> Response:
    return page_headers.protect(RedirectResponse(url, status_code=303))


def expired() -> PageAnswer:
    return PageAnswer(page("message.html", 403, title="This form has expired", message="Go back and try again."))


class NotFoundPage(PageAnswer):
    """A 404 page; the app's handler shows it with the visitor's navigation when signed in."""

    def __init__(self, message: str) -> None:
        super().__init__(not_found_page(None, message))
        self.message = message


def not_found(message: str) -> PageAnswer:
    return NotFoundPage(message)


def yours(user: User, row: T | None, what: str, owner: people.Owned | None = None) -> T:
    """`row`, if the signed-in person owns it (`auth.people.owns`: `owner`, the account that
    holds it, or the row itself: an account, an application); otherwise the one refusal of
    the back office, the 404 page, as for an id that does not exist."""
    if row is None or not people.owns(user.id, owner if owner is not None else cast("people.Owned", row)):
        raise not_yours(what)
    return row


def not_yours(what: str) -> PageAnswer:
    """The back office's one refusal of what is not the signed-in person's (or does not exist:
    the two are told apart by nobody): the 404 page."""
    return not_found(f"No {what} of yours has this id.")


def not_found_page(you: Visitor | None, message: str, status: int = 404) -> Response:
    """The one "not found" page: unknown URLs and ids alike (with the navigation when signed in)."""
    return page("bo_404.html", status, title="Page not found", you=you, message=message)


def unavailable_page(error: ServiceUnavailable) -> Response:
    """A page that could not be served for want of a dependency (docs/operations.md "When a
    dependency fails"): 503 with the error's `Retry-After`, without the navigation (which
    needs the database)."""
    response = page(
        "bo_unavailable.html",
        error.status,
        title="Temporarily unavailable",
        you=None,
        message=("Comptoir cannot reach its database right now."),
    )
    response.headers.update(error.headers())
    return response


def label_of(name: str) -> str:
    """A form field's name as its label reads: "preparation_time" -> "Preparation time"."""
    return name.replace("_", " ").capitalize()


_INDEX = re.compile(r"^\[(\d+)\]")


def problems(
    exc: Unprocessable | ValidationError | Sequence[FieldError],
    fields: Mapping[str, str],
    *,
    labels: Mapping[str, str] | None = None,
    item: str = "item",
) -> list[Problem]:
    """The API's refusal of a form, in page words and in the FORM's field order.

    `exc`: the refusal, or its field errors gathered from several checks. `fields` is
    ordered like the form: {API path prefix -> form field name}, e.g.
    {"opening_hours.monday": "monday", "cutoff_time": "cutoff_time"}; an error whose path
    starts with a prefix belongs to that field (the longest prefix wins). `labels` names a
    field otherwise than `label_of(name)`. An index just after the prefix is named `item`:
    "opening_hours.monday[1]" -> "Monday, slot 2: ..." with item="slot". Errors no field
    holds come last, labelled by their path."""
    order = {name: i for i, name in enumerate(dict.fromkeys(fields.values()))}
    by_length = sorted(fields, key=len, reverse=True)
    found: list[tuple[int, int, Problem]] = []
    for n, error in enumerate(api_errors(exc)):
        prefix = next((p for p in by_length if _under(error.field, p)), None)
        message = _plain(error.message, fields, labels, item)
        if prefix is None:
            shown_as = label_of(error.field.replace(".", " ")) if error.field else ""
            found.append((len(order), n, Problem(None, f"{shown_as}: {message}" if shown_as else message)))
            continue
        name = fields[prefix]
        label = (labels or {}).get(name) or label_of(name)
        index = _INDEX.match(error.field[len(prefix) :])
        if index is not None:
            label += f", {item} {int(index.group(1)) + 1}"
        found.append((order[name], n, Problem(name, f"{label}: {message}")))
    return [problem for _, _, problem in sorted(found, key=lambda entry: entry[:2])]


def api_errors(exc: Unprocessable | ValidationError | Sequence[FieldError]) -> list[FieldError]:
    """The field errors of an API refusal (a pydantic one located as the API locates it)."""
    if isinstance(exc, Unprocessable):
        return list(exc.errors)
    if not isinstance(exc, ValidationError):
        return list(exc)
    return [FieldError(field_path(e["loc"]), validation_message(dict(e))) for e in exc.errors()]


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith((prefix + ".", prefix + "["))


def _plain(message: str, fields: Mapping[str, str], labels: Mapping[str, str] | None, item: str) -> str:
    """An API message in page words: no "Value error, " prefix, no API path ("overlaps
    opening_hours.monday[0]" -> "overlaps slot 1"; "with cutoff_time" -> "with cutoff time")."""
    message = message.removeprefix("Value error, ")
    for prefix in sorted(fields, key=len, reverse=True):
        label = ((labels or {}).get(fields[prefix]) or label_of(fields[prefix])).lower()
        message = re.sub(re.escape(prefix) + r"\[(\d+)\]", lambda m: f"{item} {int(m.group(1)) + 1}", message)
        message = re.sub(rf"(?<![\w'\"]){re.escape(prefix)}(?![\w'\"\[])", label, message)
    return message


@dataclass(frozen=True, slots=True)
class NavLocation:
    public_id: str
    name: str


@dataclass(frozen=True, slots=True)
class NavAccount:
    """One of the user's accounts in the navigation, with its locations by number."""

    public_id: str
    name: str
    locations: list[NavLocation] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Visitor:
    """The signed-in user of a page request, and what the navigation shows them."""

    user: User
    session: sessions.WebSession
    csrf: str
    key: bytes
    nav: list[NavAccount] = field(default_factory=list)
    email: str = ""  # the user's, read while the transaction was open (a 404 page shows it later)
    timezone: str = "UTC"  # the user's: times on pages without a location
    path: str = ""  # the page's own address: its navigation link is marked current

    def zone(self, location_timezone: str | None = None) -> str:
        """The time zone a page shows its times in, the one rule of every page
        (docs/back-office.md "Time zones"): a page about one location or about something of
        one location (its board, orders, stock, a connection to it) shows the location's
        zone, `location_timezone`; every other page shows the signed-in person's."""
        return location_timezone or self.timezone

    def check(self, form: FormData) -> None:
        """A form posted by this visitor's own page, or 403."""
        _check_csrf(self.key, self.session, form)


async def signed_in(request: Request, db: AsyncSession) -> Visitor | None:
    """The signed-in user with their navigation (one query), or None."""
    key = app_state(request).key
    session = sessions.current(request, key)
    user = await sessions.user_of(db, session)
    if user is None or session is None:
        return None
    nav: dict[int, NavAccount] = {}
    for account, location in await navigation_of(db, user):
        entry = nav.setdefault(account.id, NavAccount(account.public_id, account.name))
        if location is not None:
            entry.locations.append(NavLocation(location.public_id, location.name))
    csrf = sessions.csrf_token(key, session)
    nav_accounts = list(nav.values())
    you = Visitor(
        user, session, csrf, key, nav_accounts, email=user.email, timezone=user.timezone, path=request.url.path
    )
    context_of(request).visitor = you  # a 404 raised later in this request shows the navigation
    return you


async def person(request: Request) -> Visitor:
    """The dependency behind `Person`: the signed-in person, read in a transaction of its own
    before the page's, or a redirect to /login when nobody is signed in."""
    async with app_state(request).db.transaction(write=False) as db:
        you = await signed_in(request, db)
    if you is None:
        raise PageAnswer(redirect("/login"))
    return you


# Who a back-office page serves, declared on its route as `you: Person`, as an API route
# declares its token's permission with `require(...)` (docs/architecture.md "Permissions"):
# a signed-in person, resolved before the page runs; what of theirs the page may touch is
# then `auth.people`'s decision, refused by `yours` alike everywhere.
Person = Annotated[Visitor, Depends(person)]


API_PREFIXES = ("/v1/", "/oauth2/", "/.well-known/", "/docs/", "/sandbox/")


def is_api_path(path: str, metrics_path: str) -> bool:
    """Paths whose unknown URLs keep the API's JSON errors (docs/back-office.md)."""
    return path in ("/v1", "/docs", "/redoc", metrics_path) or path.startswith(API_PREFIXES)


async def unknown_page(request: Request, status: int = 404) -> Response:
    """An unknown back-office URL: the HTML 404 page (with the navigation when signed in)."""
    async with app_state(request).db.transaction(write=False) as db:
        you = await signed_in(request, db)
    return not_found_page(you, "There is no page at this address.", status)


def answer(request: Request, exc: PageAnswer) -> Response:
    """What a `PageAnswer` answers: a 404 page gains the visitor's navigation."""
    you = context_of(request).visitor
    if isinstance(exc, NotFoundPage) and isinstance(you, Visitor):
        return not_found_page(you, exc.message)
    return exc.response


def posted_by(request: Request, form: FormData) -> sessions.WebSession:
    """The browser session that posted `form` from one of our pages (login, signup, logout:
    signed in or not), or 403."""
    key = app_state(request).key
    session = sessions.current(request, key)
    if session is None:
        raise expired()
    _check_csrf(key, session, form)
    return session


def _check_csrf(key: bytes, session: sessions.WebSession, form: FormData) -> None:
    given = form.get("csrf")
    if not isinstance(given, str) or not sessions.csrf_ok(key, session, given):
        raise expired()


def with_session(request: Request, render: Callable[[sessions.WebSession], Response]) -> Response:
    """A page rendered for the browser's session; a browser without one gets a new anonymous
    session (its cookie set), so that the page's form carries a CSRF token."""
    key = app_state(request).key
    found = sessions.current(request, key)
    session = found or sessions.WebSession.new()
    response = render(session)
    if found is None:
        sessions.set_cookie(response, request, key, session)
    return response


def text(form: FormData, name: str) -> str:
    value = form.get(name)
    return value.strip() if isinstance(value, str) else ""
