"""spec 2.6 and 4.4: customer lists, their naming rules (enforced by the database), rename
and delete; docs/api/customers.md "Customer lists" (created_at on every read) and "Names"
(422 for name conflicts)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import httpx

from comptoir.kit import clock
from tests.api.conftest import Shop
from tests.api.customers.conftest import new_card, new_customer
from tests.factories import World


def account_path(shop: Shop) -> str:
    return f"/v1/accounts/{shop.account.public_id}/customer_lists"


def location_path(shop: Shop, other: bool = False) -> str:
    location = shop.other_location if other else shop.location
    return f"/v1/locations/{location.public_id}/customer_lists"


async def create(client: httpx.AsyncClient, shop: Shop, path: str, name: str) -> httpx.Response:
    return await client.post(path, json={"name": name}, headers=shop.headers(shop.account_token))


async def test_get_answers_id_name_and_created_at_in_the_locations_timezone(
    client: httpx.AsyncClient, shop: Shop
) -> None:
    clock.freeze(datetime(2026, 6, 24, 15, 7, 53, tzinfo=UTC))
    created = (await create(client, shop, location_path(shop), "Regulars")).json()
    response = await client.get(f"/v1/customer_lists/{created['id']}", headers=shop.headers(shop.account_token))
    assert response.status_code == 200
    assert response.json() == {"id": created["id"], "name": "Regulars", "created_at": "2026-06-24T17:07:53+02:00"}


async def test_an_account_level_list_reads_its_time_in_utc(client: httpx.AsyncClient, shop: Shop) -> None:
    clock.freeze(datetime(2026, 6, 24, 15, 7, 53, tzinfo=UTC))
    response = await create(client, shop, account_path(shop), "Everyone")
    assert response.status_code == 200
    assert response.json()["created_at"] == "2026-06-24T15:07:53+00:00"


async def test_a_locations_lists_include_account_level_ones_and_an_accounts_only_its_own(
    client: httpx.AsyncClient, shop: Shop
) -> None:
    everyone = (await create(client, shop, account_path(shop), "Everyone")).json()
    lyon = (await create(client, shop, location_path(shop, other=True), "Lyon regulars")).json()
    token = shop.headers(shop.account_token)
    paris = [item["name"] for item in (await client.get(location_path(shop), headers=token)).json()]
    assert paris == ["Customers", "Everyone"]
    lyon_lists = (await client.get(location_path(shop, other=True), headers=token)).json()
    assert [item["id"] for item in lyon_lists] == [everyone["id"], lyon["id"]]
    assert (await client.get(account_path(shop), headers=token)).json() == [everyone]
    assert (await client.get("/v1/account/customer_lists", headers=token)).json() == [everyone]


async def test_the_short_forms_need_the_matching_token_level(client: httpx.AsyncClient, shop: Shop) -> None:
    own = await client.get("/v1/location/customer_lists", headers=shop.headers())
    assert (own.status_code, [item["name"] for item in own.json()]) == (200, ["Customers"])
    wrong = await client.get("/v1/location/customer_lists", headers=shop.headers(shop.account_token))
    assert (wrong.status_code, wrong.json()) == (
        403,
        {"error_type": "forbidden", "message": "This endpoint needs a location-level token"},
    )
    account_only = {"error_type": "forbidden", "message": "This endpoint needs an account-level token"}
    for path in ("/v1/account/customer_lists", account_path(shop)):
        answer = await client.get(path, headers=shop.headers())
        assert (answer.status_code, answer.json()) == (403, account_only), path


async def test_lists_are_paginated(client: httpx.AsyncClient, shop: Shop) -> None:
    for name in ("A", "B"):
        await create(client, shop, location_path(shop), name)
    token = shop.headers(shop.account_token)
    first = await client.get(location_path(shop), params={"count": 2}, headers=token)
    assert [item["name"] for item in first.json()] == ["Customers", "A"]
    cursor = first.headers["X-Cursor-Next"]
    second = await client.get(location_path(shop), params={"count": 2, "cursor": cursor}, headers=token)
    assert [item["name"] for item in second.json()] == ["B"]
    assert "X-Cursor-Next" not in second.headers


async def test_create_with_the_short_forms(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    location_token = await world.token("location[all_customer_lists.write]", location=shop.location)
    response = await client.post(
        "/v1/location/customer_lists", json={"name": "Paris VIP"}, headers=shop.headers(location_token)
    )
    assert response.status_code == 200
    assert response.json()["name"] == "Paris VIP"
    response = await client.post(
        "/v1/account/customer_lists", json={"name": "All VIP"}, headers=shop.headers(shop.account_token)
    )
    assert response.status_code == 200
    names = [
        item["name"] for item in (await client.get(location_path(shop), headers=shop.headers(location_token))).json()
    ]
    assert names == ["Customers", "Paris VIP", "All VIP"]


async def test_a_name_is_unique_within_a_location(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    before = await world.snapshot()
    response = await create(client, shop, location_path(shop), "Customers")
    assert response.status_code == 422
    assert response.json() == {
        "error_type": "unprocessable_entity",
        "message": "name: 'Customers' is already the name of another customer list of this location or account",
        "errors": [
            {
                "field": "name",
                "message": "'Customers' is already the name of another customer list of this location or account",
            }
        ],
    }
    assert await world.snapshot() == before


async def test_two_locations_may_each_have_a_list_of_the_same_name(client: httpx.AsyncClient, shop: Shop) -> None:
    response = await create(client, shop, location_path(shop, other=True), "Customers")
    assert response.status_code == 200
    assert response.json()["name"] == "Customers"
    lyon = (await client.get(location_path(shop, other=True), headers=shop.headers(shop.account_token))).json()
    assert [(item["id"], item["name"]) for item in lyon] == [(response.json()["id"], "Customers")]


async def test_an_account_level_name_differs_from_every_location_level_name(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    before = await world.snapshot()
    response = await create(client, shop, account_path(shop), "Customers")  # Paris has one
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "name"
    assert await world.snapshot() == before


async def test_a_location_level_name_differs_from_every_account_level_name(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    assert (await create(client, shop, account_path(shop), "Everyone")).status_code == 200
    before = await world.snapshot()
    assert (await create(client, shop, location_path(shop, other=True), "Everyone")).status_code == 422
    assert (await create(client, shop, account_path(shop), "Everyone")).status_code == 422
    assert await world.snapshot() == before


async def test_names_are_per_account(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    other_account = await world.account(name="Other")
    await world.customer_list(account=other_account, name="Everyone")
    assert (await create(client, shop, account_path(shop), "Everyone")).status_code == 200


async def test_concurrent_creations_of_one_name_cannot_both_win(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    before = len((await world.snapshot())["customer_lists"])
    paths = [account_path(shop), location_path(shop, other=True)] * 2
    responses = await asyncio.gather(*(create(client, shop, path, "Rush") for path in paths))
    assert sorted(response.status_code for response in responses) == [200, 422, 422, 422]
    [winner] = [path for path, response in zip(paths, responses, strict=True) if response.status_code == 200]
    assert len((await world.snapshot())["customer_lists"]) == before + 1
    token = shop.headers(shop.account_token)
    paris = [item["name"] for item in (await client.get(location_path(shop), headers=token)).json()]
    lyon = [item["name"] for item in (await client.get(location_path(shop, other=True), headers=token)).json()]
    # an account-level list is seen from both locations; a Lyon one from Lyon only
    assert (paris.count("Rush"), lyon.count("Rush")) == ((1, 1) if winner == account_path(shop) else (0, 1))


async def test_create_refuses_a_missing_blank_or_non_string_name(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    before = await world.snapshot()
    token = shop.headers(shop.account_token)
    for body, message in (
        ({}, "is required"),
        ({"name": 12}, "must be a string"),
        ({"name": "   "}, "must not be empty"),
        ({"name": "x" * 256}, "must be at most 255 characters (it has 256)"),
    ):
        response = await client.post(account_path(shop), json=body, headers=token)
        assert response.status_code == 422, body
        assert response.json()["errors"] == [{"field": "name", "message": message}]
    assert await world.snapshot() == before


async def test_rename_answers_the_renamed_list(client: httpx.AsyncClient, shop: Shop, list_id: str) -> None:
    response = await client.patch(f"/v1/customer_lists/{list_id}", json={"name": "Loyal"}, headers=shop.headers())
    assert response.status_code == 200
    assert response.json()["name"] == "Loyal"
    assert (await client.get(f"/v1/customer_lists/{list_id}", headers=shop.headers())).json()["name"] == "Loyal"
    response = await client.put(f"/v1/customer_lists/{list_id}", json={"name": "Loyal 2"}, headers=shop.headers())
    assert response.json()["name"] == "Loyal 2"


async def test_rename_frees_the_former_name(client: httpx.AsyncClient, shop: Shop, list_id: str) -> None:
    await client.patch(f"/v1/customer_lists/{list_id}", json={"name": "Loyal"}, headers=shop.headers())
    assert (await create(client, shop, account_path(shop), "Customers")).status_code == 200
    assert (await create(client, shop, account_path(shop), "Loyal")).status_code == 422


async def test_rename_to_a_name_in_use_is_refused(
    client: httpx.AsyncClient, shop: Shop, list_id: str, world: World
) -> None:
    await create(client, shop, account_path(shop), "Everyone")
    await create(client, shop, location_path(shop), "Paris VIP")
    before = await world.snapshot()
    for name in ("Everyone", "Paris VIP"):
        response = await client.patch(f"/v1/customer_lists/{list_id}", json={"name": name}, headers=shop.headers())
        assert response.status_code == 422
        assert response.json()["errors"][0]["field"] == "name"
    assert await world.snapshot() == before


async def test_rename_to_its_own_name_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, list_id: str, world: World
) -> None:
    before = await world.snapshot()
    read = (await client.get(f"/v1/customer_lists/{list_id}", headers=shop.headers())).json()
    response = await client.patch(f"/v1/customer_lists/{list_id}", json={"name": "Customers"}, headers=shop.headers())
    assert (response.status_code, response.json()) == (200, read)
    assert await world.snapshot() == before


async def test_delete_removes_customers_cards_operations_and_refs_and_frees_the_name(
    client: httpx.AsyncClient, shop: Shop, list_id: str, world: World
) -> None:
    before = await world.snapshot()
    customer = await new_customer(client, shop, list_id, {"email": "ann@example.com", "private_ref": "c-1"})
    card = await new_card(client, shop, list_id, customer["id"], ref="L1")
    operation = await client.post(
        f"/v1/customer_lists/{list_id}/loyalty_cards/{card['id']}/operations",
        json={"delta": "5"},
        headers=shop.headers(),
    )
    assert (operation.status_code, operation.json()["delta"], operation.json()["new_balance"]) == (200, "5.0", "5.0")
    token = shop.headers(shop.account_token)
    listed = (await client.get(f"/v1/customer_lists/{list_id}", headers=token)).json()
    response = await client.delete(f"/v1/customer_lists/{list_id}", headers=token)
    assert response.status_code == 200
    assert response.json() == listed
    after = await world.snapshot()
    for table in ("customers", "loyalty_cards", "loyalty_operations", "private_refs", "events"):
        assert after[table] == before[table] == [], table
    assert len(after["customer_lists"]) == len(before["customer_lists"]) - 1
    assert (await client.get(f"/v1/customer_lists/{list_id}", headers=token)).status_code == 404
    # the customer's creation stays in history; deleting the list recorded nothing (spec 4.4)
    assert [(c.resource_type, c.event_type) for c in await world.changes()] == [("customer", "create")]
    assert (await create(client, shop, account_path(shop), "Customers")).status_code == 200


async def test_unknown_or_malformed_ids_are_404(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    token = shop.headers(shop.account_token)
    before = await world.snapshot()
    for list_id in ("zzzzzz", "nope", "22222222222222"):
        response = await client.get(f"/v1/customer_lists/{list_id}", headers=token)
        assert response.status_code == 404
        assert response.json() == {"error_type": "not_found", "message": f"No customer list with id {list_id!r}"}
        for method, body in (("PATCH", {"name": "x"}), ("DELETE", None)):
            refused = await client.request(method, f"/v1/customer_lists/{list_id}", json=body, headers=token)
            assert (refused.status_code, refused.json()) == (404, response.json()), method
    assert await world.snapshot() == before
