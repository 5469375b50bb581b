"""The back office at `/` (issue 8, first part): log in, see the accounts and locations you
own, log out. It shares the OAuth pages' session cookie, CSRF tokens, security headers,
login throttle and look (`oauth2/templates/base.html`): logging in on one logs in on both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, select_autoescape
from sqlalchemy import select
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

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
