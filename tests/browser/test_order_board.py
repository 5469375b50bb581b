"""docs/back-office.md "Orders", in a real browser on a counter tablet (768 px): an order
created through the API appears on the live board without a reload; accepting it there
changes its status as the API reads it, and the application's event feed shows the change."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, Response, expect

from tests.browser.conftest import Hub, failed_for_real

TABLET = {"width": 768, "height": 1024}


@pytest.fixture
def tablet(browser: Browser) -> Iterator[tuple[Page, list[str]]]:
    """A fresh browser profile at 768 px, and the console errors and failed requests it met."""
    context = browser.new_context(viewport=TABLET, device_scale_factor=1)
    page = context.new_page()
    problems: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            problems.append(message.text)  # a failed load is counted below, with its address

    def on_response(response: Response) -> None:
        if response.status >= 400:
            problems.append(f"{response.status} {response.url}")

    page.on("console", on_console)
    page.on("response", on_response)
    page.on(
        "requestfailed", lambda request: problems.append(f"failed: {request.url}") if failed_for_real(request) else None
    )
    yield page, problems
    context.close()


def test_a_new_order_appears_on_the_board_and_is_accepted_there(hub: Hub, tablet: tuple[Page, list[str]]) -> None:
    page, problems = tablet
    demo = hub.cli("demo")
    token = demo["tokens"]["location"]  # type: ignore[index]
    headers = {"X-Access-Token": token}
    location_id = demo["location_ids"][0]  # type: ignore[index]
    subscribed = httpx.post(
        f"{hub.url}/v1/callback", json={"url": None, "events": {"order": ["update"]}}, headers=headers
    )
    assert subscribed.status_code == 200, subscribed.text

    page.goto(f"{hub.url}/login")
    page.get_by_label("Email").fill(demo["user"]["email"])  # type: ignore[index]
    page.get_by_label("Password").fill(demo["user"]["password"])  # type: ignore[index]
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{hub.url}/")  # signed in: the home page loaded, not cut short by the next address
    page.goto(f"{hub.url}/locations/{location_id}/today")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Today")
    assert page.evaluate("document.documentElement.scrollWidth") <= TABLET["width"]

    body = {
        "status": "new",
        "ref": "BOARD-1",
        "items": [{"product_name": "Croque", "price": "6.50 EUR", "quantity": "2"}],
    }
    created = httpx.post(f"{hub.url}/v1/location/orders", json=body, headers=headers)
    assert created.status_code == 200, created.text
    order_id = created.json()["id"]
    ticket = page.locator(f'[data-order="{order_id}"]')
    expect(ticket).to_be_visible()  # without a reload: the board asks for its orders again and again
    expect(ticket).to_contain_text("2 × Croque")
    expect(page.get_by_role("status")).to_have_text("1 new order")
    assert page.evaluate("document.documentElement.scrollWidth") <= TABLET["width"]

    ticket.get_by_role("button", name="Accept BOARD-1").click()
    page.wait_for_url(f"{hub.url}/locations/{location_id}/today")
    expect(page.locator(f'[data-order="{order_id}"]')).to_contain_text("Accepted")
    read = httpx.get(f"{hub.url}/v1/location/orders/{order_id}", headers=headers)
    assert read.json()["status"] == "accepted"
    events = httpx.get(f"{hub.url}/v1/callback/events", headers=headers).json()
    moved = [e for e in events if e["resource_type"] == "order" and e["event_type"] == "update"]
    assert [(e["order_id"]) for e in moved] == [order_id]
    full = httpx.get(f"{hub.url}/v1/callback/events/{moved[0]['id']}", headers=headers).json()
    assert (full["previous_state"]["status"], full["new_state"]["status"]) == ("new", "accepted")
    assert problems == []


def open_board(hub: Hub, page: Page) -> tuple[str, dict[str, str]]:
    """The demo's first location's board, signed in; its id and the location token's headers."""
    demo = hub.cli("demo")
    page.goto(f"{hub.url}/login")
    page.get_by_label("Email").fill(demo["user"]["email"])  # type: ignore[index]
    page.get_by_label("Password").fill(demo["user"]["password"])  # type: ignore[index]
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{hub.url}/")
    location_id = str(demo["location_ids"][0])  # type: ignore[index]
    page.goto(f"{hub.url}/locations/{location_id}/today")
    return location_id, {"X-Access-Token": demo["tokens"]["location"]}  # type: ignore[index]


def create_order(hub: Hub, headers: dict[str, str], ref: str, **fields: str) -> str:
    """An order of one Tartine through the API, new unless `fields` say otherwise; its id."""
    items = [{"product_name": "Tartine", "price": "4.00 EUR", "quantity": "1"}]
    body = {"status": "new", "ref": ref, "items": items} | fields
    created = httpx.post(f"{hub.url}/v1/location/orders", json=body, headers=headers)
    assert created.status_code == 200, created.text
    return str(created.json()["id"])


def test_a_new_order_appears_on_an_open_board_within_a_second_without_a_poll(
    hub: Hub, tablet: tuple[Page, list[str]]
) -> None:
    page, problems = tablet
    _location_id, headers = open_board(hub, page)
    board = page.locator("#board")
    expect(board).to_have_attribute("data-live", "stream")  # its stream is open
    # no poll from now on: the list is read on the stream's news alone
    page.evaluate("document.getElementById('board').dataset.every = '600000'")
    page.wait_for_timeout(500)  # the read made as the stream opened is done

    order_id = create_order(hub, headers, "STREAM-1")
    expect(page.locator(f'[data-order="{order_id}"]')).to_be_visible(timeout=1000)
    expect(page.get_by_role("status")).to_have_text("1 new order")
    assert problems == []


def test_a_board_without_event_source_still_reads_its_list_every_few_seconds(
    hub: Hub, tablet: tuple[Page, list[str]]
) -> None:
    page, problems = tablet
    page.add_init_script("delete window.EventSource;")  # a browser without Server-Sent Events
    _location_id, headers = open_board(hub, page)
    order_id = create_order(hub, headers, "POLL-1")
    expect(page.locator(f'[data-order="{order_id}"]')).to_be_visible(timeout=3000)  # a read every 1.5 s
    expect(page.locator("#board")).to_have_attribute("data-live", "poll")
    assert problems == []


def test_a_completion_on_the_board_can_be_undone_there(hub: Hub, tablet: tuple[Page, list[str]]) -> None:
    page, problems = tablet
    location_id, headers = open_board(hub, page)
    order_id = create_order(hub, headers, "UNDO-1", status="in_preparation", service_type="eat_in")
    ticket = page.locator(f'[data-order="{order_id}"]')
    ticket.get_by_role("button", name="Complete UNDO-1").click()
    expect(page.locator("#board-undo")).to_contain_text("Order UNDO-1 completed.")
    expect(ticket).to_have_count(0)  # done: off the board
    assert page.evaluate("document.documentElement.scrollWidth") <= TABLET["width"]
    page.get_by_role("button", name="Undo: order UNDO-1 back to in preparation").click()
    page.wait_for_url(f"{hub.url}/locations/{location_id}/today")
    expect(page.locator(f'[data-order="{order_id}"]')).to_be_visible()
    expect(page.locator("#board-undo")).to_have_count(0)
    read = httpx.get(f"{hub.url}/v1/location/orders/{order_id}", headers=headers)
    assert read.json()["status"] == "in_preparation"
    assert problems == []
