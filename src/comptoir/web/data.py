"""What the back office's data views share (orders: `web.orders`, customers: `web.customers`,
catalogs: `web.catalogs`): display names and keyset pages.

Each page shows what the API returns, through the API's own rendering (orders as events
carry them: nobody's private refs), scoped to the signed-in user: a resource of an account
the user does not own is a 404 page, never a hint that it exists. Lists are keyset pages of
50 (`http.cursors`), so a page costs the same at the first order as at the millionth.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.datastructures import QueryParams
from starlette.requests import Request

from comptoir.http.cursors import back_office_page
from comptoir.kit.pagination import PageRequest
from comptoir.web.render import Visitor

PAGE_SIZE = 50


def display_name(person: dict[str, Any] | None) -> str:
    """A customer (or an order's customer snapshot) as a line of text."""
    if not person:
        return ""
    name = " ".join(part for part in (person.get("first_name"), person.get("last_name")) if part)
    return name or person.get("company_name") or person.get("email") or person.get("phone") or ""


BROKEN_NEXT = "Next: this link is broken or out of date; start again from the first page"


def page_request(request: Request, you: Visitor, refused: str = BROKEN_NEXT) -> PageRequest:
    """50 per page; BadRequest (`refused`) for a cursor this page did not give to this user
    and session, with these filters (`http.cursors.back_office_page`)."""
    return back_office_page(request, you.key, PAGE_SIZE, [you.user.id, you.session.sid], refused)


def next_page_url(params: QueryParams, cursor: str | None) -> str | None:
    """The link to the next page: the same filters and the page's cursor."""
    if cursor is None:
        return None
    kept = [(name, value) for name, value in params.multi_items() if name != "cursor" and value]
    return "?" + urlencode([*kept, ("cursor", cursor)])
