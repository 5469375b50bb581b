"""docs/back-office.md "Layout, navigation and words", in a real browser on a phone: the
signup's currency follows the country (its small script runs under the page's CSP), the
navigation folds into a "Menu" that opens without a script, and an unknown address is the
HTML page not found, with no console error on the pages that answer 200."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.conftest import Hub, Phone
from tests.browser.test_connect_flow import log_in, unique


def test_the_signup_currency_follows_the_country(hub: Hub, phone: Phone) -> None:
    page = phone.page
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.goto(f"{hub.url}/signup")
    expect(page.get_by_label("Country")).to_have_value("US")  # Chromium's "en-US": the region, at most
    expect(page.get_by_label("Currency")).to_have_value("")  # "The country's currency"
    page.get_by_label("Country").select_option("CH")
    expect(page.get_by_label("Currency")).to_have_value("CHF")
    page.get_by_label("Country").select_option("FR")
    expect(page.get_by_label("Currency")).to_have_value("EUR")
    page.get_by_label("Currency").select_option("USD")  # chosen: the country no longer changes it
    page.get_by_label("Country").select_option("GB")
    expect(page.get_by_label("Currency")).to_have_value("USD")
    phone.shot("signup")
    assert problems == []


def test_the_navigation_is_a_menu_on_a_phone_and_unknown_pages_are_html(hub: Hub, phone: Phone) -> None:
    owner = hub.new_owner(unique("nav"), locations=("Rue Haute", "Rue Basse"))
    page = phone.page
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.goto(f"{hub.url}/login")
    log_in(phone, str(owner["user"]["email"]))  # type: ignore[index]
    expect(page.get_by_role("link", name="Developers")).to_have_count(0)  # folded
    page.get_by_text("Menu", exact=True).click()
    phone.shot("menu")
    expect(page.get_by_role("link", name="Rue Basse")).to_have_count(2)  # the menu and the home page
    page.get_by_role("navigation", name="Menu").get_by_role("link", name="Rue Basse").click()
    expect(page.get_by_role("heading", name="Rue Basse", level=1)).to_be_visible()
    assert problems == []
    page.goto(f"{hub.url}/nowhere")
    expect(page.get_by_role("heading", name="Page not found", level=1)).to_be_visible()
    page.get_by_role("link", name="Go to your Comptoir home page").click()
    expect(page.get_by_role("heading", name="Your Comptoir", level=1)).to_be_visible()
