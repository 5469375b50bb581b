"""docs/back-office.md "Connections, logs and charts" in a real browser on a phone: the
location's charts are images named by their titles, the connection page filters its
request log, nothing overflows 360 px, no console error, no failed request; in dark mode
the charts draw in their dark colours."""

from __future__ import annotations

import httpx
from playwright.sync_api import Browser, expect

from tests.browser.conftest import PHONE, Hub, Phone, failed_for_real
from tests.browser.test_back_office import ORDER
from tests.browser.test_connect_flow import log_in


def test_charts_and_the_request_log_on_a_phone(hub: Hub, phone: Phone, browser: Browser) -> None:
    demo = hub.cli("demo")
    token = str(demo["tokens"]["location"])  # type: ignore[index]
    created = httpx.post(f"{hub.url}/v1/location/orders", json=ORDER, headers={"X-Access-Token": token})
    assert created.status_code == 200, created.text
    assert hub.get("/v1/location/orders/nope", token).status_code == 404
    page = phone.page
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on(
        "requestfailed", lambda request: problems.append(f"failed: {request.url}") if failed_for_real(request) else None
    )

    page.goto(f"{hub.url}/login")
    log_in(phone, demo["user"]["email"], demo["user"]["password"])  # type: ignore[index]
    page.get_by_role("link", name="Demo Bistro Paris").click()
    expect(page.get_by_role("img", name="Orders per day, last 30 days")).to_be_visible()
    expect(page.get_by_role("img", name="Revenue per day (EUR), last 30 days")).to_be_visible()
    phone.shot("location-charts")
    location_url = page.url

    page.get_by_role("link", name="Connections").first.click()
    phone.shot("connections")
    page.locator("table.connections a").first.click()
    expect(page.get_by_text("POST /v1/location/orders")).to_be_visible()
    page.get_by_label("Status").select_option("4xx")
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_text("GET /v1/location/orders/nope")).to_be_visible()
    expect(page.get_by_text("POST /v1/location/orders")).to_have_count(0)
    phone.shot("connection-4xx")
    assert problems == []

    dark = browser.new_context(viewport=PHONE, color_scheme="dark", storage_state=page.context.storage_state())
    try:
        night = dark.new_page()
        night.goto(location_url)
        fill = night.locator("rect.chart-a").first.evaluate("rect => getComputedStyle(rect).fill")
        assert fill == "rgb(224, 169, 109)"
    finally:
        dark.close()
