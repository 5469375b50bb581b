"""docs/back-office.md "Orders": moving an order along the workflow from the back office (the
API's own update, the same `order.update` event), the account-wide list and the live board's
list, on both databases."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest

from comptoir.kit import clock
from comptoir.orders import workflow
from comptoir.web import data
from comptoir.web.board import BOARD_SCRIPT
from tests.api.callbacks.conftest import Listener, new_listener, subscribe
from tests.api.conftest import Shop
from tests.api.orders.conftest import ORDER, created
from tests.api.web.test_back_office_data import T0, flat, order_ids, orders_url, placed_at, shown
from tests.api.web.test_back_office_login import csrf_of, log_in
from tests.factories import World


@pytest.fixture
async def listener(world: World, shop: Shop) -> Listener:
    """A connection of another application, reading the shop's events."""
    return await new_listener(world, shop, "Listening app")


async def move(
    client: httpx.AsyncClient, shop: Shop, order_id: str, to: str, seen: str, **extra: str
) -> httpx.Response:
    """The button `to` of the order's page, as that page (showing the order in `seen`) posts it."""
    page = await client.get(f"{orders_url(shop)}/{order_id}")
    form = {"csrf": csrf_of(page.text), "status": to, "seen": seen, **extra}
    return await client.post(f"{orders_url(shop)}/{order_id}/status", data=form)


async def status_of(client: httpx.AsyncClient, shop: Shop, order_id: str) -> str:
    answer = await client.get(f"/v1/location/orders/{order_id}", headers=shop.headers())
    assert answer.status_code == 200, answer.text
    return str(answer.json()["status"])


async def events_of(client: httpx.AsyncClient, listener: Listener) -> list[dict[str, Any]]:
    listed = (await client.get("/v1/callback/events", headers=listener.headers())).json()
    return [
        (await client.get(f"/v1/callback/events/{event['id']}", headers=listener.headers())).json() for event in listed
    ]


# Every move of the workflow: (service type, from, to).
MOVES = [
    (service_type, status, to)
    for service_type in (None, "collection", "delivery", "eat_in")
    for status in workflow.OPEN
    for to in workflow.next_statuses(status, service_type)
    if service_type is None or status == "in_preparation"
]


async def test_each_allowed_move_changes_the_status_and_records_one_order_update(
    client: httpx.AsyncClient, shop: Shop, listener: Listener
) -> None:
    await subscribe(client, listener.token, {"order": ["update"]})
    made = [(await created(client, shop, {"status": status, "service_type": kind}))["id"] for kind, status, _ in MOVES]
    await log_in(client, "owner@example.com")
    for order_id, (_kind, status, to) in zip(made, MOVES, strict=True):
        answer = await move(
            client, shop, order_id, to, status, **({"confirmed": "yes"} if to in workflow.ENDINGS else {})
        )
        assert (answer.status_code, answer.headers["location"]) == (303, f"{orders_url(shop)}/{order_id}")
        assert await status_of(client, shop, order_id) == to
    events = await events_of(client, listener)
    assert [(e["new_state"]["id"], e["previous_state"]["status"], e["new_state"]["status"]) for e in events] == [
        (order_id, status, to) for order_id, (_kind, status, to) in zip(made, MOVES, strict=True)
    ]


async def test_a_move_records_the_event_an_api_patch_records(
    client: httpx.AsyncClient, shop: Shop, listener: Listener
) -> None:
    await subscribe(client, listener.token, {"order": ["update"]})
    clock.freeze(T0)
    ours, theirs = [(await created(client, shop, ORDER))["id"] for _ in range(2)]
    await log_in(client, "owner@example.com")
    clock.freeze(T0 + timedelta(minutes=3))
    assert (await move(client, shop, ours, "accepted", "new")).status_code == 303
    patched = await client.patch(f"/v1/location/orders/{theirs}", json={"status": "accepted"}, headers=shop.headers())
    assert patched.status_code == 200
    clock.reset()
    by_back_office, by_api = await events_of(client, listener)
    assert by_back_office["new_state"]["id"] == ours
    same = {**by_back_office, "id": by_api["id"], "order_id": theirs}
    for state in ("previous_state", "new_state"):  # the same order but for its ids
        same[state] = {**by_back_office[state], "id": theirs}
        same[state]["items"] = [
            {**item, "id": other["id"]}
            for item, other in zip(by_back_office[state]["items"], by_api[state]["items"], strict=True)
        ]
        for collection in ("discounts", "charges", "payments"):
            same[state][collection] = by_api[state][collection]
    assert same == by_api
    assert by_back_office["new_state"] == {**patched.json(), "id": ours, **{
        name: by_back_office["new_state"][name] for name in ("items", "discounts", "charges", "payments", "private_ref")
    }}  # fmt: skip


async def test_a_move_from_the_board_returns_to_the_board(client: httpx.AsyncClient, shop: Shop) -> None:
    order = await created(client, shop, {"status": "new"})
    await log_in(client, "owner@example.com")
    answer = await move(client, shop, order["id"], "accepted", "new", back="board")
    assert (answer.status_code, answer.headers["location"]) == (303, f"/locations/{shop.location.public_id}/today")
    assert await status_of(client, shop, order["id"]) == "accepted"


async def completed_from_the_board(client: httpx.AsyncClient, shop: Shop) -> tuple[str, httpx.Response]:
    """An eat-in order in preparation, completed from the board: its id, and the board the
    completion came back to."""
    order = await created(client, shop, {"status": "in_preparation", "service_type": "eat_in"})
    await log_in(client, "owner@example.com")
    answer = await move(client, shop, order["id"], "completed", "in_preparation", back="board")
    assert answer.status_code == 303
    return order["id"], await client.get(answer.headers["location"])


async def offers_undo(client: httpx.AsyncClient, shop: Shop, query: str) -> bool:
    board = await client.get(f"/locations/{shop.location.public_id}/today?{query}")
    assert board.status_code == 200
    return 'id="board-undo"' in board.text


UNDO = re.compile(r'<form method="post" action="([^"]+)" class="notice board-undo".*?</form>', re.S)


def undo_form(board: str) -> dict[str, str]:
    """The board's undo form: its action and fields."""
    found = UNDO.search(board)
    assert found is not None, "no undo on the board"
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', found.group(0)))
    return {"action": found.group(1), **fields}


async def test_a_completion_from_the_board_offers_an_undo_that_moves_it_back(
    client: httpx.AsyncClient, shop: Shop, listener: Listener
) -> None:
    await subscribe(client, listener.token, {"order": ["update"]})
    order_id, board = await completed_from_the_board(client, shop)
    assert board.status_code == 200
    assert f"Order {order_id} completed." in board.text
    form = undo_form(board.text)
    assert form["action"] == f"{orders_url(shop)}/{order_id}/status"
    assert (form["status"], form["seen"], form["undo"], form["back"]) == ("in_preparation", "completed", "yes", "board")
    action = form.pop("action")
    answer = await client.post(action, data=form)
    assert (answer.status_code, answer.headers["location"]) == (303, f"/locations/{shop.location.public_id}/today")
    assert await status_of(client, shop, order_id) == "in_preparation"
    updates = [e["new_state"]["status"] for e in await events_of(client, listener) if e["event_type"] == "update"]
    assert updates == ["completed", "in_preparation"]
    assert 'id="board-undo"' not in (await client.get(answer.headers["location"])).text


async def test_an_undo_past_its_time_is_refused_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    order_id, board = await completed_from_the_board(client, shop)
    form = undo_form(board.text)
    clock.freeze(clock.now() + timedelta(seconds=workflow.UNDO_SECONDS + 1))
    assert not await offers_undo(client, shop, f"completed={order_id}&from=in_preparation")
    before = await world.snapshot()
    answer = await client.post(form.pop("action"), data=form)
    assert answer.status_code == 409
    assert (
        "A completion can be undone only within 60 seconds: the order stays completed. Nothing was changed."
        in answer.text
    )
    assert await world.snapshot() == before
    assert await status_of(client, shop, order_id) == "completed"


async def test_an_undo_of_an_order_no_longer_completed_is_refused_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    order_id, board = await completed_from_the_board(client, shop)
    form = undo_form(board.text)
    own = f"/v1/location/orders/{order_id}"
    assert (await client.patch(own, json={"status": "cancelled"}, headers=shop.headers())).status_code == 200
    before = await world.snapshot()
    answer = await client.post(form.pop("action"), data=form)
    assert answer.status_code == 409
    assert "This order changed since the page showed it; it is now “Cancelled”." in answer.text
    assert await world.snapshot() == before


async def test_an_undo_to_a_status_no_order_is_completed_from_is_refused_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    order_id, board = await completed_from_the_board(client, shop)
    form = undo_form(board.text) | {"status": "new"}
    assert not await offers_undo(client, shop, f"completed={order_id}&from=new")
    before = await world.snapshot()
    answer = await client.post(form.pop("action"), data=form)
    assert answer.status_code == 409
    assert "An order that is “Completed” cannot become “New”. Nothing was changed." in answer.text
    assert await world.snapshot() == before


async def test_a_board_address_naming_no_order_of_its_location_offers_no_undo(
    client: httpx.AsyncClient, shop: Shop
) -> None:
    await log_in(client, "owner@example.com")
    for query in ("completed=nosuch&from=in_preparation", "completed=<script>&from=x", "from=in_preparation"):
        assert not await offers_undo(client, shop, query)


@pytest.mark.parametrize(("status", "to", "question", "yes"), [
    ("new", "rejected", "Reject order {}?", "Yes, reject it"),
    ("accepted", "cancelled", "Cancel order {}?", "Yes, cancel it"),
    ("in_delivery", "delivery_failed", "Mark order {} as not delivered?", "Yes, delivery failed"),
])  # fmt: skip
async def test_an_ending_asks_first_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World, status: str, to: str, question: str, yes: str
) -> None:
    order = await created(client, shop, {"status": status, "channel": "Ordering site"})
    await log_in(client, "owner@example.com")
    before = await world.snapshot()
    answer = await move(client, shop, order["id"], to, status, back="board")
    assert answer.status_code == 200
    page = flat(answer)
    assert f"<title>{question.format(order['id'])} · Comptoir</title>" in page
    assert "<strong>This cannot be undone.</strong>" in page
    assert "leaves the board; “Ordering site” is told." in page
    assert (
        f'<input type="hidden" name="status" value="{to}"> <input type="hidden" name="seen" value="{status}">'
        ' <input type="hidden" name="back" value="board"> <input type="hidden" name="confirmed" value="yes">'
        f' <button type="submit" class="danger">{yes}</button>'
    ) in page
    assert f'<a href="/locations/{shop.location.public_id}/today">No, keep it</a>' in page
    assert await world.snapshot() == before


async def test_a_confirmed_ending_moves_the_order(client: httpx.AsyncClient, shop: Shop) -> None:
    order = await created(client, shop, {"status": "new"})
    await log_in(client, "owner@example.com")
    answer = await move(client, shop, order["id"], "rejected", "new", back="board", confirmed="yes")
    assert (answer.status_code, answer.headers["location"]) == (303, f"/locations/{shop.location.public_id}/today")
    assert await status_of(client, shop, order["id"]) == "rejected"


async def test_the_history_names_the_person_who_moved_the_order(client: httpx.AsyncClient, shop: Shop) -> None:
    order = await created(client, shop, {"status": "new"})
    await log_in(client, "owner@example.com")
    assert (await move(client, shop, order["id"], "accepted", "new")).status_code == 303
    page = await shown(client, f"{orders_url(shop)}/{order['id']}")
    assert re.findall(r'<td data-label="What happened">([^<]+)</td>', page) == [
        "Created by Test app",
        "Accepted by owner@example.com",
    ]


@pytest.mark.parametrize(("status", "to"), [("new", "completed"), ("accepted", "accepted"), ("completed", "new")])
async def test_a_move_the_workflow_does_not_allow_is_refused_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World, status: str, to: str
) -> None:
    order = await created(client, shop, {"status": status})
    await log_in(client, "owner@example.com")
    page = await client.get(f"{orders_url(shop)}/{order['id']}")
    before = await world.snapshot()
    answer = await client.post(
        f"{orders_url(shop)}/{order['id']}/status", data={"csrf": csrf_of(page.text), "status": to, "seen": status}
    )
    assert answer.status_code == 409
    words = {"new": "New", "accepted": "Accepted", "completed": "Completed"}
    assert f"An order that is “{words[status]}” cannot become “{words[to]}”. Nothing was changed." in answer.text
    assert await world.snapshot() == before


async def test_a_stale_form_is_refused_and_changes_nothing(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    order = await created(client, shop, {"status": "new"})
    await log_in(client, "owner@example.com")
    page = await client.get(f"{orders_url(shop)}/{order['id']}")  # shows it new, with Accept
    own = f"/v1/location/orders/{order['id']}"
    assert (await client.patch(own, json={"status": "received"}, headers=shop.headers())).status_code == 200
    before = await world.snapshot()
    answer = await client.post(
        f"{orders_url(shop)}/{order['id']}/status",
        data={"csrf": csrf_of(page.text), "status": "accepted", "seen": "new"},
    )
    assert answer.status_code == 409
    assert "This order changed since the page showed it; it is now “Received”." in answer.text
    assert '<span class="tag tag-warn">Received</span>' in answer.text  # the order as it stands
    assert await world.snapshot() == before
    assert await status_of(client, shop, order["id"]) == "received"


async def test_two_clicks_at_once_move_the_order_once(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    order = await created(client, shop, {"status": "new"})
    await log_in(client, "owner@example.com")
    page = await client.get(f"{orders_url(shop)}/{order['id']}")
    form = {"csrf": csrf_of(page.text), "status": "accepted", "seen": "new"}
    url = f"{orders_url(shop)}/{order['id']}/status"
    answers = await asyncio.gather(*(client.post(url, data=form) for _ in range(2)))
    assert sorted(answer.status_code for answer in answers) == [303, 409]
    updates = [c for c in await world.changes() if (c.resource_type, c.event_type) == ("order", "update")]
    assert len(updates) == 1


# --- the account's orders -------------------------------------------------------------------


async def test_the_account_list_shows_every_locations_orders(client: httpx.AsyncClient, shop: Shop) -> None:
    paris = await placed_at(client, shop, T0, {"status": "new"})
    lyon = await placed_in(client, shop, T0 + timedelta(hours=1), {"status": "accepted"})
    await log_in(client, "owner@example.com")
    url = f"/accounts/{shop.account.public_id}/orders"
    page = await shown(client, url)
    assert "<title>Orders · Chez Ada · Comptoir</title>" in page
    assert order_ids(page) == [lyon["id"], paris["id"]]
    assert "<th>Location</th>" in page
    assert '<td data-label="Location">Chez Ada Lyon</td>' in page
    assert '<td data-label="Location">Chez Ada Paris</td>' in page
    assert f'href="/locations/{shop.other_location.public_id}/orders/{lyon["id"]}"' in page
    assert order_ids(await shown(client, f"{url}?status=new")) == [paris["id"]]
    assert order_ids(await shown(client, f"{url}?location={shop.other_location.public_id}")) == [lyon["id"]]
    assert order_ids(await shown(client, f"{url}?from=2026-06-25")) == []
    assert order_ids(await shown(client, f"{url}?from=2026-06-24&to=2026-06-24")) == [lyon["id"], paris["id"]]
    assert "Location: choose one of the account&#39;s locations" in await shown(client, f"{url}?location=nope", 400)


async def placed_in(client: httpx.AsyncClient, shop: Shop, at: Any, body: dict[str, Any]) -> dict[str, Any]:
    """An order of the shop's other location (through the account token) at `at`."""
    clock.freeze(at)
    answer = await client.post(
        f"/v1/locations/{shop.other_location.public_id}/orders", json=body, headers=shop.headers(shop.account_token)
    )
    clock.reset()
    assert answer.status_code == 200, answer.text
    return answer.json()


async def test_the_account_list_is_paginated_keeping_its_filters(
    client: httpx.AsyncClient, shop: Shop, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(data, "PAGE_SIZE", 1)
    first = await placed_at(client, shop, T0, {"status": "new"})
    second = await placed_in(client, shop, T0 + timedelta(hours=1), {"status": "new"})
    await log_in(client, "owner@example.com")
    url = f"/accounts/{shop.account.public_id}/orders"
    page = await shown(client, f"{url}?status=new")
    assert order_ids(page) == [second["id"]]
    found = re.search(r'<a href="\?status=new&amp;cursor=([\w-]+)">Next</a>', page)
    assert found is not None, page
    after = await shown(client, f"{url}?status=new&cursor={found.group(1)}")
    assert order_ids(after) == [first["id"]]
    assert ">Next</a>" not in after


# --- the board --------------------------------------------------------------------------------


async def test_the_board_lists_todays_open_orders_only(client: httpx.AsyncClient, shop: Shop) -> None:
    yesterday = await placed_at(client, shop, T0 - timedelta(days=1), {"status": "new"})
    opened = [await placed_at(client, shop, T0 - timedelta(hours=2 - n), {"status": s}) for n, s in (
        (0, "new"), (1, "accepted"),
    )]  # fmt: skip
    closed = [await placed_at(client, shop, T0 - timedelta(minutes=30), {"status": s}) for s in workflow.FINAL]
    elsewhere = await placed_in(client, shop, T0 - timedelta(minutes=10), {"status": "new"})
    await log_in(client, "owner@example.com")
    clock.freeze(T0)
    part = await shown(client, f"/locations/{shop.location.public_id}/today/orders")
    page = await shown(client, f"/locations/{shop.location.public_id}/today")
    clock.reset()
    assert re.findall(r'data-order="(\w+)"', part) == [opened[0]["id"], opened[1]["id"]]
    for absent in (yesterday, *closed, elsewhere):
        assert absent["id"] not in part
    assert "2 open orders today, most urgent first" in part
    assert part in page  # the page holds the same list
    assert "<title>Today · Chez Ada Paris · Comptoir</title>" in page
    assert f'<a href="/locations/{shop.location.public_id}/today" id="board-refresh">Refresh</a>' in page


_TICKET = re.compile(r'data-order="(\w+)">.*?<span class="due" data-due="\d+">([^<]+)</span>')


async def board_at(client: httpx.AsyncClient, shop: Shop, moment: datetime) -> str:
    """The board's list of tickets as its owner sees it at `moment`."""
    await log_in(client, "owner@example.com")
    clock.freeze(moment)
    try:
        return await shown(client, f"/locations/{shop.location.public_id}/today/orders")
    finally:
        clock.reset()


async def test_the_board_lists_late_orders_first_then_by_due_time(client: httpx.AsyncClient, shop: Shop) -> None:
    def at(clock_time: str) -> dict[str, Any]:
        return {"status": "new", "expected_time": f"2026-06-24T{clock_time}:00+02:00"}

    # placed in this order, newest last: the list reads them newest first
    later = await placed_at(client, shop, T0 - timedelta(minutes=40), at("13:30"))
    late_a_little = await placed_at(client, shop, T0 - timedelta(minutes=30), at("11:55"))
    soon = await placed_at(client, shop, T0 - timedelta(minutes=20), at("12:09"))
    latest = await placed_at(client, shop, T0 - timedelta(minutes=10), at("11:40"))
    no_time = await placed_at(client, shop, T0 - timedelta(minutes=5), {"status": "new"})  # due 12:10 (15 min)
    tickets = _TICKET.findall(await board_at(client, shop, T0))
    assert tickets == [
        (latest["id"], "late by 20 min"),
        (late_a_little["id"], "late by 5 min"),
        (soon["id"], "due in 9 min"),
        (no_time["id"], "due in 10 min"),
        (later["id"], "due in 90 min"),
    ]


async def test_a_busy_location_adds_its_extra_time_to_orders_without_expected_time(
    client: httpx.AsyncClient, shop: Shop
) -> None:
    busy = {"preparation_time": 20, "order_acceptance": {"mode": "busy", "extra_preparation_time": 25}}
    assert (await client.patch("/v1/location", json=busy, headers=shop.headers())).status_code == 200
    plain = await placed_at(client, shop, T0, {"status": "new"})
    timed = await placed_at(client, shop, T0, {"status": "new", "expected_time": "2026-06-24T12:30:00+02:00"})
    tickets = dict(_TICKET.findall(await board_at(client, shop, T0 + timedelta(minutes=5))))
    assert tickets == {timed["id"]: "due in 25 min", plain["id"]: "due in 40 min"}  # 20 + 25 min after 12:00


async def test_a_busy_mode_whose_resume_at_has_passed_adds_nothing(client: httpx.AsyncClient, shop: Shop) -> None:
    busy = {
        "preparation_time": 20,
        "order_acceptance": {"mode": "busy", "extra_preparation_time": 25, "resume_at": "2026-06-24T12:02:00+02:00"},
    }
    clock.freeze(T0)  # the resume_at is in the future when it is set
    try:
        assert (await client.patch("/v1/location", json=busy, headers=shop.headers())).status_code == 200
    finally:
        clock.reset()
    plain = await placed_at(client, shop, T0, {"status": "new"})
    tickets = dict(_TICKET.findall(await board_at(client, shop, T0 + timedelta(minutes=5))))
    assert tickets == {plain["id"]: "due in 15 min"}  # 20 min after 12:00: busy mode ended at 12:02


async def test_a_ticket_shows_the_time_of_day_and_the_channel(client: httpx.AsyncClient, shop: Shop) -> None:
    sent = await placed_at(
        client, shop, T0, {"status": "new", "service_type": "collection", "channel": "Ordering site"}
    )
    part = await board_at(client, shop, T0 + timedelta(minutes=1))
    assert '<p class="muted">12:00 · from Ordering site · Collection · <strong class="total">' in part, part
    assert sent["id"] in part
    assert "24 Jun 2026, 12:00" not in part  # the board shows today only: no date on a ticket


async def test_the_boards_ending_buttons_stand_apart_and_ask_first(client: httpx.AsyncClient, shop: Shop) -> None:
    order = await created(client, shop, {"status": "new"})
    await log_in(client, "owner@example.com")
    part = await shown(client, f"/locations/{shop.location.public_id}/today/orders")
    label = order["id"]
    assert (
        f'<button type="submit" name="status" value="accepted" aria-label="Accept {label}">Accept</button>'
        f'<span class="ticket-endings"><button type="submit" name="status" value="rejected" class="secondary"'
        f' aria-label="Reject {label}">Reject…</button></span>'
    ) in part


async def test_a_ticket_counts_down_to_the_expected_time(client: httpx.AsyncClient, shop: Shop) -> None:
    soon = await placed_at(client, shop, T0, {"status": "new", "expected_time": "2026-06-24T12:25:00+02:00"})
    late = await placed_at(client, shop, T0, {"status": "new", "expected_time": "2026-06-24T11:50:00+02:00"})
    part = await board_at(client, shop, T0 + timedelta(minutes=5))
    tickets = dict(_TICKET.findall(part))
    assert tickets == {soon["id"]: "due in 20 min", late["id"]: "late by 15 min"}
    assert f'<li class="ticket late" data-order="{late["id"]}">' in part


async def test_the_boards_script_alone_may_run_and_fetch_from_here(client: httpx.AsyncClient, shop: Shop) -> None:
    await log_in(client, "owner@example.com")
    page = await client.get(f"/locations/{shop.location.public_id}/today")
    digest = base64.b64encode(hashlib.sha256(BOARD_SCRIPT.encode()).digest()).decode()
    policy = page.headers["content-security-policy"]
    assert policy.endswith(f"; connect-src 'self'; script-src 'sha256-{digest}'")
    assert f"<script>{BOARD_SCRIPT}</script>" in page.text
    assert 'data-part="/locations/' + shop.location.public_id + '/today/orders"' in page.text
