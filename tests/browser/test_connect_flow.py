"""A business connects an application in a real browser, on a phone,
through the pages' accessible names (docs/api/oauth.md "Pages")."""

from __future__ import annotations

import uuid

from playwright.sync_api import expect

from tests.browser.conftest import OOB_REDIRECT, PASSWORD, Hub, Phone


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}@example.com"


def log_in(phone: Phone, email: str, password: str = PASSWORD) -> None:
    page = phone.page
    phone.shot("login")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()


def test_signup_then_consent(hub: Hub, phone: Phone) -> None:
    client = hub.new_client("Kitchen screen")
    email = unique("signup")
    page = phone.page
    url = hub.authorize_url(
        client,
        "location[orders.read],profile",
        country="DE",
        account_name="Kaffee Haus",
        location_name="Mitte",
        state="x1",
    )
    page.goto(url)
    page.get_by_role("link", name="Sign up").click()
    phone.shot("signup")
    expect(page.get_by_label("Account name")).to_have_value("Kaffee Haus")
    expect(page.get_by_label("Location name")).to_have_value("Mitte")
    expect(page.get_by_label("Country")).to_have_value("DE")
    page.get_by_label("First name").fill("Grete")
    page.get_by_label("Last name").fill("Weiss")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign up").click()

    phone.shot("consent")
    expect(page.get_by_text("See the orders of this location.")).to_be_visible()
    expect(page.get_by_label("Location")).to_have_text("Mitte")
    page.get_by_role("button", name="Allow").click()

    back = phone.back_at_app()
    assert back["state"] == "x1"
    token = hub.exchange(client, back["code"])
    assert (token["account_name"], token["location_name"]) == ("Kaffee Haus", "Mitte")
    location = hub.get("/v1/location", str(token["access_token"])).json()
    assert (location["name"], location["country"], location["timezone"]["name"]) == ("Mitte", "DE", "Europe/Berlin")
    assert hub.get("/v1/user", str(token["access_token"])).json()["first_name"] == "Grete"


def test_login_then_consent_choosing_location_catalog_and_customer_list(hub: Hub, phone: Phone) -> None:
    demo = hub.cli("demo")  # a user with two locations, a catalog and a customer list
    client = hub.new_client("Order site")
    page = phone.page
    page.goto(hub.authorize_url(client, "location[orders.write,catalog.read,customer_list.write]"))
    log_in(phone, demo["user"]["email"], demo["user"]["password"])  # type: ignore[index]

    phone.shot("consent")
    page.get_by_label("Location").select_option(label="Demo Bistro Paris")
    page.get_by_label("Catalog").select_option(label="Demo menu")
    page.get_by_label("Customer list").select_option(label="Demo customers")
    page.get_by_role("button", name="Allow").click()

    token = hub.exchange(client, phone.back_at_app()["code"])
    assert token["location_id"] == demo["location_ids"][0]  # type: ignore[index]
    assert (token["catalog_id"], token["customer_list_id"]) == (demo["catalog_id"], demo["customer_list_id"])
    assert hub.get("/v1/location/orders", str(token["access_token"])).status_code == 200


def test_a_new_customer_list_made_on_the_consent_page(hub: Hub, phone: Phone) -> None:
    owner = hub.new_owner(unique("new-list"), locations=("Harbour", "Station"))
    client = hub.new_client("Loyalty club")
    page = phone.page
    page.goto(hub.authorize_url(client, "location[customer_list.write]"))
    log_in(phone, str(owner["user"]["email"]))  # type: ignore[index]
    page.get_by_label("Location").select_option(label="Station")
    page.get_by_label("Customer list").select_option(label="A new customer list named “Loyalty club”")
    phone.shot("consent-new-list")
    page.get_by_role("button", name="Allow").click()

    token = hub.exchange(client, phone.back_at_app()["code"])
    assert (token["location_name"], token["customer_list_name"]) == ("Station", "Loyalty club")


def test_a_refused_choice_shows_the_reason_on_the_page(hub: Hub, phone: Phone) -> None:
    demo = hub.cli("demo")
    client = hub.new_client("Wrong pick")
    page = phone.page
    page.goto(hub.authorize_url(client, "location[catalog.read]"))
    log_in(phone, demo["user"]["email"], demo["user"]["password"])  # type: ignore[index]
    expect(page.get_by_role("button", name="Allow")).to_be_enabled()
    page.get_by_label("Location").select_option(label="Demo Bistro Lyon")  # Lyon has no catalog
    phone.shot("consent-refused")
    expect(page.get_by_text("Demo Bistro Lyon cannot be connected: it has no catalog")).to_be_visible()
    expect(page.get_by_role("button", name="Allow")).to_be_disabled()
    assert phone.returned == []


def test_deny_returns_access_denied(hub: Hub, phone: Phone) -> None:
    owner = hub.new_owner(unique("deny"))
    client = hub.new_client("Denied app")
    page = phone.page
    page.goto(hub.authorize_url(client, "location[orders.read]", state="keep me"))
    log_in(phone, str(owner["user"]["email"]))  # type: ignore[index]
    page.get_by_role("button", name="Deny").click()
    assert phone.back_at_app() == {"error": "access_denied", "state": "keep me"}


def test_the_oob_flow_shows_the_code_to_paste(hub: Hub, phone: Phone) -> None:
    owner = hub.new_owner(unique("oob"))
    client = hub.new_client("Till app")
    page = phone.page
    page.goto(hub.authorize_url(client, "location[orders.read]", redirect_uri=OOB_REDIRECT))
    log_in(phone, str(owner["user"]["email"]))  # type: ignore[index]
    page.get_by_role("button", name="Allow").click()
    phone.shot("code")
    code = page.get_by_label("Authorization code").inner_text()
    token = hub.exchange(client, code, redirect_uri=OOB_REDIRECT)
    assert token["location_name"] == "Main street"


def test_re_authorising_gives_the_same_token_without_logging_in_and_a_name_a_new_one(hub: Hub, phone: Phone) -> None:
    owner = hub.new_owner(unique("again"))
    client = hub.new_client("Delivery app")
    page = phone.page
    scope = "location[orders.read]"
    page.goto(hub.authorize_url(client, scope))
    log_in(phone, str(owner["user"]["email"]))  # type: ignore[index]
    page.get_by_role("button", name="Allow").click()
    first = hub.exchange(client, phone.back_at_app()["code"])["access_token"]

    page.goto(hub.authorize_url(client, scope))  # the session cookie: no login this time
    expect(page.get_by_role("button", name="Allow")).to_be_visible()
    expect(page.get_by_label("Password")).to_have_count(0)
    phone.shot("consent-again")
    page.get_by_role("button", name="Allow").click()
    second = hub.exchange(client, phone.back_at_app()["code"])["access_token"]

    page.goto(hub.authorize_url(client, scope, name="Till 2"))
    page.get_by_role("button", name="Allow").click()
    named = hub.exchange(client, phone.back_at_app()["code"])["access_token"]

    assert second == first
    assert named != first
    assert hub.get("/v1/location", str(first)).status_code == 200
    assert hub.get("/v1/location", str(named)).status_code == 200


def test_an_unregistered_redirect_uri_shows_an_error_page(hub: Hub, phone: Phone) -> None:
    client = hub.new_client("Strict app")
    phone.page.goto(hub.authorize_url(client, "profile", redirect_uri="https://evil.example/steal"))
    phone.shot("error")
    expect(phone.page.get_by_role("heading")).to_have_text("This connection request cannot be used")
    assert phone.returned == []
