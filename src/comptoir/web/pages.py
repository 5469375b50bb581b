"""The back office at `/`: log in, sign up, see the accounts and locations you own, create
them, log out (a location's own page: `web.location`). It shares the OAuth pages' session
cookie, CSRF tokens, security headers, login throttle and look (`oauth2/templates/base.html`):
logging in on one logs in on both.
"""

from __future__ import annotations

import re
from pathlib import Path

from fastapi import APIRouter
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request
from starlette.responses import Response

from comptoir.accounts.service import accounts_of, create_account, dismiss_notice, find_account, notices
from comptoir.catalogs.service import catalogs_by_name
from comptoir.customer_lists.service import lists_by_name
from comptoir.errors import Unprocessable
from comptoir.http.state import app_state
from comptoir.kit.codes import countries, currencies, currency_of, parse_country
from comptoir.kit.times import timezone_names
from comptoir.kit.wire import WireError
from comptoir.locations.service import (
    create_location,
    find_location,
    first_location,
    locations_of_account,
    locations_of_accounts,
)
from comptoir.models import Account, Catalog, CustomerList, Location, User
from comptoir.users import logins, sessions
from comptoir.users.logins import LoginRefused
from comptoir.users.signup import FIELDS as SIGNUP_FIELDS
from comptoir.users.signup import SignupRefused, sign_up
from comptoir.web.render import (
    PageAnswer,
    Person,
    Problem,
    Visitor,
    crumbs,
    page,
    posted_by,
    problems,
    redirect,
    text,
    with_session,
    yours,
)

router = APIRouter(include_in_schema=False)

FAVICON = (Path(__file__).parent / "templates" / "favicon.svg").read_bytes()


@router.get("/favicon.svg")
@router.get("/favicon.ico")
async def favicon() -> Response:
    """The icon every page names (`<link rel="icon">`); /favicon.ico for browsers that ask."""
    return Response(FAVICON, media_type="image/svg+xml", headers={"Cache-Control": "public, max-age=86400"})


def _login_page(request: Request, session: sessions.WebSession, errors: list[str], email: str, status: int) -> Response:
    return page(
        "bo_login.html",
        status,
        title="Log in to Comptoir",
        csrf=sessions.csrf_token(app_state(request).key, session),
        email=email,
        errors=errors,
    )


@router.get("/login")
async def login_form(request: Request) -> Response:
    return with_session(request, lambda session: _login_page(request, session, [], "", 200))


@router.post("/login")
async def log_in(request: Request) -> Response:
    state = app_state(request)
    form = await request.form()
    session = posted_by(request, form)
    email = text(form, "email").lower()
    attempt = await logins.attempt(state.limiter, email, sessions.client_ip(request))
    if attempt.refused is not None:  # before the transaction: a slowed attempt holds no connection
        return _login_page(request, session, [attempt.refused.message], email, attempt.refused.status)
    async with state.db.transaction() as db:
        try:
            signed_in = await logins.log_in(db, attempt, email, str(form.get("password") or ""))
        except LoginRefused as refusal:
            return _login_page(request, session, [refusal.message], email, refusal.status)
    response = redirect("/")
    sessions.set_cookie(response, request, state.key, signed_in)
    return response


@router.post("/logout")
async def log_out(request: Request) -> Response:
    state = app_state(request)
    session = posted_by(request, await request.form())
    async with state.db.transaction() as db:
        await sessions.sign_out(db, session)  # the cookie, even copied, no longer signs anyone in
    response = redirect("/login")
    sessions.set_cookie(response, request, state.key, sessions.WebSession.new())  # anonymous again
    return response


SIGNUP_SCRIPT = (Path(__file__).parent / "templates" / "currency.js").read_text()


def _signup_page(
    request: Request, session: sessions.WebSession, values: dict[str, str], errors: list[str], status: int = 400
) -> Response:
    return page(
        "signup.html",
        status if errors else 200,
        scripts=(SIGNUP_SCRIPT,),
        currency_script=SIGNUP_SCRIPT,
        title="Create your Comptoir account",
        action="/signup",
        csrf=sessions.csrf_token(app_state(request).key, session),
        login_url="/login",
        form=values,
        countries=[(code, name, currency_of(code) or "") for code, name in countries()],
        currencies=currencies(),
        errors=[Problem(getattr(e, "field", None), str(e)) for e in errors],
    )


_REGION = re.compile(r"[a-z]{2,3}-([a-z]{2})\b", re.ASCII | re.IGNORECASE)


def country_of_browser(accept_language: str) -> str:
    """The region of the browser's first language that names one ("fr-CH,fr;q=0.9" ->
    "CH"), or "" (the form then asks): no country is chosen for the visitor by default."""
    for part in accept_language.split(",")[:8]:
        found = _REGION.match(part.strip())
        if found is not None and _is_country(found.group(1).upper()):
            return found.group(1).upper()
    return ""


def _is_country(code: str) -> bool:
    try:
        parse_country(code)
    except WireError:
        return False
    return True


@router.get("/signup")
async def signup_form(request: Request) -> Response:
    blank = dict.fromkeys(SIGNUP_FIELDS, "")
    blank["country"] = country_of_browser(request.headers.get("accept-language", ""))
    return with_session(request, lambda session: _signup_page(request, session, blank, []))


@router.post("/signup")
async def sign_up_page(request: Request) -> Response:
    """The user, the account and its first location, as on the authorisation page."""
    state = app_state(request)
    form = await request.form()
    session = posted_by(request, form)
    values = {name: text(form, name) for name in SIGNUP_FIELDS}
    # docs/api/oauth.md "Emails": signups are throttled as logins
    attempt = await logins.attempt(state.limiter, values["email"], sessions.client_ip(request))
    if attempt.refused is not None:  # before the transaction, as a login
        return _signup_page(request, session, values, [attempt.refused.message], attempt.refused.status)
    async with state.db.transaction() as db:
        try:
            signed_in = await sign_up(db, attempt, values, str(form.get("password") or ""))
        except SignupRefused as exc:
            return _signup_page(request, session, values, list(exc.errors))
    response = redirect("/")
    sessions.set_cookie(response, request, state.key, signed_in)
    return response


@router.get("/")
async def home(request: Request, you: Person) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        accounts = await accounts_of(db, you.user)
        locations = await locations_of_accounts(db, accounts)
    grouped = [(account, [loc for loc in locations if loc.account_id == account.id]) for account in accounts]
    return page("bo_home.html", title="Your Comptoir", you=you, accounts=grouped)


# --- accounts -----------------------------------------------------------------------------


async def owned_account(db: AsyncSession, user: User, public_id: str) -> Account:
    return yours(user, await find_account(db, public_id), "account")


ACCOUNT_FIELDS = {"name": "name", "currency": "currency"}
ACCOUNT_LABELS = {"name": "Account name"}


def _account_form(you: Visitor, form: dict[str, str], errors: list[Problem] | None = None) -> Response:
    return page(
        "bo_account_new.html",
        400 if errors else 200,
        title="New account",
        crumbs=crumbs(),
        you=you,
        form=form,
        currencies=currencies(),
        errors=errors or [],
    )


@router.get("/accounts/new")
async def new_account_form(you: Person) -> Response:
    return _account_form(you, {"name": "", "currency": ""})


@router.post("/accounts/new")
async def new_account(request: Request, you: Person) -> Response:
    form = await request.form()
    values = {"name": text(form, "name"), "currency": text(form, "currency")}
    async with app_state(request).db.transaction() as db:
        you.check(form)
        try:  # every field checked before anything is written (`create_account`)
            account = await create_account(db, owner=you.user, name=values["name"], currency=values["currency"])
        except Unprocessable as exc:
            raise PageAnswer(_account_form(you, values, problems(exc, ACCOUNT_FIELDS, labels=ACCOUNT_LABELS))) from None
    return redirect(f"/accounts/{account.public_id}")


@router.get("/accounts/{account_id}")
async def account_page(request: Request, you: Person, account_id: str) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        account = await owned_account(db, you.user, account_id)
        locations = await locations_of_account(db, account)
        catalogs, lists = await shared_with(db, account, None)
        shown_notices = await notices(db, account.id)
    return page(
        "bo_account.html",
        title=account.name,
        crumbs=crumbs(),
        you=you,
        account=account,
        locations=locations,
        catalogs=catalogs,
        customer_lists=lists,
        notices=shown_notices,
    )


@router.post("/accounts/{account_id}/notices/{notice_id}/dismiss")
async def dismiss_notice_page(request: Request, you: Person, account_id: str, notice_id: int) -> Response:
    """docs/api/callbacks-events.md "Automatic disable": a notice stays until dismissed."""
    form = await request.form()
    async with app_state(request).db.transaction() as db:
        you.check(form)
        account = await owned_account(db, you.user, account_id)
        await dismiss_notice(db, account.id, notice_id)
    return redirect(f"/accounts/{account.public_id}")


async def shared_with(
    db: AsyncSession, account: Account, location: Location | None
) -> tuple[list[Catalog], list[CustomerList]]:
    """The catalogs and customer lists of a location (or, without one, the account's own), by name."""
    return await catalogs_by_name(db, account, location), await lists_by_name(db, account, location)


async def owned_location(
    db: AsyncSession, user: User, public_id: str, *, lock: bool = False
) -> tuple[Location, Account]:
    """A location of the user's, or a 404 page (another owner's location is not found);
    `lock`: locked in the transaction."""
    found = await find_location(db, public_id, for_update=lock)
    return yours(user, found, "location", found[1] if found is not None else None)


DETAILS = ("name", "address", "postal_code", "city", "country", "timezone")
DETAIL_FIELDS = {name: name for name in (*DETAILS, "preparation_time")}


def _new_location_form(
    you: Visitor, account: Account, form: dict[str, str], errors: list[Problem] | None = None
) -> Response:
    return page(
        "bo_location_new.html",
        400 if errors else 200,
        title="New location",
        crumbs=crumbs(account),
        you=you,
        account=account,
        form=form,
        countries=countries(),
        timezones=timezone_names(),
        errors=errors or [],
    )


@router.get("/accounts/{account_id}/locations/new")
async def new_location_form(request: Request, you: Person, account_id: str) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        account = await owned_account(db, you.user, account_id)
        first = await first_location(db, account)
        country, timezone = (first.country, first.timezone) if first is not None else ("", "")
        form = {"name": "", "address": "", "postal_code": "", "city": "", "country": country, "timezone": timezone}
        return _new_location_form(you, account, form)


@router.post("/accounts/{account_id}/locations/new")
async def new_location(request: Request, you: Person, account_id: str) -> Response:
    """The location is numbered after the account's last one, as with the CLI."""
    form = await request.form()
    values = {name: text(form, name) for name in DETAILS}
    async with app_state(request).db.transaction() as db:
        you.check(form)
        account = await owned_account(db, you.user, account_id)
        try:  # every field checked before anything is written (`create_location`)
            location = await create_location(
                db,
                account=account,
                name=values["name"],
                timezone=values["timezone"],
                country=values["country"],
                address=values["address"] or None,
                postal_code=values["postal_code"] or None,
                city=values["city"] or None,
            )
        except Unprocessable as exc:
            raise PageAnswer(_new_location_form(you, account, values, problems(exc, DETAIL_FIELDS))) from None
    return redirect(f"/locations/{location.public_id}")
