"""Attacks on the back office's order pages and buttons (docs/back-office.md "Orders"):
another owner's orders, locations and accounts, missing or forged CSRF tokens, bad status
values, and markup in what customers and applications write. Each refusal changes nothing."""

from __future__ import annotations

import httpx
import pytest

from tests.api import conftest as api
from tests.api.conftest import Shop
from tests.api.orders.conftest import created
from tests.api.web.test_back_office_login import csrf_of, log_in
from tests.factories import World

SCRIPT = "<script>alert(1)</script>"
app, client, shop, world = api.app, api.client, api.shop, api.world  # the API's fixtures, here too


async def _theirs(client: httpx.AsyncClient, shop: Shop, world: World) -> tuple[str, str, str]:
    """Another owner's location, account and order (created through their own token)."""
    other = await world.user(email="mallory@example.com", first_name="Mal")
    account = await world.account(owner=other, name="Not yours", currency="EUR")
    location = await world.location(account, name="Not yours either")
    token = await world.token("location[orders.write]", location=location)
    order = await created(client, shop, {"status": "new"}, token)
    return location.public_id, account.public_id, order["id"]


async def test_another_owners_order_pages_are_not_found(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    location, account, order = await _theirs(client, shop, world)
    await log_in(client, "owner@example.com")
    for url, status in (
        (f"/locations/{location}/orders/{order}", 404),
        (f"/locations/{shop.location.public_id}/orders/{order}", 404),  # through a location of one's own
        (f"/locations/{location}/today", 404),
        (f"/locations/{location}/today/orders", 404),
        (f"/accounts/{account}/orders", 404),
        (f"/accounts/{shop.account.public_id}/orders?location={location}", 400),  # not a location of this account
    ):
        answer = await client.get(url)
        assert answer.status_code == status, url
        assert "Not yours" not in answer.text, url
        assert order not in answer.text, url


async def test_moving_another_owners_order_is_not_found_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    location, _account, order = await _theirs(client, shop, world)
    await log_in(client, "owner@example.com")
    csrf = csrf_of((await client.get("/")).text)
    before = await world.snapshot()
    for where in (location, shop.location.public_id):
        answer = await client.post(
            f"/locations/{where}/orders/{order}/status", data={"csrf": csrf, "status": "accepted", "seen": "new"}
        )
        assert answer.status_code == 404, where
    assert await world.snapshot() == before


@pytest.mark.parametrize("csrf", [None, "", "forged-token", "A" * 4000])
async def test_a_move_without_a_valid_csrf_token_is_refused_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World, csrf: str | None
) -> None:
    order = await created(client, shop, {"status": "new"})
    await log_in(client, "owner@example.com")
    before = await world.snapshot()
    form = {"status": "accepted", "seen": "new"} | ({"csrf": csrf} if csrf is not None else {})
    answer = await client.post(f"/locations/{shop.location.public_id}/orders/{order['id']}/status", data=form)
    assert answer.status_code == 403
    assert "This form has expired" in answer.text
    assert await world.snapshot() == before


async def test_a_move_by_someone_signed_out_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    order = await created(client, shop, {"status": "new"})
    form = {"csrf": csrf_of((await client.get("/login")).text), "status": "accepted", "seen": "new"}
    before = await world.snapshot()
    answer = await client.post(f"/locations/{shop.location.public_id}/orders/{order['id']}/status", data=form)
    assert (answer.status_code, answer.headers["location"]) == (303, "/login")
    assert await world.snapshot() == before


@pytest.mark.parametrize(
    ("status", "message"),
    [
        ("lost", "Status: &#39;lost&#39; is not an order status. Nothing was changed."),
        ("", "Status: &#39;&#39; is not an order status. Nothing was changed."),
        (SCRIPT, "Status: &#39;&lt;script&gt;alert(1)&lt;/script&gt;&#39; is not an order status."),
        ("x" * 10_000, "Status: &#39;" + "x" * 57 + "...&#39; is not an order status."),
        ("ACCEPTED", "Status: &#39;ACCEPTED&#39; is not an order status."),
    ],
)
async def test_a_bad_status_value_is_a_400_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World, status: str, message: str
) -> None:
    order = await created(client, shop, {"status": "new"})
    await log_in(client, "owner@example.com")
    url = f"/locations/{shop.location.public_id}/orders/{order['id']}"
    csrf = csrf_of((await client.get(url)).text)
    before = await world.snapshot()
    answer = await client.post(f"{url}/status", data={"csrf": csrf, "status": status, "seen": "new"})
    assert answer.status_code == 400
    assert message in answer.text
    assert SCRIPT not in answer.text
    assert await world.snapshot() == before


async def test_markup_written_by_customers_and_applications_is_shown_as_text(
    client: httpx.AsyncClient, shop: Shop
) -> None:
    body = {
        "status": "new",
        "ref": SCRIPT,
        "channel": SCRIPT,
        "customer_notes": SCRIPT,
        "seller_notes": SCRIPT,
        "customer": {"first_name": SCRIPT, "last_name": "<img src=x onerror=alert(1)>", "phone": SCRIPT},
        "items": [{"product_name": SCRIPT, "price": "1.00 EUR", "quantity": 1, "customer_notes": SCRIPT}],
    }
    order = await created(client, shop, body)
    await log_in(client, "owner@example.com")
    location = shop.location.public_id
    for url in (
        f"/locations/{location}/orders",
        f"/locations/{location}/orders/{order['id']}",
        f"/locations/{location}/today",
        f"/locations/{location}/today/orders",
        f"/accounts/{shop.account.public_id}/orders",
    ):
        answer = await client.get(url)
        assert answer.status_code == 200, url
        assert "<script>alert" not in answer.text, url
        assert "<img src=x" not in answer.text, url
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in answer.text, url


async def test_a_forged_cursor_on_the_board_leads_back_to_the_board(client: httpx.AsyncClient, shop: Shop) -> None:
    await log_in(client, "owner@example.com")
    board = f"/locations/{shop.location.public_id}/today"
    for url in (f"{board}?cursor=forged", f"{board}/orders?cursor=forged"):
        answer = await client.get(url)
        assert (answer.status_code, answer.headers["location"]) == (303, board), url


async def test_rejecting_another_owners_order_asked_or_confirmed_is_not_found_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    location, _account, order = await _theirs(client, shop, world)
    await log_in(client, "owner@example.com")
    csrf = csrf_of((await client.get("/")).text)
    before = await world.snapshot()
    for where in (location, shop.location.public_id):
        for confirmed in ("", "yes"):  # the question, and the answer to it
            answer = await client.post(
                f"/locations/{where}/orders/{order}/status",
                data={"csrf": csrf, "status": "rejected", "seen": "new", "confirmed": confirmed},
            )
            assert answer.status_code == 404, (where, confirmed)
            assert "Reject order" not in answer.text
    assert await world.snapshot() == before


async def test_undoing_the_completion_of_another_owners_order_is_not_found_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    other = await world.user(email="mallory@example.com", first_name="Mal")
    theirs = await world.location(await world.account(owner=other, name="Not yours"), name="Not yours either")
    token = await world.token("location[orders.write]", location=theirs)
    order = (await created(client, shop, {"status": "in_preparation", "service_type": "eat_in"}, token))["id"]
    completing = {"status": "completed"}  # by their own application, a moment ago
    assert (
        await client.patch(f"/v1/location/orders/{order}", json=completing, headers={"X-Access-Token": token})
    ).status_code == 200
    location = theirs.public_id
    await log_in(client, "owner@example.com")
    csrf = csrf_of((await client.get("/")).text)
    before = await world.snapshot()
    for where in (location, shop.location.public_id):
        answer = await client.post(
            f"/locations/{where}/orders/{order}/status",
            data={"csrf": csrf, "status": "in_preparation", "seen": "completed", "undo": "yes", "back": "board"},
        )
        assert answer.status_code == 404, where
        board = await client.get(f"/locations/{where}/today?completed={order}&from=in_preparation")
        assert 'id="board-undo"' not in board.text
    assert await world.snapshot() == before


@pytest.mark.parametrize("confirmed", ["", "yes"])
async def test_an_ending_without_its_csrf_token_is_refused_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World, confirmed: str
) -> None:
    order = await created(client, shop, {"status": "new"})
    await log_in(client, "owner@example.com")
    before = await world.snapshot()
    answer = await client.post(
        f"/locations/{shop.location.public_id}/orders/{order['id']}/status",
        data={"csrf": "forged", "status": "rejected", "seen": "new", "confirmed": confirmed},
    )
    assert answer.status_code == 403
    assert await world.snapshot() == before


async def test_markup_in_the_channel_and_name_is_text_on_the_question(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    body = {"status": "new", "channel": SCRIPT, "customer": {"first_name": SCRIPT}}
    order = await created(client, shop, body)
    await log_in(client, "owner@example.com")
    page = await client.get(f"/locations/{shop.location.public_id}/orders/{order['id']}")
    before = await world.snapshot()
    answer = await client.post(
        f"/locations/{shop.location.public_id}/orders/{order['id']}/status",
        data={"csrf": csrf_of(page.text), "status": "rejected", "seen": "new"},
    )
    assert answer.status_code == 200
    assert SCRIPT not in answer.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in answer.text
    assert await world.snapshot() == before  # the question changes nothing
