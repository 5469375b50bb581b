"""The permissions catalog routes declare beyond one scope (`auth.access`: `WriteOn`,
`PerLevel`, `KindByQuery`; docs/api/catalogs.md "Access", docs/api/inventory.md "Access",
docs/api/conventions.md "Rate limits"), and that a catalog out of reach stays a 404."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from comptoir.kit import clock
from comptoir.models import Catalog
from tests.api.catalogs.test_catalogs import headers, menu_of
from tests.api.catalogs.test_images import PNG
from tests.api.conftest import Shop
from tests.factories import World


@pytest.fixture
async def shared(world: World, shop: Shop) -> Catalog:
    return await world.catalog(account=shop.account, name="Shared")


async def test_the_write_scope_of_another_bound_catalog_is_403_on_a_catalog_it_reads(
    client: httpx.AsyncClient, shop: Shop, world: World, shared: Catalog
) -> None:
    menu = await menu_of(world, shop)
    scope = "location[catalog.write,all_catalogs.read]"
    token = await world.token(scope, location=shop.location, catalog=shared)
    before = await world.snapshot()
    for answer in (
        await client.put(f"/v1/catalogs/{menu.public_id}", json={"name": "X"}, headers=headers(token)),
        await client.delete(f"/v1/catalogs/{menu.public_id}", headers=headers(token)),
    ):
        assert (answer.status_code, answer.json()) == (
            403,
            {
                "error_type": "forbidden",
                "message": f"The connection's scope ({scope}) does not allow this request: it needs catalog.write",
            },
        )
    upload = await client.post(
        f"/v1/catalogs/{menu.public_id}/images", content=PNG, headers={**headers(token), "Content-Type": "image/png"}
    )
    assert (upload.status_code, upload.json()) == (
        403,
        {
            "error_type": "forbidden",
            "message": f"The connection's scope ({scope}) does not allow adding images to catalog '{menu.public_id}'",
        },
    )
    assert await world.snapshot() == before


async def test_a_location_token_changing_an_account_level_catalog_it_only_reads_is_401(
    client: httpx.AsyncClient, shop: Shop, world: World, shared: Catalog
) -> None:
    menu = await menu_of(world, shop)
    token = await world.token("location[catalog.write,all_catalogs.read]", location=shop.location, catalog=menu)
    before = await world.snapshot()
    put = await client.put(f"/v1/catalogs/{shared.public_id}", json={"name": "X"}, headers=headers(token))
    assert (put.status_code, put.json()) == (
        401,
        {"error_type": "unauthorized", "message": "A location-level token cannot update an account-level catalog"},
    )
    assert await world.snapshot() == before


async def test_a_catalog_out_of_reach_is_404_whatever_the_write_rule(
    client: httpx.AsyncClient, shop: Shop, world: World, shared: Catalog
) -> None:
    lyon = await world.catalog(location=shop.other_location, name="Lyon")
    theirs = await world.catalog(account=await world.account(name="Elsewhere"), name="Theirs")
    bound_elsewhere = await world.token("location[catalog.write]", location=shop.location, catalog=shared)
    every = await world.token("location[all_catalogs.write]", location=shop.location)
    before = await world.snapshot()
    for token in (bound_elsewhere, every):
        for catalog in (lyon, theirs):
            put = await client.put(f"/v1/catalogs/{catalog.public_id}", json={"name": "X"}, headers=headers(token))
            delete = await client.delete(f"/v1/catalogs/{catalog.public_id}", headers=headers(token))
            for answer in (put, delete):
                assert (answer.status_code, answer.json()) == (
                    404,
                    {"error_type": "not_found", "message": f"No catalog with id '{catalog.public_id}'"},
                )
    assert await world.snapshot() == before


async def test_a_refused_change_of_a_catalog_is_refused_before_its_body_is_read(
    client: httpx.AsyncClient, shop: Shop, world: World, shared: Catalog
) -> None:
    token = await world.token("location[all_catalogs.write]", location=shop.location)
    before = await world.snapshot()
    answer = await client.put(
        f"/v1/catalogs/{shared.public_id}",
        content=b"{not json",
        headers={**headers(token), "Content-Type": "application/json"},
    )
    assert (answer.status_code, answer.json()["error_type"]) == (401, "unauthorized")
    assert await world.snapshot() == before


async def test_an_account_token_with_the_deprecated_catalog_scopes_is_403_for_inventory(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    menu = await menu_of(world, shop)
    scope = "account[catalog.write]"
    token = await world.token(scope, account=shop.account, catalog=menu)
    path = f"/v1/catalogs/{menu.public_id}/locations/{shop.location.public_id}/inventory"
    before = await world.snapshot()
    for answer, right in (
        (await client.get(path, headers=headers(token)), "read"),
        (await client.put(path, json=[], headers=headers(token)), "write"),
        (await client.patch(path, json=[], headers=headers(token)), "write"),
    ):
        assert (answer.status_code, answer.json()) == (
            403,
            {
                "error_type": "forbidden",
                "message": f"The connection's scope ({scope}) does not allow this request: it needs inventory.{right}",
            },
        )
    assert await world.snapshot() == before


async def test_a_location_token_reads_inventory_with_the_deprecated_catalog_scope_at_both_forms(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    menu = await menu_of(world, shop)
    token = await world.token("location[catalog.read]", location=shop.location, catalog=menu)
    for path in (
        f"/v1/catalogs/{menu.public_id}/locations/{shop.location.public_id}/inventory",
        f"/v1/catalogs/{menu.public_id}/location/inventory",
    ):
        answer = await client.get(path, headers=headers(token))
        assert (answer.status_code, answer.json()) == (200, [])


async def test_a_malformed_hide_data_counts_as_a_heavy_query(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    clock.freeze(datetime(2026, 3, 2, 10, 0, 5, tzinfo=UTC))  # one rate-limit minute for all
    menu = await menu_of(world, shop)
    path = f"/v1/catalogs/{menu.public_id}"
    for _ in range(10):
        assert (await client.get(path, params={"hide_data": "0"}, headers=shop.headers())).status_code == 200
    assert (await client.get(path, params={"hide_data": "maybe"}, headers=shop.headers())).status_code == 429
    assert (await client.get(path, params={"hide_data": "1"}, headers=shop.headers())).status_code == 200
