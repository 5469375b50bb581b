"""Drive the authorisation pages over HTTP as a browser would: follow the forms, keep the
cookie, post the CSRF token the page holds."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest

from comptoir.models import OAuthClient
from tests.factories import World

REDIRECT = "https://app.example/cb"
PASSWORD = "password123"


def form_of(page: str) -> tuple[str, dict[str, str]]:
    """The first form's action and hidden fields."""
    form = re.search(r'<form method="post" action="([^"]*)">(.*?)</form>', page, re.S)
    assert form is not None, page
    action = html.unescape(form.group(1))
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form.group(2)))
    return action, {k: html.unescape(v) for k, v in fields.items()}


def options(page: str, select: str) -> list[str]:
    block = re.search(rf'<select id="{select}"[^>]*>(.*?)</select>', page, re.S).group(1)  # type: ignore[union-attr]
    return re.findall(r'<option value="([^"]*)"', block)


def offered(page: str, select: str, target: str | None = None) -> list[str]:
    """The options of `select` a browser offers: none of a hidden group; with `target`, those
    whose group fits it, as the page's script leaves them when `target` is chosen."""
    block = re.search(rf'<select id="{select}"[^>]*>(.*?)</select>', page, re.S).group(1)  # type: ignore[union-attr]
    values, group = [], ""
    for opening, closing, value in re.findall(r'<optgroup([^>]*)>|(</optgroup>)|<option value="([^"]*)"', block):
        if opening:
            group = opening
        elif closing:
            group = ""
        else:
            fits = re.search(r'data-targets="([^"]*)"', group)
            if target is not None and fits is not None:
                if target in fits.group(1).split():
                    values.append(value)
            elif target is not None or " hidden" not in group:
                values.append(value)
    return values


def query_of(location: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


@dataclass
class Flow:
    http: httpx.AsyncClient
    client: OAuthClient
    secret: str

    def authorize_url(self, scope: str, **params: str) -> str:
        query = {"client_id": self.client.public_id, "redirect_uri": REDIRECT, "scope": scope, **params}
        return "/oauth2/v1/authorize?" + urlencode(query)

    async def post(self, page: httpx.Response, **fields: str) -> httpx.Response:
        action, hidden = form_of(page.text)
        return await self.http.post(action, data={**hidden, **fields})

    async def log_in(self, url: str, email: str, password: str = PASSWORD) -> httpx.Response:
        page = await self.http.get(url)
        assert page.status_code == 200, page.text
        done = await self.post(page, email=email, password=password)
        assert done.status_code == 303, done.text
        return await self.http.get(done.headers["location"])

    async def approve(self, url: str, email: str, **choices: str) -> httpx.Response:
        """Log in, choose (the first option of each select unless given), allow: the 303."""
        page = await self.http.get(url)
        if 'name="step" value="login"' in page.text:
            page = await self.log_in(url, email)
        action, hidden = form_of(page.text)
        for select in ("target", "catalog", "customer_list"):
            if f'<select id="{select}"' in page.text and select not in choices:
                choices[select] = offered(page.text, select, choices.get("target"))[0]
        return await self.http.post(action, data={**hidden, **choices, "step": "allow"})

    async def code(self, url: str, email: str, **choices: str) -> str:
        allowed = await self.approve(url, email, **choices)
        assert allowed.status_code == 303, allowed.text
        return query_of(allowed.headers["location"])["code"]

    async def exchange(self, code: str, **extra: Any) -> httpx.Response:
        return await self.http.post(
            "/oauth2/v1/token", data={"code": code, **extra}, auth=(self.client.public_id, self.secret)
        )


@pytest.fixture
async def flow(world: World, client: httpx.AsyncClient) -> Flow:
    from comptoir.applications.service import client_secret

    oauth_client = await world.client(name="Le Site", redirect_uris=[REDIRECT])
    return Flow(client, oauth_client, client_secret(world.key, oauth_client))
