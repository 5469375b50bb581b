"""docs/operations.md "Back office", end to end: a new user walks the back office in a real
browser, on a phone: sign up, create a location, rename it, register a client, connect it
with the OAuth flow, create an order through the API, find it in the orders view and in the
request log, revoke the connection and see the API answer 401. A second walk visits the data views of
the demo (catalog, customers). Every page is saved as a screenshot and checked for width."""

from __future__ import annotations

import httpx
from playwright.sync_api import expect

from tests.browser.conftest import APP, PASSWORD, Hub, Phone
from tests.browser.test_connect_flow import log_in, unique

ORDER = {
    "status": "new",
    "channel": "Website",
    "ref": "W-2001",
    "service_type": "collection",
    "items": [
        {
            "product_name": "Margherita",
            "sku_name": "Large",
            "price": "10.50 EUR",
            "quantity": "2",
            "options": [{"option_list_name": "Extras", "name": "Mozzarella", "price": "1.25 EUR", "quantity": 1}],
        },
        {"product_name": "Lemonade", "price": "3.00 EUR", "quantity": 1},
    ],
    "customer": {"first_name": "Ann", "last_name": "Smith", "email": "ann@example.com"},
}


def test_a_new_user_walks_the_back_office(hub: Hub, phone: Phone) -> None:
    page = phone.page
    email = unique("walk")

    # Sign up: the user, the account and its first location.
    page.goto(f"{hub.url}/login")
    phone.shot("login")
    page.get_by_role("link", name="Sign up").click()
    phone.shot("signup")
    page.get_by_label("First name").fill("Marie")
    page.get_by_label("Last name").fill("Curie")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_label("Account name").fill("Chez Marie")
    page.get_by_label("Location name").fill("Chez Marie Sorbonne")
    page.get_by_label("Country").select_option("FR")
    page.get_by_role("button", name="Sign up").click()
    phone.shot("home")
    expect(page.get_by_text("Signed in as")).to_contain_text(email)

    # Create a second location, then rename it.
    page.get_by_role("link", name="Chez Marie", exact=True).click()
    phone.shot("account")
    page.get_by_role("link", name="New location").click()
    phone.shot("location-new")
    page.get_by_label("Name").fill("Chez Marie Gare")
    page.get_by_label("City").fill("Paris")
    page.get_by_label("Country").select_option("FR")
    page.get_by_label("Timezone").select_option("Europe/Paris")
    page.get_by_role("button", name="Create the location").click()
    expect(page.get_by_role("heading", name="Chez Marie Gare", level=1)).to_be_visible()
    phone.shot("location")
    page.get_by_label("Name").fill("Chez Marie Gare de Lyon")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_role("status")).to_have_text("Saved.")
    expect(page.get_by_role("heading", name="Chez Marie Gare de Lyon", level=1)).to_be_visible()
    page.get_by_label("Monday").fill("11:30-14:30, 18:30-22:30")
    page.get_by_role("button", name="Save opening hours").click()
    expect(page.get_by_label("Monday")).to_have_value("11:30-14:30, 18:30-22:30")
    phone.shot("location-saved")
    location_url = page.url.split("?")[0]
    location_id = location_url.rsplit("/", 1)[1]

    # Register a client: the secret is shown once. On a phone the navigation is a "Menu".
    page.get_by_text("Menu", exact=True).click()
    page.get_by_role("link", name="Developers").click()
    phone.shot("developers")
    page.get_by_label("Application name").fill("Marie's website")
    page.get_by_label("Redirect URIs").fill(APP)
    page.get_by_role("button", name="Register").click()
    phone.shot("client-secret")
    client = {
        "client_id": page.get_by_label("Client id").inner_text(),
        "client_secret": page.get_by_label("Client secret").inner_text(),
    }
    page.get_by_role("link", name="Done").click()
    phone.shot("client")

    # Connect it to the renamed location with the OAuth flow (already signed in).
    page.goto(hub.authorize_url(client, "location[orders.write]", state="walk"))
    phone.shot("consent")
    page.get_by_label("Location").select_option(label="Chez Marie Gare de Lyon")
    page.get_by_role("button", name="Allow").click()
    token = str(hub.exchange(client, phone.back_at_app()["code"])["access_token"])

    # An order through the API.
    created = httpx.post(f"{hub.url}/v1/location/orders", json=ORDER, headers={"X-Access-Token": token})
    assert created.status_code == 200, created.text
    order_id = created.json()["id"]

    # Find it in the orders view.
    page.goto(location_url)
    page.get_by_role("link", name="Orders").click()
    phone.shot("orders")
    page.get_by_role("link", name=order_id).click()
    phone.shot("order")
    expect(page.get_by_text("Margherita").first).to_be_visible()
    expect(page.get_by_text("Mozzarella").first).to_be_visible()
    expect(page.get_by_text("Created by Marie's website").first).to_be_visible()

    # ... and in the request log of the connection.
    page.goto(f"{hub.url}/locations/{location_id}/connections")
    phone.shot("connections")
    page.get_by_role("link", name="Marie's website").click()
    request = page.get_by_text("POST /v1/location/orders")
    expect(request).to_be_visible()
    request.click()  # opens the request's bodies
    expect(page.get_by_text('"ref": "W-2001"').first).to_be_visible()
    phone.shot("connection")

    # Revoke: the API answers 401 at once.
    page.get_by_role("button", name="Revoke").click()
    phone.shot("connection-revoke-asked")
    page.get_by_role("button", name="Yes, revoke it").click()
    expect(page.get_by_text("Revoked on")).to_be_visible()
    phone.shot("connection-revoked")
    assert httpx.get(f"{hub.url}/v1/location", headers={"X-Access-Token": token}).status_code == 401

    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("button", name="Log in")).to_be_visible()


def test_the_demo_owner_reads_catalog_and_customers(hub: Hub, phone: Phone) -> None:
    demo = hub.cli("demo")
    page = phone.page
    token = demo["tokens"]["location"]  # type: ignore[index]
    customer = httpx.post(
        f"{hub.url}/v1/customer_lists/{demo['customer_list_id']}/customers",
        json={"first_name": "Louis", "last_name": "Pasteur", "email": "louis@example.com", "phone": "+33611223344"},
        headers={"X-Access-Token": str(token)},
    )
    assert customer.status_code == 200, customer.text  # docs/api/conventions.md "Errors": every success is 200
    assert {k: customer.json()[k] for k in ("first_name", "last_name", "email", "phone")} == {
        "first_name": "Louis",
        "last_name": "Pasteur",
        "email": "louis@example.com",
        "phone": "+33611223344",
    }
    menu = {
        "categories": [{"ref": "mains", "name": "Mains"}],
        "option_lists": [{"ref": "sides", "name": "Sides", "options": [{"ref": "fries", "name": "Fries"}]}],
        "products": [
            {
                "ref": "burger",
                "category_ref": "mains",
                "name": "Burger",
                "option_list_refs": ["sides"],
                "skus": [
                    {"ref": "burger", "price": "12.50 EUR"},
                    {"ref": "burger-xl", "name": "XL", "price": "15 EUR"},
                ],
            }
        ],
    }
    headers = {"X-Access-Token": str(token)}
    put = httpx.put(f"{hub.url}/v1/catalogs/{demo['catalog_id']}", json={"data": menu}, headers=headers)
    assert put.status_code == 200, put.text
    stock = [{"sku_ref": "burger", "stock": "4"}, {"option_ref": "fries", "stock": "0"}]
    put = httpx.put(f"{hub.url}/v1/catalogs/{demo['catalog_id']}/location/inventory", json=stock, headers=headers)
    assert put.status_code == 200, put.text
    page.goto(f"{hub.url}/login")
    log_in(phone, demo["user"]["email"], demo["user"]["password"])  # type: ignore[index]
    page.get_by_role("link", name="Demo Bistro Paris").click()
    page.get_by_role("link", name="Demo menu").click()
    phone.shot("catalog")
    expect(page.get_by_text("Burger").first).to_be_visible()
    page.go_back()
    page.get_by_role("link", name="Demo customers").click()
    phone.shot("customers")
    page.get_by_label("Name", exact=True).fill("pasteur")
    page.get_by_label("Name", exact=True).press("Enter")
    page.get_by_role("link", name="Louis Pasteur").click()
    phone.shot("customer")
    expect(page.get_by_text("louis@example.com").first).to_be_visible()
