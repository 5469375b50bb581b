"""The authorisation server at /oauth2/v1 (spec 5.2-5.5): the authorize pages, token and
revoke.

`/authorize` is one address: every page posts back to it with the authorisation request's
own query string, so the request needs no server-side state until the user approves it.
Each post carries a CSRF token (an HMAC of the browser session) and is answered by a 303.
Pages: log in or sign up; then one page to choose the location or account the scope's
level needs, with the catalog and customer list when the scope names them, that says what
the application may do, with Allow and Deny.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter
from jinja2 import Environment, FileSystemLoader, select_autoescape
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from comptoir.applications.service import OOB_REDIRECT_URI, find_client
from comptoir.auth.scopes import Scope, ScopeError, parse_scope
from comptoir.errors import ComptoirError, PayloadTooLarge, ServiceUnavailable
from comptoir.http import page_headers
from comptoir.http.routing import ErrorResponse
from comptoir.http.state import app_state
from comptoir.kit.codes import countries, currencies
from comptoir.kit.jsonutil import dumps, loads
from comptoir.models import OAuthClient, User
from comptoir.oauth2 import consent, service
from comptoir.oauth2.service import OAuthError
from comptoir.users import logins, sessions
from comptoir.users.logins import LoginRefused, Throttle
from comptoir.users.signup import FIELDS as SIGNUP_FIELDS
from comptoir.users.signup import SignupRefused, sign_up

router = APIRouter(include_in_schema=False)

_pages = Environment(
    loader=FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)


class AuthorizeRequest:
    """The query of spec 5.2 item 1, checked."""

    def __init__(self, request: Request, client: OAuthClient, scope: Scope) -> None:
        query = request.query_params
        self.client = client
        self.scope = scope
        self.redirect_uri = query["redirect_uri"]
        self.state = query.get("state")
        # docs/api/oauth.md "Connections": `device_id` is an alias of `name`
        self.name = query.get("name") or query.get("device_id") or ""
        self.code_challenge = query.get("code_challenge")
        self.prefill = {k: query.get(k) or "" for k in ("country", "account_name", "location_name")}
        self.query = urlencode([(k, v) for k, v in query.multi_items() if k != "screen"])
        self.action = f"{request.url.path}?{self.query}"

    def url(self, **extra: str) -> str:
        return "/oauth2/v1/authorize?" + self.query + ("&" + urlencode(extra) if extra else "")

    def back(self, **params: str) -> Response:
        return _back(self.redirect_uri, self.state, **params)


def _back(redirect_uri: str, state: str | None, **params: str) -> Response:
    """303 to the client's redirect URI with `params` (and `state` unchanged, spec 5.2 item 3).
    An error for the copy-paste flow's URI, which no browser can follow, is a page naming
    the error code and its description instead (docs/api/oauth.md "Refused authorisation
    requests")."""
    if redirect_uri == OOB_REDIRECT_URI and "error" in params:
        return _error_page(params.get("error_description", ""), error=params["error"])
    if state is not None:
        params["state"] = state
    separator = "&" if "?" in redirect_uri else "?"
    return RedirectResponse(redirect_uri + separator + urlencode(params), status_code=303)


def _page(template: str, status: int = 200, **context: Any) -> Response:
    context.setdefault("errors", [])
    return HTMLResponse(_pages.get_template(template).render(**context), status_code=status)


def _form_page(
    template: str,
    status: int,
    request: Request,
    req: AuthorizeRequest,
    browser: sessions.WebSession,
    errors: Sequence[str],
    **context: Any,
) -> Response:
    """A step's form (docs/api/oauth.md "Pages"): it names the application, posts to the
    request's action with the browser's CSRF token, and shows `errors`."""
    csrf = sessions.csrf_token(app_state(request).key, browser)
    return _page(
        template, status, client_name=req.client.name, action=req.action, csrf=csrf, errors=list(errors), **context
    )


def _message_page(message: str, status: int = 400) -> Response:
    """A refused form of the pages (not of the authorisation request): no OAuth error code."""
    return _page("message.html", status, title="This connection request cannot be used", message=message)


def _error_page(message: str, status: int = 400, *, error: str = "invalid_request") -> Response:
    """A refused authorisation request that goes back nowhere: the OAuth error code
    (RFC 6749 4.1.2.1) and what is wrong, in words."""
    return _page("error.html", status, title="This connection request cannot be used", message=message, error=error)


async def _checked_request(request: Request, db: AsyncSession) -> AuthorizeRequest | Response:
    """spec 5.2 and RFC 6749 4.1.2.1: an unknown client or an unregistered redirect URI is
    an error page, never a redirect; an invalid scope goes back with `invalid_scope`."""
    query = request.query_params
    client_id, redirect_uri = query.get("client_id"), query.get("redirect_uri")
    if not client_id:
        return _error_page("The client_id parameter is missing.")
    client = await find_client(db, client_id)
    if client is None:
        return _error_page(f"No application has the client id {client_id!r}.")
    if not redirect_uri:
        return _error_page("The redirect_uri parameter is missing.")
    refused = service.redirect_refused(client, redirect_uri)
    if refused is not None:
        return _error_page(refused)
    response_type = _response_type_refused(query.getlist("response_type"))
    if response_type is not None:
        return _back(redirect_uri, query.get("state"), error=response_type[0], error_description=response_type[1])
    challenge, method = query.get("code_challenge"), query.get("code_challenge_method", "plain")
    if challenge is not None and (method != "S256" or not service.valid_challenge(challenge)):
        description = "code_challenge must be an S256 challenge (code_challenge_method=S256)"
        return _back(redirect_uri, query.get("state"), error="invalid_request", error_description=description)
    try:
        scope = parse_scope(query.get("scope") or "")
    except ScopeError as exc:
        return _back(redirect_uri, query.get("state"), error="invalid_scope", error_description=str(exc))
    return AuthorizeRequest(request, client, scope)


def _response_type_refused(values: list[str]) -> tuple[str, str] | None:
    """docs/api/oauth.md "Refused authorisation requests": `code`, or none (compatible: the
    authorisation request names none), else the error and its description."""
    if not values:
        return None
    if len(values) > 1:
        return "invalid_request", "response_type was sent more than once"
    if values[0] == "code":
        return None
    if not values[0]:
        return "invalid_request", "response_type is empty: send code"
    shown = values[0] if len(values[0]) <= 100 else values[0][:97] + "..."
    return "unsupported_response_type", f"response_type “{shown}” is not supported: only code is"


def _with_cookie(response: Response, request: Request, session: sessions.WebSession, fresh: bool) -> Response:
    if fresh:
        sessions.set_cookie(response, request, app_state(request).key, session)
    return response


# --- GET /authorize ---------------------------------------------------------------------


@router.get("/authorize")
async def authorize(request: Request, visitor: sessions.AnyBrowser) -> Response:
    return page_headers.protect(await _authorize_page(request, visitor))


async def _authorize_page(request: Request, visitor: sessions.Browser) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        checked = await _checked_request(request, db)
        if isinstance(checked, Response):
            return checked
        browser, fresh, user = visitor.session, visitor.fresh, visitor.user
        if user is None:
            screen = request.query_params.get("screen")
            page = _signup_page if screen == "signup" else _login_page
            return _with_cookie(page(request, checked, browser), request, browser, fresh)
        return _with_cookie(await _choice_page(request, db, checked, browser, user), request, browser, fresh)


def _login_page(
    request: Request,
    req: AuthorizeRequest,
    browser: sessions.WebSession,
    errors: Sequence[str] = (),
    email: str = "",
    status: int = 200,
) -> Response:
    return _form_page(
        "login.html",
        status,
        request,
        req,
        browser,
        errors,
        title=f"Log in to connect {req.client.name}",
        signup_url=req.url(screen="signup"),
        email=email,
    )


def _signup_page(
    request: Request,
    req: AuthorizeRequest,
    browser: sessions.WebSession,
    errors: Sequence[str] = (),
    form: dict[str, str] | None = None,
    status: int = 200,
) -> Response:
    values = dict(req.prefill, first_name="", last_name="", email="", currency="")
    values.update(form or {})
    return _form_page(
        "signup.html",
        status,
        request,
        req,
        browser,
        errors,
        title="Create your Comptoir account",
        login_url=req.url(),
        form=values,
        countries=countries(),
        currencies=currencies(),
    )


async def _choice_page(
    request: Request,
    db: AsyncSession,
    req: AuthorizeRequest,
    browser: sessions.WebSession,
    user: User,
    errors: Sequence[str] = (),
    chosen: dict[str, str] | None = None,
    status: int = 200,
) -> Response:
    """One page (docs/api/oauth.md "Pages"): the "Location" or "Account",
    "Catalog" and "Customer list" selects the scope needs, what the application may do, and
    Allow / Deny."""
    scope = req.scope
    offered = await consent.choices(db, user, scope, req.client.name)
    if offered.targets is not None and not offered.targets:
        return _page("message.html", title="Nothing to connect", message=f"You have no {scope.level} to connect yet.")
    chosen = chosen or {}
    ids = offered.target_ids
    # docs/api/oauth.md "The consent page": the choices shown are the chosen target's
    selected = chosen.get("target") if chosen.get("target") in ids else (ids[0] if ids else None)
    response = _form_page(
        "consent.html",
        status,
        request,
        req,
        browser,
        errors,
        title=f"Allow {req.client.name}?",
        user_email=user.email,
        level_label=scope.level.capitalize() if scope.level else None,
        targets=offered.targets,
        selects=offered.selects,
        blocked=offered.blocked,
        selected=selected,
        several=len(ids) > 1 and bool(offered.selects),
        allowances=service.describe(scope),
        chosen=dict(chosen, target=selected or ""),
        narrow_script=consent.NARROW_SCRIPT,
    )
    return page_headers.protect(response, (consent.NARROW_SCRIPT,))


# --- POST /authorize --------------------------------------------------------------------


@router.post("/authorize")
async def authorize_step(request: Request, visitor: sessions.AnyBrowser) -> Response:
    return page_headers.protect(await _authorize_step(request, visitor))


async def _authorize_step(request: Request, visitor: sessions.Browser) -> Response:
    state = app_state(request)
    form = await request.form()
    # before the transaction: a slowed attempt holds no database connection
    attempt = None
    if _field(form, "step") in ("login", "signup"):
        attempt = await logins.attempt(state.limiter, _email(form), sessions.client_ip(request))
    async with state.db.transaction() as db:
        checked = await _checked_request(request, db)
        if isinstance(checked, Response):
            return checked
        browser = visitor.session
        if visitor.fresh or not sessions.csrf_ok(state.key, browser, _field(form, "csrf")):
            # RFC 6749 10.12: a post without this browser's token is refused outright
            return _message_page("This form has expired or was not sent from this page. Go back and try again.", 403)
        step = _field(form, "step")
        if step == "login" and attempt is not None:
            return await _log_in(request, db, checked, browser, form, attempt)
        if step == "signup" and attempt is not None:
            return await _sign_up(request, db, checked, browser, form, attempt)
        user = visitor.user
        if user is None:
            return RedirectResponse(checked.url(), status_code=303)
        if step == "deny":
            return _deny(checked)
        if step == "allow":
            return await _allow(request, db, checked, browser, user, form)
        if step == "choose":  # without the page's script: the choices of the target chosen
            return await _choice_page(request, db, checked, browser, user, chosen={"target": _field(form, "target")})
        return _message_page("Unknown step.")


def _field(form: FormData, name: str) -> str:
    value = form.get(name)
    return value if isinstance(value, str) else ""


def _email(form: FormData) -> str:
    return _field(form, "email").strip().lower()


def _deny(req: AuthorizeRequest) -> Response:
    """spec 5.2 item 3: back with `error=access_denied`."""
    if req.redirect_uri == OOB_REDIRECT_URI:
        return _page("message.html", title="Access denied", message=f"{req.client.name} was not connected.")
    return req.back(error="access_denied")


async def _log_in(
    request: Request,
    db: AsyncSession,
    req: AuthorizeRequest,
    browser: sessions.WebSession,
    form: FormData,
    attempt: logins.Attempt,
) -> Response:
    email = _email(form)
    try:
        signed_in = await logins.log_in(db, attempt, email, _field(form, "password"))
    except LoginRefused as refusal:
        return _login_page(request, req, browser, [refusal.message], email, refusal.status)
    response = RedirectResponse(req.url(), status_code=303)
    sessions.set_cookie(response, request, app_state(request).key, signed_in)
    return response


async def _sign_up(
    request: Request,
    db: AsyncSession,
    req: AuthorizeRequest,
    browser: sessions.WebSession,
    form: FormData,
    attempt: logins.Attempt,
) -> Response:
    """`users.signup.sign_up`: the user, the account and its first location (spec 5.2 item 2)."""
    values = {name: _field(form, name).strip() for name in SIGNUP_FIELDS}
    try:
        signed_in = await sign_up(db, attempt, values, _field(form, "password"))
    except LoginRefused as refusal:
        return _signup_page(request, req, browser, [refusal.message], values, refusal.status)
    except SignupRefused as exc:
        return _signup_page(request, req, browser, exc.errors, values, 400)
    response = RedirectResponse(req.url(), status_code=303)
    sessions.set_cookie(response, request, app_state(request).key, signed_in)
    return response


async def _allow(
    request: Request,
    db: AsyncSession,
    req: AuthorizeRequest,
    browser: sessions.WebSession,
    user: User,
    form: FormData,
) -> Response:
    """Checks the choices as the connection will (spec 5.1), creates the new catalog or
    customer list if one was asked for, then issues the code. A refusal changes nothing."""
    chosen = {name: _field(form, name) for name in ("target", "catalog", "customer_list")}
    try:
        choice = await consent.check_choice(db, user, req.scope, chosen, req.client.name, req.name)
    except consent.ChoiceRefused as refused:
        return await _choice_page(request, db, req, browser, user, refused.messages, chosen, 400)
    code = await service.issue_code(
        db,
        app_state(request).key,
        client_id=req.client.id,
        user_id=user.id,
        redirect_uri=req.redirect_uri,
        scope=str(req.scope),
        account_id=choice.account.id if choice.account else None,
        location_id=choice.location.id if choice.location else None,
        catalog_id=choice.catalog.id if choice.catalog else None,
        customer_list_id=choice.customer_list.id if choice.customer_list else None,
        name=req.name,
        code_challenge=req.code_challenge,
    )
    if req.redirect_uri == OOB_REDIRECT_URI:  # spec 5.5 item 1: shown for the user to paste
        return _page("code.html", title="Your authorization code", client_name=req.client.name, code=code)
    return req.back(code=code)


# --- POST /token and /revoke ------------------------------------------------------------


async def _token_fields(request: Request) -> dict[str, str]:
    """spec 5.3 item 1: form-encoded; docs/api/oauth.md "Token endpoint": a JSON body is
    accepted too."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type == "application/json":
        try:
            data = loads(await request.body())
        except ValueError:
            raise OAuthError(400, "invalid_request", "The request body is not valid JSON") from None
        if not isinstance(data, dict):
            raise OAuthError(400, "invalid_request", "The request body must be a JSON object")
        return {k: v for k, v in data.items() if isinstance(v, str)}
    form = await request.form()
    return {k: v for k, v in form.items() if isinstance(v, str)}


class _Credentials:
    """spec 5.3 item 2: HTTP Basic, or (compatible) `client_id`/`client_secret` fields
    (`service.presented_credentials`: sent both ways, they must agree), admitted by the
    throttle (`Throttle`: per address, per (client id, address), and the client id slowed
    down) before the request's transaction."""

    def __init__(self, presented: service.Presented, throttle: Throttle) -> None:
        self.presented, self.throttle = presented, throttle

    @classmethod
    async def admitted(cls, request: Request, fields: dict[str, str]) -> _Credentials:
        presented = service.presented_credentials(request.headers.get("authorization"), fields)
        if presented is None:
            raise OAuthError(401, "invalid_client", "Client credentials are missing (HTTP Basic authentication)")
        throttle = Throttle(app_state(request).limiter, "client", presented.client_id, sessions.client_ip(request))
        wait = await throttle.admit()
        if wait is not None:
            raise OAuthError(429, "invalid_client", "Too many failed client authentications", retry_after=wait)
        return cls(presented, throttle)

    async def client(self, request: Request, db: AsyncSession) -> OAuthClient:
        """The client, or 401 for wrong credentials, wherever they are wrong (the failure
        counted)."""
        presented = self.presented
        client = await service.authenticate_client(db, app_state(request).key, presented.client_id, presented.secret)
        if client is None or not presented.agree:
            await self.throttle.failed()
            raise OAuthError(401, "invalid_client", "The client id or secret is wrong")
        return client


@asynccontextmanager
async def _client_transaction(request: Request) -> AsyncIterator[tuple[AsyncSession, OAuthClient, dict[str, str]]]:
    """What `/token` and `/revoke` begin with (spec 5.3, 5.4): the form's fields, the client's
    credentials (throttled), and a transaction in which the client is found."""
    fields = await _token_fields(request)
    credentials = await _Credentials.admitted(request, fields)
    async with app_state(request).db.transaction() as db:
        yield db, await credentials.client(request, db), fields


def _json(body: dict[str, Any]) -> Response:
    return Response(dumps(body), media_type="application/json", headers={"Cache-Control": "no-store"})


@router.post("/token")
async def token(request: Request) -> Response:
    """spec 5.3: the code for the connection's token (the same one on re-authorisation)."""
    state = app_state(request)
    try:
        async with _client_transaction(request) as (db, client, fields):
            grant_type = fields.get("grant_type")
            if grant_type is not None and grant_type != "authorization_code":
                raise OAuthError(400, "unsupported_grant_type", "grant_type must be authorization_code")
            if not fields.get("code"):
                raise OAuthError(400, "invalid_request", "The code field is missing")
            body = await service.grant(
                db,
                state.key,
                client=client,
                code=fields["code"],
                redirect_uri=fields.get("redirect_uri"),
                code_verifier=fields.get("code_verifier"),
            )
        return _json(body)
    except service.CodeReplayed as replayed:  # refused, and what the code gave is revoked
        async with state.db.transaction() as db:
            await service.revoke_replayed(db, replayed)
        return _oauth_error(replayed)
    except ComptoirError as exc:
        return _oauth_error(exc)


def _oauth_error(exc: ComptoirError) -> Response:
    """The answer of a refused token or revoke request: an OAuth error; a 413 like any other
    body's (inputs.InputLimits), and a 503 like any other request's (docs/operations.md "When a
    dependency fails"), as themselves; any other error an OAuth `invalid_request`."""
    if not isinstance(exc, OAuthError | PayloadTooLarge | ServiceUnavailable):
        exc = OAuthError(400, "invalid_request", exc.message)
    return ErrorResponse(exc)


@router.post("/revoke")
async def revoke(request: Request) -> Response:
    """spec 5.4 item 2: the client's own token only; 200 then means it is unusable. An
    unknown token is already unusable: 200 too (RFC 7009 2.2)."""
    state = app_state(request)
    try:
        async with _client_transaction(request) as (db, client, fields):
            presented = fields.get("token")
            if not presented:
                raise OAuthError(400, "invalid_request", "The token field is missing")
            await service.revoke_token(db, state.key, client, presented)
        return _json({})
    except ComptoirError as exc:
        return _oauth_error(exc)
