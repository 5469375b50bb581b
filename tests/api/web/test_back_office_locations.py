"""docs/operations.md "Back office": a location's name, address, postal code, city, country,
timezone and preparation time edited in the back office, with the API's checks and event."""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import select

from comptoir.models import Change
from tests.api.conftest import Shop
from tests.api.web.test_back_office_login import csrf_of, log_in
from tests.factories import World

DETAILS = {
    "name": "Chez Ada Opéra",
    "address": "1 place de l'Opéra",
    "postal_code": "75009",
    "city": "Paris",
    "country": "FR",
    "timezone": "Europe/Paris",
    "preparation_time": "20",
}


async def save(client: httpx.AsyncClient, shop: Shop, **changes: str) -> httpx.Response:
    page = await client.get(f"/locations/{shop.location.public_id}")
    assert page.status_code == 200, page.text
    return await client.post(
        f"/locations/{shop.location.public_id}", data={"csrf": csrf_of(page.text), **DETAILS, **changes}
    )


async def location_updates(world: World) -> list[Any]:
    async with world.db.transaction(write=False) as session:
        return list(await session.scalars(select(Change).where(Change.resource_type == "location")))


async def test_the_owner_renames_a_location_and_the_api_and_the_events_see_it(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    saved = await save(client, shop)
    assert (saved.status_code, saved.headers["location"]) == (303, f"/locations/{shop.location.public_id}?saved=1")
    page = await client.get(saved.headers["location"])
    assert 'value="Chez Ada Opéra"' in page.text
    assert '<p role="status">Saved.</p>' in page.text
    api = (await client.get("/v1/location", headers=shop.headers())).json()
    assert (api["name"], api["address"], api["postal_code"], api["preparation_time"]) == (
        "Chez Ada Opéra", "1 place de l'Opéra", "75009", 20,
    )  # fmt: skip
    [change] = await location_updates(world)
    assert (change.previous_state["name"], change.new_state["name"]) == ("Chez Ada Paris", "Chez Ada Opéra")
    assert change.client_id is None  # caused by the back office, so every connection hears of it


async def test_bad_values_are_refused_together_and_change_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await log_in(client, "owner@example.com")
    before = await world.snapshot()
    refused = await save(client, shop, name="", country="ZZ", timezone="Mars/Olympus", preparation_time="20000")
    assert refused.status_code == 400
    for message in (
        "Name: must not be empty",
        "Country: &#39;ZZ&#39; is not an ISO 3166-1 alpha-2 country code",
        "Timezone: &#39;Mars/Olympus&#39; is not an IANA timezone name",
    ):
        assert message in refused.text
    assert await world.snapshot() == before
    late = await save(client, shop, preparation_time="20000")
    assert late.status_code == 400
    assert "Preparation time: must be between 0 and" in late.text
    assert await world.snapshot() == before


async def test_another_owners_location_is_not_found_and_a_forged_form_refused(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    theirs = await world.location(name="Not yours")
    await log_in(client, "owner@example.com")
    assert (await client.get(f"/locations/{theirs.public_id}")).status_code == 404
    before = await world.snapshot()
    forged = await client.post(f"/locations/{shop.location.public_id}", data={"csrf": "x", **DETAILS})
    assert forged.status_code == 403
    assert "<h1>This form has expired</h1>" in forged.text  # docs/back-office.md: a bad CSRF token
    assert await world.snapshot() == before


async def test_the_page_needs_a_login(client: httpx.AsyncClient, shop: Shop) -> None:
    answer = await client.get(f"/locations/{shop.location.public_id}")
    assert (answer.status_code, answer.headers["location"]) == (303, "/login")
