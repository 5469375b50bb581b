"""/docs in a real browser: Swagger UI renders the whole OpenAPI document (every operation and
every webhook listed), with no console error, and nothing is requested from another host:
every request the page makes is intercepted, and one to any host but the server fails the
test."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, Route

from tests.browser.conftest import SCREENSHOTS, Hub

METHODS = ("get", "put", "post", "delete", "patch")


@pytest.fixture
def desk(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield context.new_page()
    context.close()


def test_the_reference_lists_every_operation_from_the_server_alone(hub: Hub, desk: Page) -> None:
    document = httpx.get(f"{hub.url}/v1/openapi.json").json()
    own_host = urlsplit(hub.url).netloc
    elsewhere: list[str] = []
    errors: list[str] = []

    def only_here(route: Route) -> None:
        if urlsplit(route.request.url).netloc == own_host:
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(message.text)

    desk.context.route("**/*", only_here)
    desk.on("console", console)
    desk.on("pageerror", lambda error: errors.append(str(error)))

    desk.goto(f"{hub.url}/docs")
    desk.wait_for_selector(".opblock-summary-path", timeout=30_000)
    desk.wait_for_load_state("networkidle")
    listed = desk.evaluate(
        """() => [...document.querySelectorAll('.opblock')].map(block => [
            block.querySelector('.opblock-summary-method').textContent.trim().toLowerCase(),
            block.querySelector('.opblock-summary-path, .opblock-summary-path__deprecated')
                .getAttribute('data-path'),
        ])"""
    )
    # One operation opened: its description (with its access rule) and its example body.
    desk.locator('.opblock-summary-path[data-path="/v1/location/orders"]').first.click()
    opened = desk.locator(".opblock.is-open").first
    description = opened.locator(".opblock-description-wrapper").first
    description.wait_for()
    assert "Access: token level location; scope: orders.write; rate limit: general." in description.inner_text()
    opened.get_by_text('"product_name": "Margherita"', exact=False).first.wait_for()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    desk.screenshot(path=SCREENSHOTS / "api-reference.png")

    operations = {(m, p) for p, item in document["paths"].items() for m in METHODS if m in item}
    webhooks = {("post", name) for name in document["webhooks"]}
    assert len(operations) == 119
    assert {tuple(pair) for pair in listed} == operations | webhooks
    assert len(listed) == len(operations) + len(webhooks)
    assert errors == []
    assert elsewhere == []
