"""The back office's developer area: register OAuth clients (name,
redirect URIs), see the client id, see the secret once, at registration or when
regenerating it, and reach each connection of the application (its request log).

Registering and regenerating post, then redirect (303) to `/developers/{id}/secret`, which
shows the secret only once: the post leaves a flash in the browser's session
(`users.sessions.flash`, the client's id, never the secret) that the page takes; a reload
finds none and goes to the application's page. Copy buttons are a small inline script
(`copy.js`), allowed by the page's CSP alone (docs/api/oauth.md "Registering an application").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import Request
from starlette.responses import Response

from comptoir.applications.service import (
    client_secret,
    clients_owned_by,
    create_client,
    edit_client,
    find_client,
    regenerate_secret,
)
from comptoir.connections.service import listed_of_client
from comptoir.errors import Unprocessable
from comptoir.http.state import app_state
from comptoir.models import OAuthClient
from comptoir.users import sessions
from comptoir.web.connections import listed_rows
from comptoir.web.render import Person, Problem, Visitor, crumbs, page, problems, redirect, text, yours

router = APIRouter(include_in_schema=False)

COPY_SCRIPT = (Path(__file__).parent / "templates" / "copy.js").read_text()


def _uris(value: str) -> list[str]:
    return [line.strip() for line in value.splitlines() if line.strip()]


CLIENT_FIELDS = {"name": "name", "redirect_uris": "redirect_uris"}
CLIENT_LABELS = {"name": "Application name", "redirect_uris": "Redirect URIs"}
DEVELOPERS = ("Developers", "/developers")


def _errors(exc: Unprocessable) -> list[Problem]:
    """Beside their fields; "Redirect uris[1]: ..." reads badly: the line is named instead."""
    return problems(exc, CLIENT_FIELDS, labels=CLIENT_LABELS, item="line")


async def _clients(db: AsyncSession, you: Visitor) -> list[OAuthClient]:
    return await clients_owned_by(db, you.user)


async def _connections_of(db: AsyncSession, client: OAuthClient) -> list[dict[str, Any]]:
    return listed_rows(await listed_of_client(db, client, limit=200))


def _developers_page(you: Visitor, clients: list[OAuthClient], form: dict[str, str], **extra: Any) -> Response:
    return page("bo_developers.html", title="Developers", crumbs=crumbs(), you=you, clients=clients, form=form, **extra)


@router.get("/developers")
async def developers(request: Request, you: Person) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        return _developers_page(you, await _clients(db, you), {"name": "", "redirect_uris": ""})


def _secret_flash(client: OAuthClient, fresh: bool) -> str:
    return f"secret:{client.public_id}:{'registered' if fresh else 'regenerated'}"


@router.post("/developers")
async def register(request: Request, you: Person) -> Response:
    form = await request.form()
    values = {"name": text(form, "name"), "redirect_uris": text(form, "redirect_uris")}
    async with app_state(request).db.transaction() as db:
        you.check(form)
        try:
            client = await create_client(
                db, name=values["name"], redirect_uris=_uris(values["redirect_uris"]), owner=you.user
            )
        except Unprocessable as exc:
            clients = await _clients(db, you)
            return _developers_page(you, clients, values, errors=_errors(exc), status=400)
        await sessions.flash(db, you.session, _secret_flash(client, fresh=True))
    return redirect(f"/developers/{client.public_id}/secret")


@router.get("/developers/{client_id}/secret")
async def secret_page(request: Request, you: Person, client_id: str) -> Response:
    """The secret, once after the post that made it (see the module's docstring)."""
    async with app_state(request).db.transaction() as db:
        client = await _owned_client(db, you, client_id)
        for fresh in (True, False):
            if await sessions.take_flash(db, you.session, _secret_flash(client, fresh)):
                return page(
                    "bo_client_secret.html",
                    title=f"{client.name}: its secret",
                    crumbs=crumbs(None, None, DEVELOPERS, (client.name, f"/developers/{client.public_id}")),
                    scripts=(COPY_SCRIPT,),
                    copy_script=COPY_SCRIPT,
                    you=you,
                    client=client,
                    secret=client_secret(app_state(request).key, client),
                    fresh=fresh,
                )
    return redirect(f"/developers/{client_id}")


async def _owned_client(db: AsyncSession, you: Visitor, public_id: str) -> OAuthClient:
    return yours(you.user, await find_client(db, public_id), "application")


def _client_page(
    you: Visitor, client: OAuthClient, form: dict[str, str], connections: list[dict[str, Any]], **extra: Any
) -> Response:
    return page(
        "bo_client.html",
        title=client.name,
        crumbs=crumbs(None, None, DEVELOPERS),
        you=you,
        client=client,
        form=form,
        connections=connections,
        **extra,
    )


@router.get("/developers/{client_id}")
async def client_page(request: Request, you: Person, client_id: str) -> Response:
    async with app_state(request).db.transaction(write=False) as db:
        client = await _owned_client(db, you, client_id)
        form = {"name": client.name, "redirect_uris": "\n".join(client.redirect_uris)}
        saved = request.query_params.get("saved") == "1"
        return _client_page(you, client, form, await _connections_of(db, client), saved=saved)


@router.post("/developers/{client_id}")
async def save_client(request: Request, you: Person, client_id: str) -> Response:
    form = await request.form()
    values = {"name": text(form, "name"), "redirect_uris": text(form, "redirect_uris")}
    async with app_state(request).db.transaction() as db:
        you.check(form)
        client = await _owned_client(db, you, client_id)
        try:
            await edit_client(db, client, name=values["name"], redirect_uris=_uris(values["redirect_uris"]))
        except Unprocessable as exc:
            listed = await _connections_of(db, client)  # nothing was changed
            return _client_page(you, client, values, listed, errors=_errors(exc), status=400)
    return redirect(f"/developers/{client_id}?saved=1")


@router.post("/developers/{client_id}/secret")
async def new_secret(request: Request, you: Person, client_id: str) -> Response:
    form = await request.form()
    async with app_state(request).db.transaction() as db:
        you.check(form)
        client = await _owned_client(db, you, client_id)
        await regenerate_secret(db, client)
        await sessions.flash(db, you.session, _secret_flash(client, fresh=False))
    return redirect(f"/developers/{client_id}/secret")
