"""`comptoir admin create-client --owner EMAIL`: the application belongs to that user, who
sees and edits it on the back office's Developers page (docs/api/oauth.md "Registering an
application")."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from tests.api.conftest import Shop, app, client, shop, world  # noqa: F401 - fixtures
from tests.api.web.test_back_office_login import csrf_of, log_in
from tests.cli.conftest import refused
from tests.cli.test_admin import Cli, Snapshot, make_user


def test_create_client_with_an_owner_prints_the_owner(cli: Cli) -> None:
    make_user(cli, "dev@example.com")
    body = cli("admin", "create-client", "--name", "POS", "--owner", "DEV@example.com").json
    assert set(body) == {"client_id", "client_secret", "name", "redirect_uris", "owner"}
    assert (body["name"], body["redirect_uris"], body["owner"]) == ("POS", [], "dev@example.com")


def test_an_unknown_owner_is_refused_and_creates_nothing(cli: Cli, snapshot: Snapshot) -> None:
    make_user(cli, "dev@example.com")
    before = snapshot()
    refused(
        cli("admin", "create-client", "--name", "POS", "--owner", "nobody@example.com"),
        "no user with email nobody@example.com",
    )
    assert snapshot() == before


async def test_the_owner_sees_and_edits_the_client_on_the_developers_page(
    cli: Cli,
    client: httpx.AsyncClient,  # noqa: F811 - fixture
    shop: Shop,  # noqa: F811 - fixture
) -> None:
    def run() -> dict[str, Any]:
        return cli("admin", "create-client", "--name", "Till", "--owner", "owner@example.com").json  # type: ignore[no-any-return]

    made = await asyncio.to_thread(run)
    await log_in(client, "owner@example.com")
    listing = await client.get("/developers")
    assert f'<a href="/developers/{made["client_id"]}">Till</a>' in listing.text
    page = await client.get(f"/developers/{made['client_id']}")
    assert page.status_code == 200
    saved = await client.post(
        f"/developers/{made['client_id']}",
        data={"csrf": csrf_of(page.text), "name": "Till 2", "redirect_uris": "https://till.example/cb"},
    )
    assert (saved.status_code, saved.headers["location"]) == (303, f"/developers/{made['client_id']}?saved=1")
    assert "Till 2" in (await client.get("/developers")).text
