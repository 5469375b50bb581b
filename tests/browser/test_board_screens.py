"""docs/back-office.md "Orders" and "Confirmations", in a real browser at a phone's, a
tablet's and a desktop's width (375, 768, 1280 px): the board lists the most urgent ticket
first, an ending asks before it changes anything, the phone's Menu opens without moving its
button, and nothing overflows sideways. Each page is saved as
`artifacts/back-office/<width>-<page>.png` (kept in the repository, to be looked at)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import Hub

WIDTHS = (375, 768, 1280)
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "back-office"


def _in(minutes: int) -> str:
    return (datetime.now(UTC) + timedelta(minutes=minutes)).isoformat(timespec="seconds")


def _orders(hub: Hub, token: str) -> list[str]:
    """Today's tickets, placed oldest first: the list reads them newest first, the board by urgency."""
    headers = {"X-Access-Token": token}
    bodies = [
        {"ref": "LATER", "channel": "Ordering site", "service_type": "collection", "expected_time": _in(90)},
        {"ref": "LATE", "channel": "Phone", "service_type": "eat_in", "expected_time": _in(-12)},
        {"ref": "SOON", "channel": "Ordering site", "service_type": "delivery", "expected_time": _in(9)},
        {"ref": "PLAIN", "channel": "Counter app"},  # due after the (busy) preparation time
    ]
    made = []
    for body in bodies:
        order = {
            "status": "new",
            **body,
            "items": [
                {"product_name": "Croque monsieur", "price": "6.50 EUR", "quantity": "2"},
                {"product_name": "Lemonade", "price": "3.00 EUR", "quantity": 1},
            ],
            "customer": {"first_name": "Ann", "last_name": "Smith"},
            "customer_notes": "No mustard" if body["ref"] == "LATE" else None,
        }
        answer = httpx.post(f"{hub.url}/v1/location/orders", json=order, headers=headers)
        assert answer.status_code == 200, answer.text
        made.append(answer.json()["id"])
    return made


MENU = {
    "categories": [{"ref": "mains", "name": "Mains"}, {"ref": "drinks", "name": "Drinks"}],
    "products": [
        {
            "ref": "burger",
            "category_ref": "mains",
            "name": "Burger",
            "skus": [{"ref": "burger", "price": "12.50 EUR"}, {"ref": "burger-xl", "name": "XL", "price": "15 EUR"}],
        },
        {"category_ref": "mains", "name": "Croque monsieur", "skus": [{"ref": "croque", "price": "6.50 EUR"}]},
        {"category_ref": "drinks", "name": "Lemonade", "skus": [{"ref": "lemonade", "price": "3 EUR"}]},
    ],
}


def _log_in(page: Page, hub: Hub, email: str, password: str) -> None:
    page.goto(f"{hub.url}/login")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{hub.url}/")


def _shot(page: Page, width: int, name: str) -> None:
    page.wait_for_load_state()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SHOTS / f"{width}-{name}.png", full_page=True)
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= width, f"{name}: {wide} px wide at {width} px"


def test_the_board_and_its_pages_at_three_widths(hub: Hub, browser: Browser) -> None:
    demo = hub.cli("demo")
    token = str(demo["tokens"]["location"])  # type: ignore[index]
    location_id = demo["location_ids"][0]  # type: ignore[index]
    busy = {"preparation_time": 15, "order_acceptance": {"mode": "busy", "extra_preparation_time": 20}}
    assert httpx.patch(f"{hub.url}/v1/location", json=busy, headers={"X-Access-Token": token}).status_code == 200
    later, late, soon, plain = _orders(hub, token)
    catalog = f"{hub.url}/v1/catalogs/{demo['catalog_id']}"
    assert httpx.put(catalog, json={"data": MENU}, headers={"X-Access-Token": token}).status_code == 200
    board = f"{hub.url}/locations/{location_id}/today"
    for width in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": 900}, device_scale_factor=1)
        try:
            page = context.new_page()
            _log_in(page, hub, demo["user"]["email"], demo["user"]["password"])  # type: ignore[index]
            page.goto(board)
            tickets = page.locator("li.ticket").evaluate_all("items => items.map(i => i.dataset.order)")
            assert tickets[:4] == [late, soon, plain, later]  # late first, then by due time
            expect(page.locator(f'[data-order="{late}"] .due')).to_contain_text("late by")
            expect(page.locator(f'[data-order="{plain}"] .due')).to_have_text(
                re.compile(r"due in 3[0-5] min")
            )  # 15 + 20 busy
            expect(page.locator(f'[data-order="{soon}"]')).to_contain_text("from Ordering site")
            _shot(page, width, "board")

            # an ending asks first: back to the board, nothing changed
            page.locator(f'[data-order="{soon}"]').get_by_role("button", name="Reject SOON").click()
            expect(page.get_by_role("heading", level=1)).to_have_text("Reject order SOON?")
            _shot(page, width, "board-reject-confirm")
            page.get_by_role("link", name="No, keep it").click()
            expect(page.locator(f'[data-order="{soon}"]')).to_contain_text("New")

            if width == WIDTHS[0]:  # once: the owner accepts LATE, its history names them
                page.locator(f'[data-order="{late}"]').get_by_role("button", name="Accept LATE").click()
                page.wait_for_url(board)
            page.goto(f"{board.removesuffix('/today')}/orders/{late}")
            expect(page.get_by_text(f"Accepted by {demo['user']['email']}")).to_be_visible()  # type: ignore[index]
            _shot(page, width, "order")

            page.goto(f"{hub.url}/catalogs/{demo['catalog_id']}")
            # one stock control per sellable thing: a product of one sku has one
            expect(page.get_by_role("button", name="Out of stock: Croque monsieur", exact=True)).to_have_count(1)
            _shot(page, width, "catalog")

            page.goto(f"{hub.url}/locations/{location_id}")
            expect(page.locator("#today-figures")).to_contain_text("Today: ")
            _shot(page, width, "location-charts")
            page.locator("section[aria-labelledby=figures-heading]").screenshot(path=SHOTS / f"{width}-charts.png")

            page.goto(f"{hub.url}/locations/{location_id}/connections")
            page.locator("table.connections a").first.click()
            expect(page.get_by_role("button", name="Revoke")).to_be_visible()
            _shot(page, width, "connection")
            page.get_by_role("button", name="Revoke").click()
            expect(page.get_by_role("button", name="Yes, revoke it")).to_be_visible()
            _shot(page, width, "connection-revoke-confirm")
            page.get_by_role("link", name="No, keep it").click()

            if width == WIDTHS[0]:  # the phone's Menu opens over the page, its button where it was
                page.goto(board)
                menu = page.locator("details.menu > summary")
                closed = menu.bounding_box()
                menu.click()
                expect(page.locator("details.menu nav")).to_be_visible()
                assert menu.bounding_box() == closed
                _shot(page, width, "menu-open")
        finally:
            context.close()
    assert httpx.get(f"{hub.url}/v1/location", headers={"X-Access-Token": token}).status_code == 200  # not revoked
    read = httpx.get(f"{hub.url}/v1/location/orders/{soon}", headers={"X-Access-Token": token})
    assert read.json()["status"] == "new"  # not rejected
