"""catalog.create/update/delete events carry the catalog id, its location or account id
and no state (spec 6.3 item 3), in the location's time for a location-level catalog."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx

from comptoir.kit import clock
from tests.api.callbacks.conftest import subscribe
from tests.api.catalogs.conftest import create, full
from tests.api.conftest import Shop
from tests.api.customers.test_customer_events import full_events
from tests.factories import World


async def test_catalog_events_carry_the_id_and_no_state(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    token = await world.token(
        "account[all_catalogs.read]", account=shop.account, client=await world.client(name="Menu screen")
    )
    await subscribe(client, token, {"catalog": ["create", "update", "delete"]})
    clock.freeze(datetime(2026, 6, 24, 15, 7, 53, tzinfo=UTC))
    made = (await create(client, shop, {"name": "Carte", "data": full()})).json()
    await client.put(f"/v1/catalogs/{made['id']}", json={"name": "La carte"}, headers=shop.headers(shop.account_token))
    await client.delete(f"/v1/catalogs/{made['id']}", headers=shop.headers(shop.account_token))
    shared = (await create(client, shop, {"name": "Shared"}, path="/v1/account/catalogs")).json()
    events = await full_events(client, token)
    assert [(e["event_type"], e["catalog_id"], e["created_at"]) for e in events] == [
        ("create", made["id"], "2026-06-24T17:07:53+02:00"),
        ("update", made["id"], "2026-06-24T17:07:53+02:00"),
        ("delete", made["id"], "2026-06-24T17:07:53+02:00"),
        ("create", shared["id"], "2026-06-24T15:07:53+00:00"),
    ]
    base = {"id", "resource_type", "event_type", "created_at", "catalog_id"}
    assert [set(e) - base for e in events] == [{"location_id"}] * 3 + [{"account_id"}]
    assert {e["location_id"] for e in events[:3]} == {shop.location.public_id}
    assert events[3]["account_id"] == shop.account.public_id


async def test_a_connection_bound_to_another_catalog_gets_no_event(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    lyon = await world.catalog(location=shop.other_location, name="Lyon")
    token = await world.token(
        "location[catalog.read]", location=shop.other_location, catalog=lyon, client=await world.client(name="Kiosk")
    )
    await subscribe(client, token, {"catalog": ["create", "update", "delete"]})
    await create(client, shop, {"name": "Paris only"})
    assert await full_events(client, token) == []
