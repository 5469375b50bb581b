"""The back office at `/` (issue 8, first part): log in, see the accounts and locations you
own, edit a location's details and preparation time, log out. It shares the OAuth pages'
session cookie, CSRF tokens, security headers, login throttle and look
(`oauth2/templates/base.html`): logging in on one logs in on both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, select_autoescape
from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from comptoir.errors import Unprocessable
from comptoir.kit.codes import countries
from comptoir.kit.times import timezone_names
from comptoir.locations.service import edit_details, find_location
from comptoir.models import Account, Location, User
from comptoir.oauth2.service import Throttle
from comptoir.state import app_state
from comptoir.users.service import authenticate
from comptoir.web import session as web

router = APIRouter(include_in_schema=False)

_here = Path(__file__).parent
_pages = Environment(
    loader=ChoiceLoader(
        [FileSystemLoader(_here / "templates"), FileSystemLoader(_here.parent / "oauth2" / "templates")]
    ),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)


def _page(template: str, status: int = 200, **context: Any) -> Response:
    context.setdefault("errors", [])
    return web.protect(HTMLResponse(_pages.get_template(template).render(**context), status_code=status))


def _browser(request: Request) -> tuple[web.WebSession, bool]:
    found = web.current(request, app_state(request).key)
    return (found, False) if found is not None else (web.WebSession.new(), True)


def _login_page(
    request: Request, session: web.WebSession, fresh: bool, errors: list[str], email: str, status: int
) -> Response:
    key = app_state(request).key
    response = _page(
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
    session, fresh = _browser(request)
    return _login_page(request, session, fresh, [], "", 200)


@router.post("/login")
async def log_in(request: Request) -> Response:
    state = app_state(request)
    form = await request.form()
    session = web.current(request, state.key)
    csrf = form.get("csrf")
    if session is None or not web.csrf_ok(state.key, session, csrf if isinstance(csrf, str) else None):
        return _page("message.html", 403, title="This form has expired", message="Go back and try again.")
    email = str(form.get("email") or "").strip().lower()
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
    response = web.protect(RedirectResponse("/", status_code=303))
    web.set_cookie(response, request, state.key, web.WebSession.new(user.id))  # a new sid: no fixation
    return response


@router.post("/logout")
async def log_out(request: Request) -> Response:
    state = app_state(request)
    form = await request.form()
    session = web.current(request, state.key)
    csrf = form.get("csrf")
    if not web.csrf_ok(state.key, session, csrf if isinstance(csrf, str) else None):
        return _page("message.html", 403, title="This form has expired", message="Go back and try again.")
    response = web.protect(RedirectResponse("/login", status_code=303))
    web.set_cookie(response, request, state.key, web.WebSession.new())  # anonymous again
    return response


@router.get("/")
async def home(request: Request) -> Response:
    state = app_state(request)
    session = web.current(request, state.key)
    async with state.db.transaction(write=False) as db:
        user = await db.get(User, session.user_id) if session is not None and session.user_id is not None else None
        if user is None or session is None:
            return web.protect(RedirectResponse("/login", status_code=303))
        accounts = list(await db.scalars(select(Account).where(Account.owner_id == user.id).order_by(Account.id)))
        locations = list(
            await db.scalars(
                select(Location)
                .where(Location.account_id.in_([account.id for account in accounts]))
                .order_by(Location.account_id, Location.number)
            )
        )
    grouped = [(account, [loc for loc in locations if loc.account_id == account.id]) for account in accounts]
    return _page(
        "bo_home.html",
        title="Your Comptoir",
        user_email=user.email,
        accounts=grouped,
        csrf=web.csrf_token(state.key, session),
    )


# --- a location (issue 8 item 1) -----------------------------------------------------------

DETAILS = ("name", "address", "postal_code", "city", "country", "timezone")


async def _signed_in(request: Request, db: Any) -> tuple[User, web.WebSession] | None:
    session = web.current(request, app_state(request).key)
    user = await db.get(User, session.user_id) if session is not None and session.user_id is not None else None
    return (user, session) if user is not None and session is not None else None


async def _owned_location(
    db: Any, user: User, public_id: str, *, lock: bool = False
) -> tuple[Location, Account] | None:
    found = await find_location(db, public_id)
    if found is None or found[1].owner_id != user.id:
        return None
    if lock:
        await db.refresh(found[0], with_for_update=True)
    return found


def _location_page(
    request: Request, session: web.WebSession, location: Location, account: Account, form: dict[str, Any], **extra: Any
) -> Response:
    return _page(
        "bo_location.html",
        extra.pop("status", 200),
        title=location.name,
        account_name=account.name,
        location_id=location.public_id,
        form=form,
        countries=countries(),
        timezones=timezone_names(),
        csrf=web.csrf_token(app_state(request).key, session),
        **extra,
    )


def _form_of(location: Location) -> dict[str, Any]:
    return {**{field: getattr(location, field) for field in DETAILS}, "preparation_time": location.preparation_time}


def _not_found() -> Response:
    return _page("message.html", 404, title="Not found", message="No location of yours has this id.")


@router.get("/locations/{location_id}")
async def location_page(request: Request, location_id: str) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        signed_in = await _signed_in(request, db)
        if signed_in is None:
            return web.protect(RedirectResponse("/login", status_code=303))
        user, session = signed_in
        found = await _owned_location(db, user, location_id)
        if found is None:
            return _not_found()
        location, account = found
        saved = request.query_params.get("saved") == "1"
        return _location_page(request, session, location, account, _form_of(location), saved=saved)


@router.post("/locations/{location_id}")
async def save_location(request: Request, location_id: str) -> Response:
    """The same checks and the same `location.update` event as the API (spec 4.8, 6.2)."""
    state = app_state(request)
    form = await request.form()
    values = {name: str(form.get(name) or "").strip() for name in (*DETAILS, "preparation_time", "csrf")}
    async with state.db.transaction() as db:
        signed_in = await _signed_in(request, db)
        if signed_in is None:
            return web.protect(RedirectResponse("/login", status_code=303))
        user, session = signed_in
        if not web.csrf_ok(state.key, session, values["csrf"]):
            return _page("message.html", 403, title="This form has expired", message="Go back and try again.")
        found = await _owned_location(db, user, location_id, lock=True)
        if found is None:
            return _not_found()
        location, account = found
        minutes = int(values["preparation_time"]) if values["preparation_time"].isdigit() else -1
        try:
            await edit_details(db, location, account, {**{f: values[f] for f in DETAILS}, "preparation_time": minutes})
        except Unprocessable as exc:
            errors = [f"{e.field.replace('_', ' ').capitalize()}: {e.message}" for e in exc.errors]
            return _location_page(request, session, location, account, values, errors=errors, status=400)
    return web.protect(RedirectResponse(f"/locations/{location_id}?saved=1", status_code=303))
