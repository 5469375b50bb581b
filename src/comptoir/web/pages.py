"""The back office at `/` (issue 8): log in, see the accounts and locations you own, edit a
location, log out. It shares the OAuth pages' session cookie, CSRF tokens, security headers,
login throttle and look (`oauth2/templates/base.html`): logging in on one logs in on both.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import Response

from comptoir.errors import Unprocessable
from comptoir.kit.codes import countries
from comptoir.kit.times import timezone_names
from comptoir.locations.service import edit_details, find_location
from comptoir.models import Account, Location, User
from comptoir.oauth2.service import Throttle
from comptoir.state import app_state
from comptoir.users.service import authenticate
from comptoir.web import session as web
from comptoir.web.render import Visitor, expired, field_errors, not_found, page, redirect, text, visitor

router = APIRouter(include_in_schema=False)


def _login_page(
    request: Request, session: web.WebSession, fresh: bool, errors: list[str], email: str, status: int
) -> Response:
    key = app_state(request).key
    response = page(
        "bo_login.html",
        status,
        title="Log in to Comptoir",
        csrf=web.csrf_token(key, session),
        email=email,
        errors=errors,
    )
    if fresh:
        web.set_cookie(response, request, key, session)
    return response


@router.get("/login")
async def login_form(request: Request) -> Response:
    found = web.current(request, app_state(request).key)
    session, fresh = (found, False) if found is not None else (web.WebSession.new(), True)
    return _login_page(request, session, fresh, [], "", 200)


@router.post("/login")
async def log_in(request: Request) -> Response:
    state = app_state(request)
    form = await request.form()
    session = web.current(request, state.key)
    csrf = form.get("csrf")
    if session is None or not web.csrf_ok(state.key, session, csrf if isinstance(csrf, str) else None):
        raise expired()
    email = text(form, "email").lower()
    password = str(form.get("password") or "")
    throttle = Throttle(state.limiter)
    subjects = [f"email:{email}", f"ip:{request.client.host if request.client else 'unknown'}"]
    wait = await throttle.wait("login", subjects)
    if wait is not None:
        message = f"Too many failed attempts. Try again in {max(1, wait // 60)} minute(s)."
        return _login_page(request, session, False, [message], email, 429)
    async with state.db.transaction(write=False) as db:
        user = await authenticate(db, email, password)
    if user is None:
        await throttle.failed("login", subjects)
        return _login_page(request, session, False, ["Wrong email or password."], email, 400)
    response = redirect("/")
    web.set_cookie(response, request, state.key, web.WebSession.new(user.id))  # a new sid: no fixation
    return response


@router.post("/logout")
async def log_out(request: Request) -> Response:
    state = app_state(request)
    form = await request.form()
    session = web.current(request, state.key)
    csrf = form.get("csrf")
    if not web.csrf_ok(state.key, session, csrf if isinstance(csrf, str) else None):
        raise expired()
    response = redirect("/login")
    web.set_cookie(response, request, state.key, web.WebSession.new())  # anonymous again
    return response


@router.get("/")
async def home(request: Request) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        you = await visitor(request, db)
        accounts = list(await db.scalars(select(Account).where(Account.owner_id == you.user.id).order_by(Account.id)))
        locations = list(
            await db.scalars(
                select(Location)
                .where(Location.account_id.in_([account.id for account in accounts]))
                .order_by(Location.account_id, Location.number)
            )
        )
    grouped = [(account, [loc for loc in locations if loc.account_id == account.id]) for account in accounts]
    return page("bo_home.html", title="Your Comptoir", you=you, accounts=grouped)


# --- a location (issue 8 item 1) -----------------------------------------------------------

DETAILS = ("name", "address", "postal_code", "city", "country", "timezone")


async def owned_location(db: Any, user: User, public_id: str, *, lock: bool = False) -> tuple[Location, Account]:
    """A location of the user's, or a 404 page (another owner's location is not found)."""
    found = await find_location(db, public_id)
    if found is None or found[1].owner_id != user.id:
        raise not_found("No location of yours has this id.")
    if lock:
        await db.refresh(found[0], with_for_update=True)
    return found


def _location_page(you: Visitor, location: Location, account: Account, form: dict[str, Any], **extra: Any) -> Response:
    return page(
        "bo_location.html",
        extra.pop("status", 200),
        title=location.name,
        you=you,
        account=account,
        location_id=location.public_id,
        form=form,
        countries=countries(),
        timezones=timezone_names(),
        **extra,
    )


def _form_of(location: Location) -> dict[str, Any]:
    return {**{field: getattr(location, field) for field in DETAILS}, "preparation_time": location.preparation_time}


@router.get("/locations/{location_id}")
async def location_page(request: Request, location_id: str) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        you = await visitor(request, db)
        location, account = await owned_location(db, you.user, location_id)
        saved = request.query_params.get("saved") == "1"
        return _location_page(you, location, account, _form_of(location), saved=saved)


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
            return _location_page(you, location, account, values, errors=field_errors(exc.errors), status=400)
    return redirect(f"/locations/{location_id}?saved=1")
