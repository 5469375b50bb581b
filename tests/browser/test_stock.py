"""docs/back-office.md "Stock, catalogs and customers", in a real browser on a phone: the demo
owner marks a sku out of stock until further notice, another until a time, then a product back
in stock, and the inventory API sees each change; then edits a customer."""

from __future__ import annotations

import httpx
from playwright.sync_api import expect

from tests.browser.conftest import Hub, Phone
from tests.browser.test_connect_flow import log_in

MENU = {
    "categories": [{"ref": "mains", "name": "Mains"}],
    "products": [
        {
            "ref": "burger",
            "category_ref": "mains",
            "name": "Burger",
            "skus": [{"ref": "burger", "price": "12.50 EUR"}, {"ref": "burger-xl", "name": "XL", "price": "15 EUR"}],
        }
    ],
}


def test_the_owner_marks_stock_out_and_back_and_the_api_sees_it(hub: Hub, phone: Phone) -> None:
    demo = hub.cli("demo")
    page = phone.page
    headers = {"X-Access-Token": str(demo["tokens"]["location"])}  # type: ignore[index]
    catalog = f"{hub.url}/v1/catalogs/{demo['catalog_id']}"
    assert httpx.put(catalog, json={"data": MENU}, headers=headers).status_code == 200

    def inventory() -> list[tuple[str, str, str | None]]:
        answer = httpx.get(f"{catalog}/location/inventory", headers=headers)
        assert answer.status_code == 200, answer.text
        return [(e["sku_ref"], e["stock"], e["expires_at"]) for e in answer.json()]

    page.goto(f"{hub.url}/login")
    log_in(phone, demo["user"]["email"], demo["user"]["password"])  # type: ignore[index]
    page.get_by_role("link", name="Demo Bistro Paris").click()
    page.get_by_role("link", name="Demo menu").click()
    phone.shot("catalog")

    page.get_by_role("button", name="Out of stock: Burger", exact=True).click()
    expect(page.get_by_text("Out of stock until further notice")).to_be_visible()
    assert inventory() == [("burger", "0.0", None)]

    xl = page.locator("form", has=page.get_by_role("button", name="Out of stock: Burger, XL"))
    xl.get_by_label("Until").fill("2030-01-01T12:00")
    xl.get_by_role("button", name="Out of stock: Burger, XL").click()
    expect(page.get_by_text("Out of stock until 1 Jan 2030 12:00").first).to_be_visible()
    phone.shot("catalog-out")
    assert inventory() == [("burger", "0.0", None), ("burger-xl", "0.0", "2030-01-01T12:00:00+01:00")]

    page.get_by_role("button", name="Back in stock: Burger (all kinds)").click()
    expect(page.locator(".tag", has_text="Out of stock")).to_have_count(0)
    assert inventory() == []


def test_the_owner_edits_a_customer(hub: Hub, phone: Phone) -> None:
    demo = hub.cli("demo")
    page = phone.page
    headers = {"X-Access-Token": str(demo["tokens"]["location"])}  # type: ignore[index]
    customers = f"{hub.url}/v1/customer_lists/{demo['customer_list_id']}/customers"
    made = httpx.post(customers, json={"first_name": "Marie", "last_name": "Skłodowska"}, headers=headers)
    assert made.status_code == 200, made.text
    page.goto(f"{hub.url}/login")
    log_in(phone, demo["user"]["email"], demo["user"]["password"])  # type: ignore[index]
    page.goto(f"{hub.url}/customer-lists/{demo['customer_list_id']}?name=Skłodowska")
    phone.shot("customers")
    page.get_by_role("link", name="Marie Skłodowska").click()
    page.get_by_label("Last name").fill("Curie")
    page.get_by_label("Phone").fill("+1")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#phone-error")).to_be_visible()
    phone.shot("customer-refused")
    page.get_by_label("Phone").fill("+33612345678")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_have_text("Saved.")
    customer = httpx.get(f"{customers}/{made.json()['id']}", headers=headers).json()
    assert (customer["last_name"], customer["phone"]) == ("Curie", "+33612345678")
