"""spec 2.4 rules 1-3, 4.3 and docs/api/catalogs.md "Access": catalogs themselves, over HTTP."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from sqlalchemy import select

from comptoir.kit import clock
from comptoir.models import Catalog
from tests.api.catalogs.conftest import create, full
from tests.api.conftest import Shop
from tests.factories import World


def headers(token: str) -> dict[str, str]:
    return {"X-Access-Token": token}


async def menu_of(world: World, shop: Shop) -> Catalog:
    """The shop's location-level catalog "Menu", bound to its location token."""
    async with world.db.transaction(write=False) as session:
        found = await session.scalar(select(Catalog).where(Catalog.location_id == shop.location.id))
        assert found is not None
        return found


async def changes(world: World) -> list[tuple[str, str, Any, Any, Any]]:
    rows = [c for c in await world.changes() if c.resource_type == "catalog"]  # the test's, not its shop's
    return [(c.event_type, c.ids["catalog_id"], c.previous_state, c.new_state, c.state_change) for c in rows]


async def test_a_location_level_catalog_is_created_with_its_location_and_time(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    answer = await create(client, shop, {"name": "Lunch"})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert set(body) == {"id", "name", "created_at", "location_id", "account_id", "data"}
    assert (body["name"], body["location_id"], body["account_id"]) == ("Lunch", shop.location.public_id, None)
    created_at = datetime.fromisoformat(body["created_at"])  # Paris (docs/api/conventions.md "Fields")
    assert created_at.utcoffset() == created_at.astimezone(ZoneInfo("Europe/Paris")).utcoffset()
    assert await changes(world) == [("create", body["id"], None, None, None)]


async def test_an_account_level_catalog_has_the_account_id_and_utc(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    answer = await create(client, shop, {"name": "Everywhere"}, path=f"/v1/accounts/{shop.account.public_id}/catalogs")
    body = answer.json()
    assert (body["location_id"], body["account_id"]) == (None, shop.account.public_id)
    assert body["created_at"].endswith("+00:00")
    short = await create(
        client, shop, {"name": "Also everywhere"}, path="/v1/account/catalogs", token=shop.account_token
    )
    assert short.json()["account_id"] == shop.account.public_id


async def test_creating_needs_all_catalogs_write(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    before = await world.snapshot()
    answer = await create(client, shop, {"name": "Nope"}, path="/v1/location/catalogs", token=shop.location_token)
    assert answer.status_code == 403
    assert answer.json()["error_type"] == "forbidden"
    assert await world.snapshot() == before
    token = await world.token("location[all_catalogs.write]", location=shop.location)
    made = await create(client, shop, {"name": "Yes"}, path="/v1/location/catalogs", token=token)
    assert made.json()["location_id"] == shop.location.public_id


async def test_a_location_token_cannot_create_at_account_level(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    token = await world.token("location[all_catalogs.write]", location=shop.location)
    before = await world.snapshot()
    answer = await create(
        client, shop, {"name": "X"}, path=f"/v1/accounts/{shop.account.public_id}/catalogs", token=token
    )
    assert (answer.status_code, answer.json()) == (
        403,
        {"error_type": "forbidden", "message": "This endpoint needs an account-level token"},
    )
    assert await world.snapshot() == before


@pytest.mark.parametrize(
    ("where", "name", "taken"),
    [
        ("location", "Menu", True),  # the shop's Paris catalog
        ("other_location", "Menu", False),  # two locations may share a name (spec 2.4 rule 2)
        ("account", "Menu", True),  # a location and its account may not
    ],
)
async def test_names_are_unique_per_location_and_account(
    client: httpx.AsyncClient, shop: Shop, world: World, where: str, name: str, taken: bool
) -> None:
    path = {
        "location": f"/v1/locations/{shop.location.public_id}/catalogs",
        "other_location": f"/v1/locations/{shop.other_location.public_id}/catalogs",
        "account": f"/v1/accounts/{shop.account.public_id}/catalogs",
    }[where]
    before = await world.snapshot()
    answer = await create(client, shop, {"name": name}, path=path)
    if taken:
        assert answer.status_code == 422
        assert answer.json()["errors"] == [
            {"field": "name", "message": "'Menu' is already the name of another catalog of this location or account"}
        ]
        assert await world.snapshot() == before
    else:
        assert answer.status_code == 200


async def test_an_account_level_name_is_taken_for_every_location(client: httpx.AsyncClient, shop: Shop) -> None:
    await create(client, shop, {"name": "Shared"}, path=f"/v1/accounts/{shop.account.public_id}/catalogs")
    answer = await create(
        client, shop, {"name": "Shared"}, path=f"/v1/locations/{shop.other_location.public_id}/catalogs"
    )
    assert answer.status_code == 422
    assert answer.json()["errors"] == [
        {"field": "name", "message": "'Shared' is already the name of another catalog of this location or account"}
    ]


async def test_a_name_is_required_and_checked_with_the_data_in_one_answer(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    before = await world.snapshot()
    answer = await create(client, shop, {"data": {"variants": [{"ref": "v"}]}})
    assert answer.status_code == 422
    assert answer.json()["errors"] == [
        {"field": "name", "message": "must not be empty"},
        {"field": "data.variants[0].name", "message": "is required"},
    ]
    assert await world.snapshot() == before


async def test_get_with_hide_data_omits_it_and_a_bad_value_is_400(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    menu = await menu_of(world, shop)
    hidden = await client.get(f"/v1/catalogs/{menu.public_id}?hide_data=true", headers=shop.headers())
    assert hidden.status_code == 200
    assert set(hidden.json()) == {"id", "name", "created_at", "location_id", "account_id"}
    bad = await client.get(f"/v1/catalogs/{menu.public_id}?hide_data=maybe", headers=shop.headers())
    assert bad.status_code == 400
    assert bad.json() == {"error_type": "bad_request", "message": "hide_data must be true or false, not 'maybe'"}


async def test_a_location_lists_its_catalogs_and_the_accounts(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    await world.catalog(location=shop.other_location, name="Lyon")
    shared = await world.catalog(account=shop.account, name="Shared")
    menu = await menu_of(world, shop)
    listed = await client.get(
        f"/v1/locations/{shop.location.public_id}/catalogs", headers=shop.headers(shop.account_token)
    )
    assert [c["id"] for c in listed.json()] == [menu.public_id, shared.public_id]
    assert all("data" not in c for c in listed.json())
    account = await client.get("/v1/account/catalogs", headers=shop.headers(shop.account_token))
    assert [c["id"] for c in account.json()] == [shared.public_id]
    bound_only = await client.get("/v1/location/catalogs", headers=shop.headers())  # catalog.write: the bound one
    assert [c["id"] for c in bound_only.json()] == [menu.public_id]


async def test_put_with_a_name_only_keeps_the_data(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    made = (await create(client, shop, {"name": "Carte", "data": full()})).json()
    renamed = await client.put(
        f"/v1/catalogs/{made['id']}", json={"name": "La carte"}, headers=shop.headers(shop.account_token)
    )
    assert renamed.status_code == 200
    assert renamed.json() == {**made, "name": "La carte"}
    assert [c[0] for c in await changes(world)] == ["create", "update"]


async def test_put_with_data_replaces_all_content(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    made = (await create(client, shop, {"name": "Carte", "data": full()})).json()
    new_data = {
        "categories": [{"ref": "c", "name": "Only"}],
        "products": [{"category_ref": "c", "name": "P", "skus": [{"price": "1 EUR"}]}],
    }
    put = await client.put(
        f"/v1/catalogs/{made['id']}", json={"data": new_data}, headers=shop.headers(shop.account_token)
    )
    assert put.status_code == 200, put.text
    data = put.json()["data"]
    assert (data["variants"], data["option_lists"], data["deals"]) == ([], [], [])
    assert [p["name"] for p in data["products"]] == ["P"]
    old_product = made["data"]["products"][0]["id"]
    gone = await client.get(
        f"/v1/catalogs/{made['id']}/products/{old_product}", headers=shop.headers(shop.account_token)
    )
    assert (gone.status_code, gone.json()) == (
        404,
        {"error_type": "not_found", "message": f"No product with id {old_product!r}"},
    )


async def test_an_invalid_put_leaves_the_previous_catalog_whole(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    made = (await create(client, shop, {"name": "Carte", "data": full()})).json()
    before = await world.snapshot()
    bad = {
        "name": "Renamed",
        "data": {"products": [{"category_ref": "nowhere", "name": "P", "skus": [{"price": "1 EUR"}]}]},
    }
    put = await client.put(f"/v1/catalogs/{made['id']}", json=bad, headers=shop.headers(shop.account_token))
    assert put.status_code == 422
    assert put.json()["errors"] == [
        {"field": "data.products[0].category_ref", "message": "no category has the ref 'nowhere'"}
    ]
    assert await world.snapshot() == before
    read = await client.get(f"/v1/catalogs/{made['id']}", headers=shop.headers(shop.account_token))
    assert read.json() == made


async def test_put_to_a_taken_name_is_refused(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    made = (await create(client, shop, {"name": "Carte"})).json()
    before = await world.snapshot()
    put = await client.put(
        f"/v1/catalogs/{made['id']}", json={"name": "Menu"}, headers=shop.headers(shop.account_token)
    )
    assert put.status_code == 422
    assert put.json()["errors"] == [
        {"field": "name", "message": "'Menu' is already the name of another catalog of this location or account"}
    ]
    assert await world.snapshot() == before


async def test_delete_answers_the_catalog_as_it_was_and_frees_its_name(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    made = (await create(client, shop, {"name": "Carte", "data": full()})).json()
    deleted = await client.delete(f"/v1/catalogs/{made['id']}", headers=shop.headers(shop.account_token))
    assert deleted.status_code == 200
    assert deleted.json() == made
    assert (await client.get(f"/v1/catalogs/{made['id']}", headers=shop.headers(shop.account_token))).status_code == 404
    assert (await create(client, shop, {"name": "Carte"})).status_code == 200
    assert [c[0] for c in await changes(world)] == ["create", "delete", "create"]


async def test_deleting_the_bound_catalog_unbinds_the_connection(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    menu = await menu_of(world, shop)
    deleted = await client.delete(f"/v1/catalogs/{menu.public_id}", headers=shop.headers())  # catalog.write, bound
    assert deleted.status_code == 200
    assert (await client.get("/v1/location/catalogs", headers=shop.headers())).json() == []


# --- docs/api/catalogs.md "Access" -----------------------------------------------------


@pytest.fixture
async def shared(world: World, shop: Shop) -> Catalog:
    return await world.catalog(account=shop.account, name="Shared")


async def test_a_location_token_modifying_an_account_level_catalog_is_401(
    client: httpx.AsyncClient, shop: Shop, world: World, shared: Catalog
) -> None:
    token = await world.token("location[all_catalogs.write]", location=shop.location)
    before = await world.snapshot()
    put = await client.put(f"/v1/catalogs/{shared.public_id}", json={"name": "X"}, headers=headers(token))
    delete = await client.delete(f"/v1/catalogs/{shared.public_id}", headers=headers(token))
    for answer, action in ((put, "update"), (delete, "delete")):
        assert answer.status_code == 401
        assert answer.json() == {
            "error_type": "unauthorized",
            "message": f"A location-level token cannot {action} an account-level catalog",
        }
    assert await world.snapshot() == before


async def test_the_bound_account_level_catalog_may_be_updated_not_deleted_with_catalog_write(
    client: httpx.AsyncClient, shop: Shop, world: World, shared: Catalog
) -> None:
    token = await world.token("location[catalog.write]", location=shop.location, catalog=shared)
    put = await client.put(f"/v1/catalogs/{shared.public_id}", json={"data": full()}, headers=headers(token))
    assert put.status_code == 200
    assert (put.json()["id"], put.json()["name"], put.json()["account_id"]) == (
        shared.public_id,
        "Shared",
        shop.account.public_id,
    )
    assert [p["ref"] for p in put.json()["data"]["products"]] == [p.get("ref") for p in full()["products"]]
    before = await world.snapshot()
    delete = await client.delete(f"/v1/catalogs/{shared.public_id}", headers=headers(token))
    assert (delete.status_code, delete.json()) == (
        401,
        {"error_type": "unauthorized", "message": "A location-level token cannot delete an account-level catalog"},
    )
    assert await world.snapshot() == before


async def test_catalog_scope_reaches_only_the_bound_catalog(
    client: httpx.AsyncClient, shop: Shop, world: World, shared: Catalog
) -> None:
    token = await world.token("location[catalog.read]", location=shop.location, catalog=shared)
    menu = await menu_of(world, shop)
    assert (await client.get(f"/v1/catalogs/{shared.public_id}", headers=headers(token))).status_code == 200
    assert (await client.get(f"/v1/catalogs/{menu.public_id}", headers=headers(token))).status_code == 404
    before = await world.snapshot()
    put = await client.put(f"/v1/catalogs/{shared.public_id}", json={"name": "X"}, headers=headers(token))
    assert (put.status_code, put.json()) == (  # read only
        403,
        {
            "error_type": "forbidden",
            "message": "The connection's scope (location[catalog.read]) does not allow this request: "
            "it needs catalog.write or all_catalogs.write",
        },
    )
    assert await world.snapshot() == before


async def test_other_locations_and_accounts_catalogs_are_404(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    lyon = await world.catalog(location=shop.other_location, name="Lyon")
    token = await world.token("location[all_catalogs.read]", location=shop.location)
    assert (await client.get(f"/v1/catalogs/{lyon.public_id}", headers=headers(token))).status_code == 404
    elsewhere = await world.catalog(account=await world.account(name="Elsewhere"), name="Theirs")
    answer = await client.get(f"/v1/catalogs/{elsewhere.public_id}", headers=shop.headers(shop.account_token))
    assert answer.status_code == 404
    assert answer.json()["error_type"] == "not_found"


async def test_a_scope_without_catalog_permissions_is_403(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    token = await world.token("location[orders.write]", location=shop.location)
    menu = await menu_of(world, shop)
    for path in (f"/v1/catalogs/{menu.public_id}", "/v1/location/catalogs", f"/v1/catalogs/{menu.public_id}/products"):
        answer = await client.get(path, headers=headers(token))
        assert (answer.status_code, answer.json()) == (
            403,
            {
                "error_type": "forbidden",
                "message": "The connection's scope (location[orders.write]) does not allow this request: "
                "it needs catalog.read or all_catalogs.read",
            },
        ), path


async def test_a_catalog_get_has_an_etag_that_changes_with_name_and_data(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    made = (await create(client, shop, {"name": "Carte", "data": full()})).json()
    path, auth = f"/v1/catalogs/{made['id']}", shop.headers(shop.account_token)
    first = await client.get(path, headers=auth)
    etag = first.headers["etag"]
    assert first.json() == made
    same = await client.get(path, headers={**auth, "If-None-Match": etag})
    assert (same.status_code, same.content, same.headers["etag"]) == (304, b"", etag)
    await client.put(path, json={"name": "La carte"}, headers=auth)
    renamed = await client.get(path, headers={**auth, "If-None-Match": etag})
    assert renamed.status_code == 200
    assert renamed.json()["name"] == "La carte"
    await client.put(path, json={"data": {"variants": [{"ref": "v", "name": "V"}]}}, headers=auth)
    replaced = await client.get(path, headers={**auth, "If-None-Match": renamed.headers["etag"]})
    assert replaced.status_code == 200
    assert replaced.json()["data"]["variants"] == [{"ref": "v", "name": "V"}]
    assert len({etag, renamed.headers["etag"], replaced.headers["etag"]}) == 3


async def test_a_put_changing_nothing_records_no_event(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    made = (await create(client, shop, {"name": "Carte"})).json()
    path, auth = f"/v1/catalogs/{made['id']}", shop.headers(shop.account_token)
    assert (await client.put(path, json={}, headers=auth)).json() == made
    assert (await client.put(path, json={"name": "Carte"}, headers=auth)).json() == made
    assert [c[0] for c in await changes(world)] == ["create"]


async def test_a_catalog_with_data_is_a_heavy_query_and_hide_data_is_not(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    clock.freeze(datetime(2026, 3, 2, 10, 0, 5, tzinfo=UTC))  # one rate-limit minute for all
    menu = await menu_of(world, shop)
    whole = [
        (await client.get(f"/v1/catalogs/{menu.public_id}", headers=shop.headers())).status_code for _ in range(11)
    ]
    assert whole == [200] * 10 + [429]
    light = await client.get(f"/v1/catalogs/{menu.public_id}?hide_data=true", headers=shop.headers())
    assert light.status_code == 200


async def test_image_requests_count_against_the_image_limits_only(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    menu = await menu_of(world, shop)
    images = await client.get(f"/v1/catalogs/{menu.public_id}/images", headers=shop.headers())
    assert images.headers["RateLimit-Policy"] == '"image-minute";q=3000;w=60, "image-day";q=100000;w=86400'
    general = await client.get("/v1/location", headers=shop.headers())
    assert general.headers["RateLimit"].startswith('"minute";r=499;')  # the image GET did not count


async def test_deleting_a_catalog_deletes_its_items_inventory_and_images(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    from tests.api.catalogs.test_images import PNG

    before = await world.snapshot()
    made = (await create(client, shop, {"name": "Carte", "data": full()})).json()
    auth = shop.headers(shop.account_token)
    image = await client.post(
        f"/v1/catalogs/{made['id']}/images?private_ref=hero", content=PNG, headers={**auth, "Content-Type": "image/png"}
    )
    assert image.status_code == 200
    stock = [{"sku_ref": "cola", "stock": "3"}]
    inventory = f"/v1/catalogs/{made['id']}/locations/{shop.location.public_id}/inventory"
    assert (await client.put(inventory, json=stock, headers=auth)).status_code == 200
    assert (await client.delete(f"/v1/catalogs/{made['id']}", headers=auth)).status_code == 200
    after = await world.snapshot()
    for table in ("catalogs", "catalog_contents", "catalog_items", "inventory_entries", "catalog_images", "image_data"):
        assert after[table] == before[table], table
    assert after["private_refs"] == before["private_refs"]
    assert after["name_claims"] == before["name_claims"]
