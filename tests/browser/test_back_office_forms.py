"""docs/back-office.md "Layout, navigation and words" and "Orders", in a real browser at
desktop width: a form's mistakes are all reported at once, each beside its field and in a
summary that links to it, and nothing is saved; the orders list filters by status and shows
its times in the location's time zone, as the order's own page does."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from zoneinfo import ZoneInfo

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import Hub

DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture
def desk(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    yield page
    context.close()


def _signed_in(hub: Hub, page: Page) -> dict[str, object]:
    demo = hub.cli("demo")
    page.goto(f"{hub.url}/login")
    page.get_by_label("Email").fill(str(demo["user"]["email"]))  # type: ignore[index]
    page.get_by_label("Password").fill(str(demo["user"]["password"]))  # type: ignore[index]
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{hub.url}/")
    return demo


def test_every_mistake_of_a_form_shows_beside_its_field_at_once(hub: Hub, desk: Page) -> None:
    demo = _signed_in(hub, desk)
    token = str(demo["tokens"]["location"])  # type: ignore[index]
    before = hub.get("/v1/location", token).json()["opening_hours"]
    location = demo["location_ids"][0]  # type: ignore[index]
    desk.goto(f"{hub.url}/locations/{location}")
    desk.get_by_label("Monday").fill("25:00-26:00")
    desk.get_by_label("Tuesday").fill("nine to five")
    desk.get_by_role("button", name="Save opening hours").click()

    summary = desk.get_by_role("alert")
    links = summary.get_by_role("link")
    expect(links).to_have_text(
        [
            "Monday: 25:00 is not a valid time of day",
            "Monday: 26:00 is not a valid time of day",
            "Tuesday: 'nine to five' is not a slot like 11:30-14:30",
        ]
    )
    assert [links.nth(i).get_attribute("href") for i in range(3)] == ["#monday", "#monday", "#tuesday"]
    expect(desk.locator("#monday-error")).to_contain_text("Monday")
    expect(desk.locator("#monday-error")).to_contain_text("25:00")
    expect(desk.locator("#tuesday-error")).to_contain_text("nine to five")
    expect(desk.get_by_label("Monday")).to_have_attribute("aria-invalid", "true")
    expect(desk.get_by_label("Monday")).to_have_value("25:00-26:00")  # what was typed stays
    links.nth(2).click()
    assert desk.url.endswith("#tuesday")
    assert hub.get("/v1/location", token).json()["opening_hours"] == before  # nothing saved


def test_the_orders_filter_by_status_and_show_the_locations_time(hub: Hub, desk: Page) -> None:
    demo = _signed_in(hub, desk)
    token = str(demo["tokens"]["location"])  # type: ignore[index]
    made: dict[str, str] = {}
    created: dict[str, str] = {}  # status -> created_at
    for status in ("new", "accepted"):
        answer = httpx.post(f"{hub.url}/v1/location/orders", json={"status": status}, headers={"X-Access-Token": token})
        assert answer.status_code == 200, answer.text
        made[status] = answer.json()["id"]
        created[status] = answer.json()["created_at"]
    location = demo["location_ids"][0]  # type: ignore[index]
    desk.goto(f"{hub.url}/locations/{location}/orders")
    desk.get_by_label("Status").select_option(label="Accepted")
    desk.get_by_role("button", name="Filter").click()
    rows = desk.locator("table.cards tbody tr")
    expect(rows.filter(has_text=made["accepted"])).to_have_count(1)
    expect(rows.filter(has_text=made["new"])).to_have_count(0)
    assert "status=accepted" in desk.url

    shown = rows.filter(has_text=made["accepted"]).locator("td").first.inner_text().strip()
    at = datetime.fromisoformat(created["accepted"]).astimezone(ZoneInfo("Europe/Paris"))  # Demo Bistro Paris
    assert shown == f"{at.day} {at:%b %Y, %H:%M} {at.tzname()}"  # e.g. "27 Nov 2026, 16:05 CET"
    desk.get_by_role("link", name=made["accepted"]).click()
    expect(desk.get_by_text(shown).first).to_be_visible()  # the same time, the same words
