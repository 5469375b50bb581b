"""spec 2.6 and 4.7: loyalty cards (customer must exist, ref unique per customer, one null
ref at most, balance "0.0", PATCH of name and ref only, filters)."""

from __future__ import annotations

import asyncio

import httpx

from tests.api.conftest import Shop
from tests.api.customers.conftest import new_card, new_customer
from tests.factories import World


def cards(list_id: str, card_id: str | None = None) -> str:
    return f"/v1/customer_lists/{list_id}/loyalty_cards" + (f"/{card_id}" if card_id else "")


async def test_a_new_card_has_a_zero_balance(client: httpx.AsyncClient, shop: Shop, list_id: str) -> None:
    customer = await new_customer(client, shop, list_id)
    card = await new_card(client, shop, list_id, customer["id"], name="Points", ref="P-1")
    assert card == {"id": card["id"], "customer_id": customer["id"], "name": "Points", "ref": "P-1", "balance": "0.0"}
    assert (await client.get(cards(list_id, card["id"]), headers=shop.headers())).json() == card
    read = (await client.get(f"/v1/customer_lists/{list_id}/customers/{customer['id']}", headers=shop.headers())).json()
    assert read["loyalty_cards"] == [{"id": card["id"], "ref": "P-1", "name": "Points", "balance": "0.0"}]


async def test_name_and_ref_are_optional(client: httpx.AsyncClient, shop: Shop, list_id: str) -> None:
    customer = await new_customer(client, shop, list_id)
    card = await new_card(client, shop, list_id, customer["id"])
    assert (card["name"], card["ref"]) == (None, None)


async def test_the_customer_must_exist_in_the_list(
    client: httpx.AsyncClient, shop: Shop, list_id: str, world: World
) -> None:
    other = await world.customer_list(account=shop.account, name="Everyone")
    elsewhere = await new_customer(client, shop, other.public_id, token=shop.account_token)
    before = await world.snapshot()
    for customer_id in ("zzzzzz", elsewhere["id"]):
        response = await client.post(cards(list_id), json={"customer_id": customer_id}, headers=shop.headers())
        assert response.status_code == 422
        assert response.json()["errors"] == [
            {"field": "customer_id", "message": f"no customer with id {customer_id!r} in customer list {list_id!r}"}
        ]
    response = await client.post(cards(list_id), json={"name": "Points"}, headers=shop.headers())
    assert response.status_code == 422
    assert response.json()["errors"] == [{"field": "customer_id", "message": "is required"}]
    assert await world.snapshot() == before


async def test_a_ref_is_unique_per_customer(client: httpx.AsyncClient, shop: Shop, list_id: str, world: World) -> None:
    ann = await new_customer(client, shop, list_id)
    bob = await new_customer(client, shop, list_id)
    await new_card(client, shop, list_id, ann["id"], ref="P-1")
    before = await world.snapshot()
    response = await client.post(cards(list_id), json={"customer_id": ann["id"], "ref": "P-1"}, headers=shop.headers())
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"field": "ref", "message": "the customer already has a loyalty card with ref 'P-1'"}
    ]
    assert await world.snapshot() == before
    assert (await new_card(client, shop, list_id, bob["id"], ref="P-1"))["ref"] == "P-1"


async def test_at_most_one_card_of_a_customer_has_no_ref(
    client: httpx.AsyncClient, shop: Shop, list_id: str, world: World
) -> None:
    ann = await new_customer(client, shop, list_id)
    await new_card(client, shop, list_id, ann["id"])
    before = await world.snapshot()
    response = await client.post(cards(list_id), json={"customer_id": ann["id"], "ref": None}, headers=shop.headers())
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"field": "ref", "message": "the customer already has a loyalty card without ref"}
    ]
    assert await world.snapshot() == before
    assert (await new_card(client, shop, list_id, ann["id"], ref="P-2"))["ref"] == "P-2"


async def test_concurrent_null_ref_cards_cannot_both_be_created(
    client: httpx.AsyncClient, shop: Shop, list_id: str
) -> None:
    ann = await new_customer(client, shop, list_id)
    attempts = [client.post(cards(list_id), json={"customer_id": ann["id"]}, headers=shop.headers()) for _ in range(4)]
    statuses = sorted(response.status_code for response in await asyncio.gather(*attempts))
    assert statuses == [200, 422, 422, 422]


async def test_patch_changes_name_and_ref_only(client: httpx.AsyncClient, shop: Shop, list_id: str) -> None:
    ann = await new_customer(client, shop, list_id)
    bob = await new_customer(client, shop, list_id)
    card = await new_card(client, shop, list_id, ann["id"], name="Points", ref="P-1")
    body = {"name": "Stars", "ref": "S-1", "customer_id": bob["id"], "balance": "100.0"}
    response = await client.patch(cards(list_id, card["id"]), json=body, headers=shop.headers())
    assert response.status_code == 200
    assert response.json() == {**card, "name": "Stars", "ref": "S-1"}
    response = await client.put(cards(list_id, card["id"]), json={"name": None}, headers=shop.headers())
    assert response.json() == {**card, "name": None, "ref": "S-1"}


async def test_patch_to_a_ref_in_use_is_refused(
    client: httpx.AsyncClient, shop: Shop, list_id: str, world: World
) -> None:
    ann = await new_customer(client, shop, list_id)
    await new_card(client, shop, list_id, ann["id"], ref="P-1")
    card = await new_card(client, shop, list_id, ann["id"], ref="P-2")
    before = await world.snapshot()
    response = await client.patch(cards(list_id, card["id"]), json={"ref": "P-1"}, headers=shop.headers())
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"field": "ref", "message": "the customer already has a loyalty card with ref 'P-1'"}
    ]
    assert await world.snapshot() == before


async def test_invalid_fields_are_refused(client: httpx.AsyncClient, shop: Shop, list_id: str, world: World) -> None:
    ann = await new_customer(client, shop, list_id)
    before = await world.snapshot()
    response = await client.post(
        cards(list_id), json={"customer_id": ann["id"], "name": 3, "ref": "r" * 256}, headers=shop.headers()
    )
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {"field": "name", "message": "must be a string"},
        {"field": "ref", "message": "must be at most 255 characters (it has 256)"},
    ]
    assert await world.snapshot() == before


async def test_list_filters_by_customer_name_and_ref(client: httpx.AsyncClient, shop: Shop, list_id: str) -> None:
    ann = await new_customer(client, shop, list_id)
    bob = await new_customer(client, shop, list_id)
    a1 = await new_card(client, shop, list_id, ann["id"], name="Points", ref="1")
    a2 = await new_card(client, shop, list_id, ann["id"], name="Stars", ref="2")
    b1 = await new_card(client, shop, list_id, bob["id"], name="Points", ref="1")

    async def listed(params: dict[str, str]) -> list[str]:
        response = await client.get(cards(list_id), params=params, headers=shop.headers())
        assert response.status_code == 200
        return [item["id"] for item in response.json()]

    assert await listed({}) == [a1["id"], a2["id"], b1["id"]]
    assert await listed({"customer_id": ann["id"]}) == [a1["id"], a2["id"]]
    assert await listed({"name": "Points"}) == [a1["id"], b1["id"]]
    assert await listed({"ref": "1", "customer_id": bob["id"]}) == [b1["id"]]
    assert await listed({"customer_id": "zzzzzz"}) == []
    first = await client.get(cards(list_id), params={"count": 2}, headers=shop.headers())
    assert "X-Cursor-Next" in first.headers


async def test_a_card_of_another_list_is_404(client: httpx.AsyncClient, shop: Shop, list_id: str, world: World) -> None:
    ann = await new_customer(client, shop, list_id)
    card = await new_card(client, shop, list_id, ann["id"])
    other = await world.customer_list(account=shop.account, name="Everyone")
    token = shop.headers(shop.account_token)
    before = await world.snapshot()
    response = await client.get(cards(other.public_id, card["id"]), headers=token)
    assert response.status_code == 404
    assert response.json() == {"error_type": "not_found", "message": f"No loyalty card with id {card['id']!r}"}
    response = await client.patch(cards(other.public_id, card["id"]), json={"name": "x"}, headers=token)
    assert response.status_code == 404
    assert await world.snapshot() == before
