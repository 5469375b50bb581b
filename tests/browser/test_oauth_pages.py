"""In a real browser: the consent page narrows the catalogs offered to the chosen location and
says why a location cannot be connected (docs/api/oauth.md "The consent page"), and the
Developers page shows a new secret once, with copy buttons (docs/api/oauth.md "Registering
an application")."""

from __future__ import annotations

import httpx
from playwright.sync_api import Browser, Page, expect

from tests.browser.conftest import PHONE, Hub, Phone
from tests.browser.test_connect_flow import log_in, unique


def _offered(page: Page, label: str) -> list[str]:
    """The options of the select a user can pick (not in a disabled group)."""
    return page.get_by_label(label).evaluate(
        "s => Array.from(s.options).filter(o => !o.disabled && !o.parentNode.disabled).map(o => o.label)"
    )


def _menus(hub: Hub, owner: dict[str, object]) -> dict[str, str]:
    """A catalog at each of the owner's locations, made through the API: {location name: catalog id}."""
    email = str(owner["user"]["email"])  # type: ignore[index]
    setup = hub.new_client("Set-up")
    account_id = str(owner["account"]["id"])  # type: ignore[index]
    scope = "account[all_catalogs.write]"
    args = ("--client", setup["client_id"], "--user", email, "--scope", scope, "--account", account_id)
    token = str(hub.cli("admin", "connect", *args)["access_token"])
    made = {}
    for location in owner["locations"]:  # type: ignore[attr-defined]
        answer = httpx.post(
            f"{hub.url}/v1/locations/{location['id']}/catalogs",
            json={"name": f"{location['name']} menu"},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert answer.status_code == 200, answer.text
        made[location["name"]] = answer.json()["id"]
    return made


def test_picking_lyon_offers_only_lyons_catalog_and_allow_succeeds(hub: Hub, phone: Phone) -> None:
    owner = hub.new_owner(unique("narrow"), locations=("Paris", "Lyon"))
    menus = _menus(hub, owner)
    client = hub.new_client("Menu board")
    page = phone.page
    page.goto(hub.authorize_url(client, "location[catalog.read]"))
    log_in(phone, str(owner["user"]["email"]))  # type: ignore[index]
    expect(page.get_by_role("button", name="Show the choices for this location")).to_be_hidden()
    assert _offered(page, "Catalog") == ["Paris menu"]
    page.get_by_label("Location").select_option(label="Lyon")
    assert _offered(page, "Catalog") == ["Lyon menu"]
    expect(page.get_by_label("Catalog")).to_have_value(menus["Lyon"])
    phone.shot("consent-lyon")
    page.get_by_role("button", name="Allow").click()
    token = hub.exchange(client, phone.back_at_app()["code"])
    assert (token["location_name"], token["catalog_id"], token["catalog_name"]) == ("Lyon", menus["Lyon"], "Lyon menu")


def test_a_location_without_a_list_says_why_it_cannot_be_connected(hub: Hub, phone: Phone) -> None:
    owner = hub.new_owner(unique("no-list"), locations=("Harbour", "Station"))
    client = hub.new_client("Card reader")
    page = phone.page
    page.goto(hub.authorize_url(client, "location[customer_list.read]"))
    log_in(phone, str(owner["user"]["email"]))  # type: ignore[index]
    account = str(owner["account"]["name"])  # type: ignore[index]
    why = (
        "Station cannot be connected: it has no customer list this application can use, and the application "
        "may only read a customer list, not create one. Create a customer list for Station (or for the whole "
        f"account {account}) in the back office, then come back to this page."
    )
    expect(page.get_by_text("Harbour cannot be connected")).to_be_visible()
    expect(page.get_by_text(why)).to_be_hidden()
    page.get_by_label("Location").select_option(label="Station")
    expect(page.get_by_text(why)).to_be_visible()
    expect(page.get_by_text("Harbour cannot be connected")).to_be_hidden()
    expect(page.get_by_role("button", name="Allow")).to_be_disabled()
    phone.shot("consent-cannot")


def test_without_scripts_a_first_step_chooses_the_location(hub: Hub, browser: Browser) -> None:
    owner = hub.new_owner(unique("no-js"), locations=("Paris", "Lyon"))
    menus = _menus(hub, owner)
    client = hub.new_client("Plain board")
    context = browser.new_context(viewport=PHONE, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(hub.authorize_url(client, "location[catalog.read]", redirect_uri="urn:ietf:wg:oauth:2.0:oob"))
        page.get_by_label("Email").fill(str(owner["user"]["email"]))  # type: ignore[index]
        page.get_by_label("Password").fill("correct horse 42")
        page.get_by_role("button", name="Log in").click()
        page.get_by_label("Location").select_option(label="Lyon")
        page.get_by_role("button", name="Show the choices for this location").click()
        assert _offered(page, "Catalog") == ["Lyon menu"]
        page.get_by_role("button", name="Allow").click()
        code = page.get_by_label("Authorization code").inner_text()
    finally:
        context.close()
    token = hub.exchange(client, code, redirect_uri="urn:ietf:wg:oauth:2.0:oob")
    assert token["catalog_id"] == menus["Lyon"]


def test_the_secret_is_shown_once_with_copy_buttons(hub: Hub, phone: Phone) -> None:
    owner = hub.new_owner(unique("dev"))
    page = phone.page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=hub.url)
    page.goto(f"{hub.url}/login")
    log_in(phone, str(owner["user"]["email"]))  # type: ignore[index]
    page.get_by_text("Menu", exact=True).click()  # the navigation, on a phone
    page.get_by_role("link", name="Developers").click()
    page.get_by_label("Application name").fill("Copy test")
    page.get_by_label("Redirect URIs").fill("https://app.example/callback")
    page.get_by_role("button", name="Register").click()
    phone.shot("secret")
    client_id = page.get_by_label("Client id").inner_text()
    secret = page.get_by_label("Client secret").inner_text()
    page.get_by_role("button", name="Copy client secret").click()
    expect(page.get_by_text("Client secret copied.")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == secret
    page.get_by_role("button", name="Copy client id").click()
    assert page.evaluate("navigator.clipboard.readText()") == client_id
    page.reload()
    assert page.url == f"{hub.url}/developers/{client_id}"
    assert secret not in page.content()
    page.go_back()  # the secret page again: gone too
    assert secret not in page.content()
    phone.shot("after-reload")
    answer = httpx.post(
        f"{hub.url}/oauth2/v1/token", data={"code": "nope"}, auth=(client_id, secret)
    )  # the secret shown works: the code is what is wrong
    assert answer.json()["error"] == "invalid_grant"
