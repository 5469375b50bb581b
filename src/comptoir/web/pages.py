"""The back office at `/`: log in, see the accounts and locations you own, edit a
location, log out. It shares the OAuth pages' session cookie, CSRF tokens, security headers,
login throttle and look (`oauth2/templates/base.html`): logging in on one logs in on both.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter
from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

from comptoir.accounts.service import accounts_of, create_account, find_account
from comptoir.callbacks.service import dismiss_notice
from comptoir.callbacks.service import notices as callback_notices
from comptoir.catalogs.service import catalogs_by_name
from comptoir.customer_lists.service import lists_by_name
from comptoir.errors import FieldError, Unprocessable, field_path, validation_message
from comptoir.http.state import app_state
from comptoir.kit.codes import countries, currencies, parse_country, parse_currency
from comptoir.kit.times import parse_timezone_name, timezone_names
from comptoir.kit.wire import WireError
from comptoir.locations.schemas import DAYS, LocationUpdate
from comptoir.locations.service import (
    create_location,
    edit_details,
    find_location,
    first_location,
    locations_of_account,
    locations_of_accounts,
    update_location,
)
from comptoir.models import Account, Catalog, CustomerList, Location, User
from comptoir.users import sessions
from comptoir.users.logins import LoginRefused, admit_login, check_login, login_throttle
from comptoir.users.signup import FIELDS as SIGNUP_FIELDS
from comptoir.users.signup import SignupRefused, sign_up
from comptoir.web.charts import location_charts
from comptoir.web.render import (
    PageAnswer,
    Visitor,
    field_errors,
    local_time,
    not_found,
    page,
    posted_by,
    redirect,
    text,
    visitor,
    with_session,
)

router = APIRouter(include_in_schema=False)


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
    throttle = login_throttle(state.limiter, email, sessions.client_ip(request))
    refused = await admit_login(throttle)
    if refused is not None:
        return _login_page(request, session, [refused.message], email, refused.status)
    async with state.db.transaction() as db:
        try:
            user = await check_login(db, throttle, email, str(form.get("password") or ""))
        except LoginRefused as refusal:
            return _login_page(request, session, [refusal.message], email, refusal.status)
        signed_in = await sessions.sign_in(db, user)  # a new sid: no fixation
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


def _signup_page(
    request: Request, session: sessions.WebSession, values: dict[str, str], errors: list[str], status: int = 400
) -> Response:
    return page(
        "signup.html",
        status if errors else 200,
        title="Create your Comptoir account",
        action="/signup",
        csrf=sessions.csrf_token(app_state(request).key, session),
        login_url="/login",
        form=values,
        countries=countries(),
        currencies=currencies(),
        errors=errors,
    )


@router.get("/signup")
async def signup_form(request: Request) -> Response:
    blank = dict.fromkeys(SIGNUP_FIELDS, "")
    return with_session(request, lambda session: _signup_page(request, session, blank, []))


@router.post("/signup")
async def sign_up_page(request: Request) -> Response:
    """The user, the account and its first location, as on the authorisation page."""
    state = app_state(request)
    form = await request.form()
    session = posted_by(request, form)
    values = {name: text(form, name) for name in SIGNUP_FIELDS}
    throttle = login_throttle(state.limiter, values["email"], sessions.client_ip(request))
    refused = await admit_login(throttle)  # docs/api/oauth.md "Emails": signups are throttled as logins
    if refused is not None:
        return _signup_page(request, session, values, [refused.message], refused.status)
    async with state.db.transaction() as db:
        try:
            user = await sign_up(db, values, str(form.get("password") or ""), throttle)
        except SignupRefused as exc:
            return _signup_page(request, session, values, exc.errors)
        signed_in = await sessions.sign_in(db, user)
    response = redirect("/")
    sessions.set_cookie(response, request, state.key, signed_in)
    return response


@router.get("/")
async def home(request: Request) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        you = await visitor(request, db)
        accounts = await accounts_of(db, you.user)
        locations = await locations_of_accounts(db, accounts)
    grouped = [(account, [loc for loc in locations if loc.account_id == account.id]) for account in accounts]
    return page("bo_home.html", title="Your Comptoir", you=you, accounts=grouped)


# --- accounts -----------------------------------------------------------------------------


async def owned_account(db: AsyncSession, user: User, public_id: str) -> Account:
    account = await find_account(db, public_id)
    if account is None or account.owner_id != user.id:
        raise not_found("No account of yours has this id.")
    return account


def _account_form(you: Visitor, form: dict[str, str], errors: list[str] | None = None) -> Response:
    return page(
        "bo_account_new.html",
        400 if errors else 200,
        title="New account",
        you=you,
        form=form,
        currencies=currencies(),
        errors=errors or [],
    )


@router.get("/accounts/new")
async def new_account_form(request: Request) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        you = await visitor(request, db)
        return _account_form(you, {"name": "", "currency": ""})


@router.post("/accounts/new")
async def new_account(request: Request) -> Response:
    form = await request.form()
    values = {"name": text(form, "name"), "currency": text(form, "currency")}
    async with app_state(request).db.transaction() as db:
        you = await visitor(request, db)
        you.check(form)
        errors: list[str] = []
        try:
            parse_currency(values["currency"])
        except WireError:
            errors.append("Currency: choose a currency from the list.")
        try:
            account = await create_account(db, owner=you.user, name=values["name"], currency=values["currency"])
        except Unprocessable as exc:
            errors[:0] = field_errors(exc.errors)
        if errors:
            raise PageAnswer(_account_form(you, values, errors))
    return redirect(f"/accounts/{account.public_id}")


@router.get("/accounts/{account_id}")
async def account_page(request: Request, account_id: str) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        you = await visitor(request, db)
        account = await owned_account(db, you.user, account_id)
        locations = await locations_of_account(db, account)
        catalogs, lists = await _shared_with(db, account, None)
        notices = await callback_notices(db, account.id)
    return page(
        "bo_account.html",
        title=account.name,
        you=you,
        account=account,
        locations=locations,
        catalogs=catalogs,
        customer_lists=lists,
        notices=notices,
    )


@router.post("/accounts/{account_id}/notices/{notice_id}/dismiss")
async def dismiss_notice_page(request: Request, account_id: str, notice_id: int) -> Response:
    """docs/api/callbacks-events.md "Automatic disable": a notice stays until dismissed."""
    form = await request.form()
    async with app_state(request).db.transaction() as db:
        you = await visitor(request, db)
        you.check(form)
        account = await owned_account(db, you.user, account_id)
        await dismiss_notice(db, account.id, notice_id)
    return redirect(f"/accounts/{account.public_id}")


async def _shared_with(
    db: AsyncSession, account: Account, location: Location | None
) -> tuple[list[Catalog], list[CustomerList]]:
    """The catalogs and customer lists of a location (or, without one, the account's own), by name."""
    return await catalogs_by_name(db, account, location), await lists_by_name(db, account, location)


def _new_location_form(
    you: Visitor, account: Account, form: dict[str, str], errors: list[str] | None = None
) -> Response:
    return page(
        "bo_location_new.html",
        400 if errors else 200,
        title=f"New location · {account.name}",
        you=you,
        account=account,
        form=form,
        countries=countries(),
        timezones=timezone_names(),
        errors=errors or [],
    )


@router.get("/accounts/{account_id}/locations/new")
async def new_location_form(request: Request, account_id: str) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        you = await visitor(request, db)
        account = await owned_account(db, you.user, account_id)
        first = await first_location(db, account)
        country, timezone = (first.country, first.timezone) if first is not None else ("", "")
        form = {"name": "", "address": "", "postal_code": "", "city": "", "country": country, "timezone": timezone}
        return _new_location_form(you, account, form)


@router.post("/accounts/{account_id}/locations/new")
async def new_location(request: Request, account_id: str) -> Response:
    """The location is numbered after the account's last one, as with the CLI."""
    form = await request.form()
    values = {name: text(form, name) for name in DETAILS}
    async with app_state(request).db.transaction() as db:
        you = await visitor(request, db)
        you.check(form)
        account = await owned_account(db, you.user, account_id)
        errors: list[str] = []
        for field, parse in (("country", parse_country), ("timezone", parse_timezone_name)):
            try:
                parse(values[field])
            except WireError as exc:
                errors.append(f"{field.capitalize()}: {exc}")
        try:
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
            errors[:0] = field_errors(exc.errors)
        if errors:
            raise PageAnswer(_new_location_form(you, account, values, errors))
    return redirect(f"/locations/{location.public_id}")


# --- a location ----------------------------------------------------------------------------

DETAILS = ("name", "address", "postal_code", "city", "country", "timezone")


async def owned_location(
    db: AsyncSession, user: User, public_id: str, *, lock: bool = False
) -> tuple[Location, Account]:
    """A location of the user's, or a 404 page (another owner's location is not found);
    `lock`: locked in the transaction."""
    found = await find_location(db, public_id, for_update=lock)
    if found is None or found[1].owner_id != user.id:
        raise not_found("No location of yours has this id.")
    return found


async def _location_page(
    db: AsyncSession, you: Visitor, location: Location, account: Account, form: dict[str, Any], **extra: Any
) -> Response:
    catalogs, lists = await _shared_with(db, account, location)
    hours = extra.pop("hours", None) or _hours_form(location)
    acceptance = extra.pop("acceptance", None) or _acceptance_form(location)
    return page(
        "bo_location.html",
        title=location.name,
        you=you,
        account=account,
        location_id=location.public_id,
        form=form,
        hours=hours,
        days=DAYS,
        acceptance=acceptance,
        catalogs=catalogs,
        customer_lists=lists,
        countries=countries(),
        timezones=timezone_names(),
        location_charts=await location_charts(db, location, account.currency),
        **extra,
    )


def _hours_form(location: Location) -> dict[str, str]:
    """Opening hours as the form writes them: "11:30-14:30, 18:30-22:30" per day."""
    stored = location.opening_hours or {}
    form = {day: ", ".join(f"{slot['from']}-{slot['to']}" for slot in stored.get(day) or []) for day in DAYS}
    return {**form, "cutoff_time": location.cutoff_time}


def _acceptance_form(location: Location) -> dict[str, str]:
    resume = location.acceptance_resume_at
    return {
        "mode": location.acceptance_mode,
        "resume_at": local_time(resume, location.timezone).replace(" ", "T") if resume else "",
        "extra_preparation_time": str(location.acceptance_extra_preparation_time or ""),
        "reason": location.acceptance_reason or "",
    }


def _form_of(location: Location) -> dict[str, Any]:
    return {**{field: getattr(location, field) for field in DETAILS}, "preparation_time": location.preparation_time}


@router.get("/locations/{location_id}")
async def location_page(request: Request, location_id: str) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        you = await visitor(request, db)
        location, account = await owned_location(db, you.user, location_id)
        saved = request.query_params.get("saved") == "1"
        return await _location_page(db, you, location, account, _form_of(location), saved=saved)


@router.post("/locations/{location_id}")
async def save_location(request: Request, location_id: str) -> Response:
    """The same checks and the same `location.update` event as the API (spec 4.8, 6.2)."""
    form = await request.form()
    values = {name: text(form, name) for name in (*DETAILS, "preparation_time")}
    async with app_state(request).db.transaction() as db:
        you = await visitor(request, db)
        you.check(form)
        location, account = await owned_location(db, you.user, location_id, lock=True)
        minutes = int(values["preparation_time"]) if values["preparation_time"].isdigit() else -1
        try:
            await edit_details(db, location, account, {**{f: values[f] for f in DETAILS}, "preparation_time": minutes})
        except Unprocessable as exc:
            raise PageAnswer(
                await _location_page(db, you, location, account, values, errors=field_errors(exc.errors), status=400)
            ) from None
    return redirect(f"/locations/{location_id}?saved=1")


_SLOT = re.compile(r"(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})", re.ASCII)


def _slots(day: str, written: str) -> list[dict[str, str]]:
    """ "11:30-14:30, 18:30-22:30" as spec 2.3's slots; a slot written otherwise is refused."""
    slots = []
    for part in filter(None, (piece.strip() for piece in written.split(","))):
        found = _SLOT.fullmatch(part)
        if found is None:
            raise Unprocessable([FieldError(f"opening_hours.{day}", f"{part!r} is not a slot like 11:30-14:30")])
        slots.append({"from": found.group(1).zfill(5), "to": found.group(2).zfill(5)})
    return slots


async def _update(
    request: Request, location_id: str, body: Callable[[FormData], dict[str, Any]], form_name: str
) -> Response:
    """A PATCH of the location through the API's own rules (`update_location`: the same
    checks, the same `location.update` event, caused by no client)."""
    form = await request.form()
    async with app_state(request).db.transaction() as db:
        you = await visitor(request, db)
        you.check(form)
        location, account = await owned_location(db, you.user, location_id, lock=True)
        try:
            update_ = LocationUpdate.model_validate(body(form))
            await update_location(db, None, location, account, update_)
        except (Unprocessable, ValidationError) as exc:
            errors = (
                field_errors(exc.errors)
                if isinstance(exc, Unprocessable)
                else [f"{field_path(e['loc'])}: {validation_message(dict(e))}" for e in exc.errors()]
            )
            written = {name: text(form, name) for name in form if name != "csrf"}
            answer = await _location_page(
                db, you, location, account, _form_of(location), errors=errors, status=400, **{form_name: written}
            )
            raise PageAnswer(answer) from None
    return redirect(f"/locations/{location_id}?saved=1")


def _hours_body(form: FormData) -> dict[str, Any]:
    days = {day: _slots(day, text(form, day)) for day in DAYS}
    hours = days if any(days.values()) else None  # every day empty: no opening hours
    return {"opening_hours": hours, "cutoff_time": text(form, "cutoff_time") or "00:00"}


def _acceptance_body(form: FormData) -> dict[str, Any]:
    """Only the fields of the chosen mode's shape (spec 2.3): the form shows them all."""
    mode = text(form, "mode")
    given: dict[str, Any] = {"mode": mode}
    if mode in ("busy", "paused") and text(form, "resume_at"):
        given["resume_at"] = text(form, "resume_at")
    if mode == "busy":
        minutes = text(form, "extra_preparation_time")
        given["extra_preparation_time"] = int(minutes) if minutes.isdigit() else minutes or None
    if mode == "paused" and text(form, "reason"):
        given["reason"] = text(form, "reason")
    return {"order_acceptance": given}


@router.post("/locations/{location_id}/hours")
async def save_hours(request: Request, location_id: str) -> Response:
    return await _update(request, location_id, _hours_body, "hours")


@router.post("/locations/{location_id}/acceptance")
async def save_acceptance(request: Request, location_id: str) -> Response:
    return await _update(request, location_id, _acceptance_body, "acceptance")
