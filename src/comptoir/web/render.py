"""What every back-office page shares: the templates (the OAuth pages' look), the signed-in
visitor, CSRF checks and the answers that end a request early (login redirect, 403, 404).

A handler stops early by raising `PageAnswer(response)`: raised inside a transaction, it
rolls that transaction back, so a refused form changes nothing; the app answers with the
response it carries.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import orjson
from jinja2 import ChoiceLoader, Environment, FileSystemLoader, select_autoescape
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from comptoir.errors import FieldError
from comptoir.http.state import app_state
from comptoir.kit import ids
from comptoir.kit.safetext import printable
from comptoir.models import User
from comptoir.users import sessions

_here = Path(__file__).parent
templates = Environment(
    loader=ChoiceLoader(
        [FileSystemLoader(_here / "templates"), FileSystemLoader(_here.parent / "oauth2" / "templates")]
    ),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)


def local_time(value: datetime | None, timezone: str, seconds: bool = False) -> str:
    """A time as the pages show it: in `timezone` (the user's or the location's)."""
    if value is None:
        return "never"
    return value.astimezone(ZoneInfo(timezone)).strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


templates.globals["local_time"] = local_time
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


class PageAnswer(Exception):
    """Ends a page request with `response` (see the module's docstring)."""

    def __init__(self, response: Response) -> None:
        super().__init__(response.status_code)
        self.response = response


def page(template: str, status: int = 200, *, scripts: tuple[str, ...] = (), **context: Any) -> Response:
    """`template` rendered; `scripts`: the inline scripts it holds, allowed by its CSP."""
    context.setdefault("errors", [])
    body = templates.get_template(template).render(**context)
    return sessions.protect(HTMLResponse(body, status_code=status), scripts)


def redirect(url: str) -> Response:
    return sessions.protect(RedirectResponse(url, status_code=303))


def expired() -> PageAnswer:
    return PageAnswer(page("message.html", 403, title="This form has expired", message="Go back and try again."))


def not_found(message: str) -> PageAnswer:
    return PageAnswer(page("message.html", 404, title="Not found", message=message))


def field_errors(errors: list[FieldError]) -> list[str]:
    """An API error list in page words: "Preparation time: must be between ..."."""
    return [f"{e.field.replace('_', ' ').replace('.', ' ').capitalize()}: {e.message}" for e in errors]


@dataclass(frozen=True, slots=True)
class Visitor:
    """The signed-in user of a page request."""

    user: User
    session: sessions.WebSession
    csrf: str
    key: bytes

    def check(self, form: FormData) -> None:
        """A form posted by this visitor's own page, or 403."""
        _check_csrf(self.key, self.session, form)


async def visitor(request: Request, db: AsyncSession) -> Visitor:
    """The signed-in user, or a redirect to /login."""
    key = app_state(request).key
    session = sessions.current(request, key)
    user = await sessions.user_of(db, session)
    if user is None or session is None:
        raise PageAnswer(redirect("/login"))
    return Visitor(user=user, session=session, csrf=sessions.csrf_token(key, session), key=key)


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
