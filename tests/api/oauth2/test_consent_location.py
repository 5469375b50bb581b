"""docs/api/oauth.md "The consent page": the catalogs and customer lists offered follow the
chosen location (a script narrows them as the choice changes; without it, a "choose" step),
and a location that cannot be connected under the scope says why and what would allow it."""

from __future__ import annotations

import base64
import hashlib

from tests.api.conftest import Shop
from tests.api.oauth2.conftest import Flow, form_of, offered
from tests.factories import World

CANNOT_LYON = (
    "Chez Ada Lyon cannot be connected: it has no customer list this application can use, and the "
    "application may only read a customer list, not create one. Create a customer list for Chez Ada Lyon "
    "(or for the whole account Chez Ada) in the back office, then come back to this page."
)


async def test_without_the_script_a_choose_step_offers_the_chosen_locations_catalogs(
    flow: Flow, shop: Shop, world: World
) -> None:
    lyon_menu = await world.catalog(location=shop.other_location, name="Lyon menu")
    url = flow.authorize_url("location[catalog.read]")
    page = await flow.log_in(url, "owner@example.com")
    assert 'id="choose" class="secondary" formnovalidate>Show the choices for this location</button>' in page.text
    action, hidden = form_of(page.text)
    chosen = await flow.http.post(action, data={**hidden, "step": "choose", "target": shop.other_location.public_id})
    assert chosen.status_code == 200
    assert f'<option value="{shop.other_location.public_id}" selected>' in chosen.text
    assert offered(chosen.text, "catalog") == [lyon_menu.public_id]
    allowed = await flow.http.post(
        action,
        data={**hidden, "step": "allow", "target": shop.other_location.public_id, "catalog": lyon_menu.public_id},
    )
    assert allowed.status_code == 303


async def test_one_location_needs_no_choose_step(flow: Flow, world: World) -> None:
    owner = await world.user(email="solo@example.com")
    account = await world.account(owner=owner, name="Solo")
    await world.catalog(location=await world.location(account, name="Only"), name="Menu")
    page = await flow.log_in(flow.authorize_url("location[catalog.read]"), "solo@example.com")
    assert 'id="choose"' not in page.text


async def test_a_location_that_cannot_be_connected_says_why_and_what_would_allow_it(
    flow: Flow, shop: Shop, world: World
) -> None:
    url = flow.authorize_url("location[customer_list.read]")
    page = await flow.log_in(url, "owner@example.com")
    lyon = shop.other_location.public_id
    assert f'<p class="error" data-blocked-for="{lyon}" hidden>{CANNOT_LYON}</p>' in page.text
    action, hidden = form_of(page.text)
    chosen = await flow.http.post(action, data={**hidden, "step": "choose", "target": lyon})
    assert f'<p class="error" data-blocked-for="{lyon}">{CANNOT_LYON}</p>' in chosen.text
    assert '<button type="submit" name="step" value="allow" disabled>Allow</button>' in chosen.text
    assert '<button type="submit" name="step" value="allow">Allow</button>' in page.text  # Paris has one
    before = await world.snapshot()
    refused = await flow.http.post(action, data={**hidden, "step": "allow", "target": lyon, "customer_list": ""})
    assert refused.status_code == 400
    assert f'<p class="error" role="alert">{CANNOT_LYON}</p>' in refused.text
    assert await world.snapshot() == before


async def test_the_consent_page_runs_its_narrowing_script_and_no_other(flow: Flow, shop: Shop) -> None:
    page = await flow.log_in(flow.authorize_url("location[catalog.read]"), "owner@example.com")
    script = page.text.split("<script>")[1].split("</script>")[0]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert page.headers["content-security-policy"].endswith(f"; script-src 'sha256-{digest}'")
    assert "data-targets" in script
