"""docs/api/oauth.md "Pages": the selection step, one page with the "Location" (or "Account"),
"Catalog" and "Customer list" selects the scope needs; choices limited by spec 5.1; a new
catalog or customer list where the scope may write it."""

from __future__ import annotations

import re

from sqlalchemy import select

from comptoir.models import Catalog, CustomerList
from tests.api.conftest import Shop
from tests.api.oauth2.conftest import Flow, offered, options, query_of
from tests.factories import World

SCOPE = "location[catalog.write,customer_list.read]"


def labels(page: str) -> list[str]:
    return re.findall(r'<label for="([^"]+)">([^<]+)</label>', page)


async def test_one_page_holds_every_select_the_scope_needs_and_allow_and_deny(flow: Flow, shop: Shop) -> None:
    page = await flow.log_in(flow.authorize_url(SCOPE), "owner@example.com")
    assert labels(page.text) == [
        ("target", "Location"),
        ("catalog", "Catalog"),
        ("customer_list", "Customer list"),
    ]
    assert '<button type="submit" name="step" value="allow">Allow</button>' in page.text
    assert 'value="deny" class="secondary" formnovalidate>Deny</button>' in page.text


async def test_an_account_scope_asks_for_an_account(flow: Flow, shop: Shop) -> None:
    page = await flow.log_in(flow.authorize_url("account[orders.read]"), "owner@example.com")
    assert labels(page.text) == [("target", "Account")]
    assert options(page.text, "target") == [shop.account.public_id]


async def test_catalogs_offered_are_those_of_the_users_locations_and_accounts(
    flow: Flow, shop: Shop, world: World
) -> None:
    lyon = await world.catalog(location=shop.other_location, name="Lyon menu")
    shared = await world.catalog(account=shop.account, name="Shared menu")
    await world.catalog(location=await world.location(name="Not yours"), name="Foreign menu")
    page = await flow.log_in(flow.authorize_url(SCOPE), "owner@example.com")
    async with world.db.transaction(write=False) as session:
        menu = await session.scalar(select(Catalog).where(Catalog.name == "Menu"))
    assert options(page.text, "catalog") == [menu.public_id, lyon.public_id, shared.public_id, "new"]
    paris, lyon_id = shop.location.public_id, shop.other_location.public_id
    assert f'<optgroup label="Chez Ada Paris" data-targets="{paris}">' in page.text
    assert f'<optgroup label="Chez Ada Lyon" data-targets="{lyon_id}" hidden disabled>' in page.text
    assert f'<optgroup label="Chez Ada (whole account)" data-targets="{paris} {lyon_id}">' in page.text
    assert offered(page.text, "catalog") == [menu.public_id, shared.public_id, "new"]  # Paris, the first
    assert offered(page.text, "catalog", lyon_id) == [lyon.public_id, shared.public_id, "new"]
    assert "Foreign menu" not in page.text


async def test_a_catalog_of_another_location_is_refused_and_changes_nothing(
    flow: Flow, shop: Shop, world: World
) -> None:
    lyon = await world.catalog(location=shop.other_location, name="Lyon menu")
    url = flow.authorize_url(SCOPE)
    await flow.log_in(url, "owner@example.com")
    before = await world.snapshot()
    refused = await flow.approve(url, "owner@example.com", target=shop.location.public_id, catalog=lyon.public_id)
    assert refused.status_code == 400
    assert "Catalog: “Lyon menu” is not a catalog of Chez Ada Paris or of its account." in refused.text
    assert f'<option value="{lyon.public_id}" selected>' in refused.text  # the choice kept
    assert await world.snapshot() == before


async def test_an_account_level_catalog_can_be_bound_to_a_location(flow: Flow, shop: Shop, world: World) -> None:
    shared = await world.catalog(account=shop.account, name="Shared menu")
    url = flow.authorize_url(SCOPE)
    code = await flow.code(url, "owner@example.com", target=shop.location.public_id, catalog=shared.public_id)
    body = (await flow.exchange(code)).json()
    assert (body["catalog_id"], body["catalog_name"]) == (shared.public_id, "Shared menu")


async def test_a_new_catalog_is_created_at_the_chosen_location_and_bound(flow: Flow, shop: Shop, world: World) -> None:
    url = flow.authorize_url("location[catalog.write]")
    page = await flow.log_in(url, "owner@example.com")
    assert '<option value="new">A new catalog named “Le Site”</option>' in page.text
    code = await flow.code(url, "owner@example.com", target=shop.other_location.public_id, catalog="new")
    body = (await flow.exchange(code)).json()
    assert (body["location_id"], body["catalog_name"]) == (shop.other_location.public_id, "Le Site")
    async with world.db.transaction(write=False) as session:
        created = await session.scalar(select(Catalog).where(Catalog.name == "Le Site"))
    [change] = [c for c in await world.changes() if c.resource_type == "catalog"]  # not the shop's own
    assert (created.public_id, created.location_id) == (body["catalog_id"], shop.other_location.id)
    ids = {"catalog_id": created.public_id, "location_id": shop.other_location.public_id}
    assert (change.event_type, change.ids, change.new_state) == ("create", ids, None)


async def test_a_new_customer_list_needs_the_write_permission(flow: Flow, shop: Shop) -> None:
    read = await flow.log_in(flow.authorize_url(SCOPE), "owner@example.com")
    write = await flow.http.get(flow.authorize_url("location[customer_list.write]"))
    assert "new" not in options(read.text, "customer_list")
    assert options(write.text, "customer_list")[-1] == "new"
    assert "A new customer list named “Le Site”" in write.text


async def test_a_new_list_whose_name_is_taken_is_refused_and_creates_nothing(
    flow: Flow, shop: Shop, world: World
) -> None:
    await world.customer_list(account=shop.account, name="Le Site")  # held account-wide
    url = flow.authorize_url("location[customer_list.write]")
    await flow.log_in(url, "owner@example.com")
    before = await world.snapshot()
    refused = await flow.approve(url, "owner@example.com", target=shop.location.public_id, customer_list="new")
    assert refused.status_code == 400
    assert (
        "Customer list: &#39;Le Site&#39; is already the name of another customer list of this location or account"
        in refused.text
    )
    assert '<option value="new" selected>' in refused.text
    assert await world.snapshot() == before


async def test_a_new_list_is_rolled_back_when_another_choice_is_refused(flow: Flow, shop: Shop, world: World) -> None:
    lyon = await world.catalog(location=shop.other_location, name="Lyon menu")
    url = flow.authorize_url("location[catalog.read,customer_list.write]")
    await flow.log_in(url, "owner@example.com")
    before = await world.snapshot()
    refused = await flow.approve(
        url,
        "owner@example.com",
        target=shop.location.public_id,
        catalog=lyon.public_id,
        customer_list="new",
    )
    assert refused.status_code == 400
    assert await world.snapshot() == before
    async with world.db.transaction(write=False) as session:
        assert await session.scalar(select(CustomerList).where(CustomerList.name == "Le Site")) is None


async def test_a_new_list_at_account_level_for_an_account_scope(flow: Flow, shop: Shop) -> None:
    url = flow.authorize_url("account[customer_list.write]")
    code = await flow.code(url, "owner@example.com", customer_list="new")
    body = (await flow.exchange(code)).json()
    assert (body["account_id"], body["location_id"], body["customer_list_name"]) == (
        shop.account.public_id,
        None,
        "Le Site",
    )
    answer = await flow.http.get(
        f"/v1/customer_lists/{body['customer_list_id']}", headers={"X-Access-Token": body["access_token"]}
    )
    assert answer.json()["name"] == "Le Site"


async def test_without_a_location_there_is_nothing_to_connect(flow: Flow, world: World) -> None:
    await world.user(email="new@example.com")
    page = await flow.log_in(flow.authorize_url("location[orders.read]"), "new@example.com")
    assert "You have no location to connect yet." in page.text
    assert query_of(str(page.url)) != {}
