"""spec 5.1 (`customer_list` and `all_customer_lists` follow the catalog rules), spec 4.3's
401, and docs/api/customers.md "Access" for customer lists, their customers, cards and
operations."""

from __future__ import annotations

import httpx
import pytest

from comptoir.models import CustomerList
from tests.api.conftest import Shop
from tests.api.customers.conftest import new_customer
from tests.factories import World


@pytest.fixture
async def account_list(world: World, shop: Shop) -> CustomerList:
    return await world.customer_list(account=shop.account, name="Everyone")


async def rename(client: httpx.AsyncClient, token: str, list_id: str, name: str) -> httpx.Response:
    return await client.patch(f"/v1/customer_lists/{list_id}", json={"name": name}, headers={"X-Access-Token": token})


async def delete(client: httpx.AsyncClient, token: str, list_id: str) -> httpx.Response:
    return await client.delete(f"/v1/customer_lists/{list_id}", headers={"X-Access-Token": token})


async def get(client: httpx.AsyncClient, token: str, path: str) -> httpx.Response:
    return await client.get(path, headers={"X-Access-Token": token})


async def test_customer_list_scope_reaches_only_the_bound_list(
    client: httpx.AsyncClient, shop: Shop, world: World, account_list: CustomerList
) -> None:
    paris_vip = await world.customer_list(location=shop.location, name="VIP")
    token = await world.token("location[customer_list.read]", location=shop.location, customer_list=paris_vip)
    assert (await get(client, token, f"/v1/customer_lists/{paris_vip.public_id}")).status_code == 200
    assert (await get(client, token, f"/v1/customer_lists/{account_list.public_id}")).status_code == 404
    assert (await get(client, token, f"/v1/customer_lists/{account_list.public_id}/customers")).status_code == 404
    listed = (await get(client, token, "/v1/location/customer_lists")).json()
    assert [item["id"] for item in listed] == [paris_vip.public_id]


async def test_all_customer_lists_at_location_level_reads_the_locations_and_the_accounts_lists(
    client: httpx.AsyncClient, shop: Shop, world: World, account_list: CustomerList
) -> None:
    lyon = await world.customer_list(location=shop.other_location, name="Lyon")
    token = await world.token("location[all_customer_lists.read]", location=shop.location)
    assert (await get(client, token, f"/v1/customer_lists/{account_list.public_id}")).status_code == 200
    assert (await get(client, token, f"/v1/customer_lists/{lyon.public_id}")).status_code == 404
    names = [item["name"] for item in (await get(client, token, "/v1/location/customer_lists")).json()]
    assert names == ["Customers", "Everyone"]


async def test_all_customer_lists_at_account_level_reads_every_list_of_the_account(
    client: httpx.AsyncClient, shop: Shop, world: World, account_list: CustomerList
) -> None:
    lyon = await world.customer_list(location=shop.other_location, name="Lyon")
    for found in (lyon, account_list):
        assert (await get(client, shop.account_token, f"/v1/customer_lists/{found.public_id}")).status_code == 200


async def test_another_accounts_list_is_404(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    elsewhere = await world.customer_list(account=await world.account(name="Elsewhere"), name="Theirs")
    response = await get(client, shop.account_token, f"/v1/customer_lists/{elsewhere.public_id}")
    assert (response.status_code, response.json()) == (
        404,
        {"error_type": "not_found", "message": f"No customer list with id {elsewhere.public_id!r}"},
    )


async def test_a_scope_without_customer_list_permissions_is_403(
    client: httpx.AsyncClient, shop: Shop, world: World, list_id: str
) -> None:
    token = await world.token("location[orders.write]", location=shop.location)
    for path in (
        f"/v1/customer_lists/{list_id}",
        f"/v1/customer_lists/{list_id}/customers",
        "/v1/location/customer_lists",
    ):
        response = await get(client, token, path)
        assert response.status_code == 403, path
        assert response.json()["error_type"] == "forbidden"


async def test_read_scopes_cannot_write(client: httpx.AsyncClient, shop: Shop, world: World, list_id: str) -> None:
    bound = await world.customer_list_row(list_id)
    token = await world.token(
        "location[customer_list.read,all_customer_lists.read]", location=shop.location, customer_list=bound
    )
    before = await world.snapshot()
    refused = {
        "error_type": "forbidden",
        "message": "The connection's scope (location[customer_list.read,all_customer_lists.read]) does not allow "
        "this request: it needs customer_list.write or all_customer_lists.write",
    }
    renamed = await rename(client, token, list_id, "New")
    assert (renamed.status_code, renamed.json()) == (403, refused)
    deleted = await delete(client, token, list_id)
    assert (deleted.status_code, deleted.json()) == (403, refused)
    response = await client.post(f"/v1/customer_lists/{list_id}/customers", json={}, headers={"X-Access-Token": token})
    assert (response.status_code, response.json()) == (403, refused)
    assert await world.snapshot() == before


async def test_creating_lists_needs_all_customer_lists_write(
    client: httpx.AsyncClient, shop: Shop, world: World
) -> None:
    token = await world.token("location[all_customer_lists.write]", location=shop.location)
    before = await world.snapshot()
    response = await client.post("/v1/location/customer_lists", json={"name": "New"}, headers=shop.headers())
    assert response.status_code == 403
    assert response.json() == {
        "error_type": "forbidden",
        "message": "The connection's scope (location[orders.write,catalog.write,customer_list.write,inventory.write],"
        "profile_with_email) does not allow this request: it needs all_customer_lists.write",
    }
    response = await client.post(
        f"/v1/locations/{shop.other_location.public_id}/customer_lists",
        json={"name": "New"},
        headers={"X-Access-Token": token},
    )
    assert response.status_code == 404  # another location of the account
    response = await client.post(
        f"/v1/accounts/{shop.account.public_id}/customer_lists", json={"name": "New"}, headers={"X-Access-Token": token}
    )
    assert response.status_code == 403  # account-only endpoint
    assert await world.snapshot() == before


async def test_a_location_token_cannot_rename_or_delete_an_account_level_list_with_all_customer_lists(
    client: httpx.AsyncClient, shop: Shop, world: World, account_list: CustomerList
) -> None:
    token = await world.token("location[all_customer_lists.write]", location=shop.location)
    before = await world.snapshot()
    for action, response in (
        ("rename", await rename(client, token, account_list.public_id, "New")),
        ("delete", await delete(client, token, account_list.public_id)),
    ):
        assert response.status_code == 401
        assert response.json() == {
            "error_type": "unauthorized",
            "message": f"A location-level token cannot {action} an account-level customer list",
        }
    assert await world.snapshot() == before
    # but it may write that list's customers (not a modification of the list)
    customer = await new_customer(client, shop, account_list.public_id, {"first_name": "Ann"}, token=token)
    assert customer["customer_list_id"] == account_list.public_id


async def test_customer_list_write_renames_its_bound_account_level_list_but_cannot_delete_it(
    client: httpx.AsyncClient, shop: Shop, world: World, account_list: CustomerList
) -> None:
    token = await world.token("location[customer_list.write]", location=shop.location, customer_list=account_list)
    response = await rename(client, token, account_list.public_id, "Everyone (renamed)")
    assert response.status_code == 200
    assert response.json()["name"] == "Everyone (renamed)"
    before = await world.snapshot()
    response = await delete(client, token, account_list.public_id)
    assert response.status_code == 401
    assert response.json() == {
        "error_type": "unauthorized",
        "message": "A location-level token cannot delete an account-level customer list",
    }
    assert await world.snapshot() == before


async def test_location_tokens_rename_and_delete_their_locations_lists(
    client: httpx.AsyncClient, shop: Shop, world: World, list_id: str
) -> None:
    token = await world.token("location[all_customer_lists.write]", location=shop.location)
    assert (await rename(client, token, list_id, "Paris")).status_code == 200
    assert (await delete(client, token, list_id)).status_code == 200


async def test_customer_list_write_deletes_its_bound_location_level_list(
    client: httpx.AsyncClient, shop: Shop, list_id: str
) -> None:
    assert (await delete(client, shop.location_token, list_id)).status_code == 200


async def test_an_account_token_renames_and_deletes_any_list_of_the_account(
    client: httpx.AsyncClient, shop: Shop, world: World, account_list: CustomerList
) -> None:
    lyon = await world.customer_list(location=shop.other_location, name="Lyon")
    assert (await rename(client, shop.account_token, lyon.public_id, "Lyon 2")).status_code == 200
    assert (await rename(client, shop.account_token, account_list.public_id, "All")).status_code == 200
    assert (await delete(client, shop.account_token, lyon.public_id)).status_code == 200
    assert (await delete(client, shop.account_token, account_list.public_id)).status_code == 200


# --- the write scope on the list the path names (auth.access.WriteOn) ------------------------


async def test_the_write_scope_of_another_bound_list_is_403_on_a_list_it_reads(
    client: httpx.AsyncClient, shop: Shop, world: World, list_id: str, account_list: CustomerList
) -> None:
    customer = await new_customer(client, shop, list_id)
    scope = "location[customer_list.write,all_customer_lists.read]"
    token = await world.token(scope, location=shop.location, customer_list=account_list)
    before = await world.snapshot()
    auth = {"X-Access-Token": token}
    base = f"/v1/customer_lists/{list_id}"
    for answer in (
        await client.post(f"{base}/customers", json={}, headers=auth),
        await client.patch(f"{base}/customers/{customer['id']}", json={"first_name": "Bo"}, headers=auth),
        await client.post(f"{base}/customers/{customer['id']}/anonymise", headers=auth),
        await client.post(f"{base}/loyalty_cards", json={"customer_id": customer["id"]}, headers=auth),
    ):
        assert (answer.status_code, answer.json()) == (
            403,
            {
                "error_type": "forbidden",
                "message": f"The connection's scope ({scope}) does not allow writing to customer list '{list_id}'",
            },
        )
    renamed = await rename(client, token, list_id, "New")
    assert (renamed.status_code, renamed.json()) == (
        403,
        {
            "error_type": "forbidden",
            "message": f"The connection's scope ({scope}) does not allow this request: it needs customer_list.write",
        },
    )
    assert await world.snapshot() == before


async def test_writing_a_list_out_of_reach_is_404_whatever_the_write_rule(
    client: httpx.AsyncClient, shop: Shop, world: World, account_list: CustomerList
) -> None:
    lyon = await world.customer_list(location=shop.other_location, name="Lyon")
    token = await world.token("location[customer_list.write]", location=shop.location, customer_list=account_list)
    before = await world.snapshot()
    not_found = {"error_type": "not_found", "message": f"No customer list with id '{lyon.public_id}'"}
    for answer in (
        await client.post(f"/v1/customer_lists/{lyon.public_id}/customers", json={}, headers={"X-Access-Token": token}),
        await rename(client, token, lyon.public_id, "New"),
        await delete(client, token, lyon.public_id),
    ):
        assert (answer.status_code, answer.json()) == (404, not_found)
    assert await world.snapshot() == before
