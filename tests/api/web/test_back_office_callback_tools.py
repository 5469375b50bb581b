"""docs/api/callbacks-events.md "Testing, resending and replaying", "Automatic disable": the
connection page's callback tools (CSRF-protected forms calling the callback services) and
the account's notices."""

from __future__ import annotations

import html
from collections.abc import Iterator

import httpx
import pytest

from comptoir.accounts import service as accounts
from comptoir.callbacks import repository
from comptoir.kit import clock
from tests.api.callbacks.conftest import subscribe
from tests.api.conftest import Shop
from tests.api.web.test_back_office_connections import connection_of
from tests.api.web.test_back_office_login import csrf_of, log_in
from tests.factories import World
from tests.receiver import Receiver, running_receiver


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running_receiver() as running:
        yield running


async def tool(client: httpx.AsyncClient, public_id: str, action: str, **fields: str) -> httpx.Response:
    page = await client.get(f"/connections/{public_id}")
    return await client.post(f"/connections/{public_id}/callback/{action}", data={"csrf": csrf_of(page.text), **fields})


async def test_the_connection_page_sends_a_test_event_and_shows_its_outcome(
    client: httpx.AsyncClient, shop: Shop, world: World, receiver: Receiver
) -> None:
    await subscribe(client, shop.location_token, {"location": ["update"]}, receiver.url("/hook"))
    await log_in(client, "owner@example.com")
    connection = await connection_of(world, shop.location_token)
    answer = await tool(client, connection.public_id, "test")
    assert answer.status_code == 200
    [request] = receiver.requests_to("/hook")
    event_id = request.headers["webhook-id"]
    assert f"Test event {event_id}: delivered (status 200)." in answer.text


async def test_the_signing_secret_is_shown_only_on_demand_and_rotates(
    client: httpx.AsyncClient, shop: Shop, world: World, receiver: Receiver
) -> None:
    await subscribe(client, shop.location_token, {"location": ["update"]}, receiver.url("/hook"))
    secret = (await client.get("/v1/callback/signing_secret", headers=shop.headers())).json()["secret"]
    await log_in(client, "owner@example.com")
    connection = await connection_of(world, shop.location_token)
    assert "whsec_" not in (await client.get(f"/connections/{connection.public_id}")).text
    shown = await tool(client, connection.public_id, "secret")
    assert f"<code>{html.escape(secret)}</code>" in shown.text
    rotated = await tool(client, connection.public_id, "rotate")
    new = (await client.get("/v1/callback/signing_secret", headers=shop.headers())).json()["secret"]
    assert new != secret
    assert f"<code>{html.escape(new)}</code>" in rotated.text


async def test_a_tool_without_the_form_token_is_refused_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World, receiver: Receiver
) -> None:
    await subscribe(client, shop.location_token, {"location": ["update"]}, receiver.url("/hook"))
    await log_in(client, "owner@example.com")
    connection = await connection_of(world, shop.location_token)
    before = await world.snapshot()
    for action in ("test", "rotate", "replay", "enable", "resend", "secret"):
        answer = await client.post(f"/connections/{connection.public_id}/callback/{action}", data={"csrf": "x"})
        assert answer.status_code == 403, action
        assert "whsec_" not in answer.text
    assert receiver.requests_to("/hook") == []
    assert await world.snapshot() == before


async def test_a_bad_replay_range_is_shown_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World, receiver: Receiver
) -> None:
    await subscribe(client, shop.location_token, {"location": ["update"]}, receiver.url("/hook"))
    await log_in(client, "owner@example.com")
    connection = await connection_of(world, shop.location_token)
    page = await client.get(f"/connections/{connection.public_id}")  # the request log is written now
    before = await world.snapshot()
    answer = await client.post(
        f"/connections/{connection.public_id}/callback/replay",
        data={"csrf": csrf_of(page.text), "from": "2026-01-02T00:00:00Z", "to": "2026-01-01T00:00:00Z"},
    )
    assert answer.status_code == 200
    assert "to: &#39;2026-01-01T00:00:00Z&#39; must be after from (&#39;2026-01-02T00:00:00Z&#39;)" in answer.text
    assert await world.snapshot() == before


async def test_a_disabled_callback_shows_its_reason_a_notice_and_can_be_enabled(
    client: httpx.AsyncClient, shop: Shop, world: World, receiver: Receiver
) -> None:
    await subscribe(client, shop.location_token, {"location": ["update"]}, receiver.url("/hook"))
    connection = await connection_of(world, shop.location_token)
    reason = "every delivery attempt failed since 2026-01-01T00:00:00Z (last: status 503)"
    async with world.db.transaction() as session:
        assert await repository.disable(session, connection.id, clock.now(), reason)
        await accounts.add_notice(session, connection.id, clock.now(), f"A callback was disabled: {reason}.")
    await log_in(client, "owner@example.com")
    page = await client.get(f"/connections/{connection.public_id}")
    assert html.escape(reason) in page.text
    account = await client.get(f"/accounts/{shop.account.public_id}")
    assert html.escape(f"A callback was disabled: {reason}.") in account.text
    enabled = await tool(client, connection.public_id, "enable")
    assert "The callback is enabled" in enabled.text
    assert (await client.get("/v1/callback", headers=shop.headers())).json()["disabled_at"] is None
    notice_id = account.text.split("/notices/")[1].split("/")[0]
    dismissed = await client.post(
        f"/accounts/{shop.account.public_id}/notices/{notice_id}/dismiss", data={"csrf": csrf_of(account.text)}
    )
    assert dismissed.status_code == 303
    assert "A callback was disabled" not in (await client.get(f"/accounts/{shop.account.public_id}")).text


async def test_the_connection_page_says_that_an_application_never_receives_its_own_changes(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    connection = await connection_of(world, shop.location_token)
    page = await client.get(f"/connections/{connection.public_id}")
    assert (
        "The application is told of changes to what it can see, except the changes it makes itself, "
        "through any of its connections."
    ) in page.text
