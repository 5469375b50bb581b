"""docs/operations.md "Back office": developers register OAuth clients, see the secret once,
regenerate it."""

from __future__ import annotations

import base64
import hashlib
import re

import httpx
from sqlalchemy import select

from comptoir.models import OAuthClient
from tests.api.conftest import Shop
from tests.api.web.test_back_office_login import csrf_of, log_in
from tests.factories import World


def output(page: str, label: str) -> str:
    found = re.search(rf'<output id="[^"]+" aria-label="{label}">([^<]+)</output>', page)
    assert found is not None, page
    return found.group(1)


async def register(client: httpx.AsyncClient, name: str, uris: str) -> httpx.Response:
    """Post the form; a registration's 303 is followed to the page that shows the secret."""
    page = await client.get("/developers")
    posted = await client.post("/developers", data={"csrf": csrf_of(page.text), "name": name, "redirect_uris": uris})
    if posted.status_code != 303:
        return posted
    return await client.get(posted.headers["location"])


async def secret_works(client: httpx.AsyncClient, client_id: str, secret: str) -> bool:
    """The token endpoint tells a known secret (invalid_grant for a bad code) from an
    unknown one (invalid_client)."""
    basic = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
    answer = await client.post(
        "/oauth2/v1/token",
        data={"grant_type": "authorization_code", "code": "nope", "redirect_uri": "https://app.example/cb"},
        headers={"Authorization": f"Basic {basic}"},
    )
    return answer.json()["error"] != "invalid_client"


async def test_registering_shows_the_client_id_and_the_secret_once(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    created = await register(client, "Ada's till", "https://till.example/cb\n\nurn:ietf:wg:oauth:2.0:oob\n")
    assert created.status_code == 200
    client_id, secret = output(created.text, "Client id"), output(created.text, "Client secret")
    assert "it is shown only this once" in created.text
    assert await secret_works(client, client_id, secret)
    async with world.db.transaction(write=False) as session:
        row = await session.scalar(select(OAuthClient).where(OAuthClient.name == "Ada's till"))
        assert row is not None
        assert row.redirect_uris == ["https://till.example/cb", "urn:ietf:wg:oauth:2.0:oob"]
    listing = await client.get("/developers")
    assert f'<a href="/developers/{client_id}">Ada&#39;s till</a>' in listing.text
    details = await client.get(f"/developers/{client_id}")
    assert client_id in details.text
    assert secret not in details.text  # never shown again


async def test_regenerating_the_secret_replaces_it_at_once(client: httpx.AsyncClient, shop: Shop) -> None:
    await log_in(client, "owner@example.com")
    created = await register(client, "Till", "https://till.example/cb")
    client_id, first = output(created.text, "Client id"), output(created.text, "Client secret")
    page = await client.get(f"/developers/{client_id}")
    posted = await client.post(f"/developers/{client_id}/secret", data={"csrf": csrf_of(page.text)})
    assert (posted.status_code, posted.headers["location"]) == (303, f"/developers/{client_id}/secret")
    renewed = await client.get(posted.headers["location"])
    assert renewed.status_code == 200
    assert "A new secret replaces the former one" in renewed.text
    second = output(renewed.text, "Client secret")
    assert second != first
    assert not await secret_works(client, client_id, first)
    assert await secret_works(client, client_id, second)


async def test_bad_clients_are_refused_with_every_reason_and_change_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    before = await world.snapshot()
    refused = await register(client, "", "https://ok.example/cb\nnot a uri\nhttps://x.example/cb#frag")
    assert refused.status_code == 400
    assert "Application name: must be 1 to 255 characters" in refused.text
    assert "Redirect URIs, line 2: &#39;not a uri&#39; is not an absolute URI without fragment" in refused.text
    assert "Redirect URIs, line 3:" in refused.text
    assert "not a uri" in refused.text  # what was written is kept
    assert await world.snapshot() == before


async def test_editing_a_client_and_other_peoples_clients(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    theirs = await world.client(name="Someone else's")
    await log_in(client, "owner@example.com")
    created = await register(client, "Till", "https://till.example/cb")
    client_id = output(created.text, "Client id")
    page = await client.get(f"/developers/{client_id}")
    saved = await client.post(
        f"/developers/{client_id}",
        data={"csrf": csrf_of(page.text), "name": "Till 2", "redirect_uris": "https://till.example/v2"},
    )
    assert (saved.status_code, saved.headers["location"]) == (303, f"/developers/{client_id}?saved=1")
    assert "https://till.example/v2</textarea>" in (await client.get(f"/developers/{client_id}")).text
    assert (await client.get(f"/developers/{theirs.public_id}")).status_code == 404
    before = await world.snapshot()
    stolen = await client.post(f"/developers/{theirs.public_id}/secret", data={"csrf": csrf_of(page.text)})
    assert stolen.status_code == 404
    forged = await client.post(f"/developers/{client_id}/secret", data={"csrf": "forged"})
    assert forged.status_code == 403
    assert "<h1>This form has expired</h1>" in forged.text  # docs/back-office.md: a bad CSRF token
    assert await world.snapshot() == before


async def test_a_refused_edit_changes_nothing(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    await log_in(client, "owner@example.com")
    client_id = output((await register(client, "Till", "https://till.example/cb")).text, "Client id")
    page = await client.get(f"/developers/{client_id}")
    before = await world.snapshot()
    refused = await client.post(
        f"/developers/{client_id}", data={"csrf": csrf_of(page.text), "name": "", "redirect_uris": "nope"}
    )
    assert refused.status_code == 400
    assert "Application name: must be 1 to 255 characters" in refused.text
    assert "Redirect URIs, line 1: &#39;nope&#39; is not an absolute URI without fragment" in refused.text
    assert await world.snapshot() == before


async def _clients(world: World) -> list[str]:
    """The names of the clients registered on the Developers page (those with an owner)."""
    async with world.db.transaction(write=False) as session:
        rows = await session.scalars(select(OAuthClient.name).where(OAuthClient.owner_id.is_not(None)))
        return list(rows)


async def test_registering_redirects_to_the_secret_shown_once_and_a_reload_registers_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    page = await client.get("/developers")
    posted = await client.post(
        "/developers", data={"csrf": csrf_of(page.text), "name": "Till", "redirect_uris": "https://till.example/cb"}
    )
    assert posted.status_code == 303
    secret_url = posted.headers["location"]
    client_id = secret_url.removeprefix("/developers/").removesuffix("/secret")
    shown = await client.get(secret_url)
    assert shown.status_code == 200
    assert output(shown.text, "Client id") == client_id
    secret = output(shown.text, "Client secret")
    assert await secret_works(client, client_id, secret)
    assert '<button type="button" class="secondary" data-copy="client-secret"' in shown.text
    reloaded = await client.get(secret_url)
    assert (reloaded.status_code, reloaded.headers["location"]) == (303, f"/developers/{client_id}")
    assert secret not in (await client.get(reloaded.headers["location"])).text
    assert await _clients(world) == ["Till"]


async def test_the_secret_page_runs_its_copy_script_and_no_other(client: httpx.AsyncClient, shop: Shop) -> None:
    await log_in(client, "owner@example.com")
    shown = await register(client, "Till", "https://till.example/cb")
    script = shown.text.split("<script>")[1].split("</script>")[0]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    policy = shown.headers["content-security-policy"]
    assert policy.endswith(f"; script-src 'sha256-{digest}'")
    assert "navigator.clipboard.writeText" in script
    assert "script-src" not in (await client.get("/developers")).headers["content-security-policy"]
