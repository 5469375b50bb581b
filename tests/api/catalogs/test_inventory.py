"""docs/api/inventory.md "Entries" and "Access": stock per catalog and location."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from comptoir.catalogs import fields
from comptoir.catalogs.inventory import expire_entries
from comptoir.kit import clock
from comptoir.kit.decimals import parse_decimal
from tests.api.callbacks.conftest import subscribe
from tests.api.catalogs.conftest import create, full
from tests.api.conftest import Shop
from tests.api.customers.test_customer_events import full_events
from tests.factories import World


@pytest.fixture
async def catalog(client: httpx.AsyncClient, shop: Shop) -> dict[str, Any]:
    answer = await create(client, shop, {"name": "Carte", "data": full()})
    assert answer.status_code == 200, answer.text
    return answer.json()


def path(catalog: dict[str, Any], shop: Shop) -> str:
    return f"/v1/catalogs/{catalog['id']}/locations/{shop.location.public_id}/inventory"


async def put(
    client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any], body: Any, token: str | None = None
) -> httpx.Response:
    return await client.put(path(catalog, shop), json=body, headers=shop.headers(token or shop.account_token))


async def patch(client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any], body: Any) -> httpx.Response:
    return await client.patch(path(catalog, shop), json=body, headers=shop.headers(shop.account_token))


async def get(client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any]) -> list[dict[str, Any]]:
    answer = await client.get(path(catalog, shop), headers=shop.headers(shop.account_token))
    assert answer.status_code == 200, answer.text
    return answer.json()


async def test_an_inventory_is_empty_by_default(client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any]) -> None:
    assert await get(client, shop, catalog) == []


async def test_put_replaces_every_entry(client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any]) -> None:
    first = await put(client, shop, catalog, [{"sku_ref": "cola", "stock": "12"}, {"option_ref": "mayo", "stock": 0}])
    assert first.status_code == 200, first.text
    assert first.json() == [
        {"sku_ref": "cola", "option_ref": None, "stock": "12.0", "expires_at": None},
        {"sku_ref": None, "option_ref": "mayo", "stock": "0.0", "expires_at": None},
    ]
    second = await put(client, shop, catalog, [{"sku_ref": "classic-single", "stock": "2.125"}])
    assert second.json() == [{"sku_ref": "classic-single", "option_ref": None, "stock": "2.125", "expires_at": None}]
    assert await get(client, shop, catalog) == second.json()


async def test_expires_at_is_read_in_the_locations_time(
    client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any]
) -> None:
    answer = await put(client, shop, catalog, [{"sku_ref": "cola", "stock": "0", "expires_at": "2030-06-24T18:00:00Z"}])
    assert answer.json()[0]["expires_at"] == "2030-06-24T20:00:00+02:00"


async def test_patch_changes_only_the_listed_entries_and_null_deletes(
    client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any]
) -> None:
    await put(client, shop, catalog, [{"sku_ref": "cola", "stock": "12"}, {"option_ref": "mayo", "stock": "3"}])
    answer = await patch(
        client,
        shop,
        catalog,
        [
            {"sku_ref": "cola", "stock": "11"},
            {"option_ref": "mayo", "stock": None},
            {"option_ref": "ketchup", "stock": "5"},
        ],
    )
    assert answer.status_code == 200, answer.text
    assert answer.json() == [
        {"sku_ref": "cola", "option_ref": None, "stock": "11.0", "expires_at": None},
        {"sku_ref": None, "option_ref": "mayo", "stock": None, "expires_at": None},
        {"sku_ref": None, "option_ref": "ketchup", "stock": "5.0", "expires_at": None},
    ]
    assert await get(client, shop, catalog) == [
        {"sku_ref": "cola", "option_ref": None, "stock": "11.0", "expires_at": None},
        {"sku_ref": None, "option_ref": "ketchup", "stock": "5.0", "expires_at": None},
    ]


@pytest.mark.parametrize(
    ("entry", "error"),
    [
        ({"sku_ref": "ghost", "stock": "1"}, ("[0].sku_ref", "no sku of the catalog has the ref 'ghost'")),
        ({"option_ref": "cola", "stock": "1"}, ("[0].option_ref", "no option of the catalog has the ref 'cola'")),
        ({"stock": "1"}, ("[0]", "must have exactly one of sku_ref and option_ref")),
        (
            {"sku_ref": "cola", "option_ref": "mayo", "stock": "1"},
            ("[0]", "must have exactly one of sku_ref and option_ref"),
        ),
        ({"sku_ref": "cola", "stock": "-1"}, ("[0].stock", "must be at least 0")),
        ({"sku_ref": "cola", "stock": "1.2345"}, ("[0].stock", "must have at most 3 decimals")),
        ({"sku_ref": "cola"}, ("[0].stock", "is required")),
        (
            {"sku_ref": "cola", "stock": "2", "expires_at": "2030-06-24T18:00:00Z"},
            ("[0].expires_at", "is allowed only with stock 0 (when the item comes back)"),
        ),
        (
            {"sku_ref": "cola", "stock": "0", "expires_at": "tomorrow"},
            (
                "[0].expires_at",
                "'tomorrow' is not a valid ISO 8601 time (expected e.g. \"2026-06-24T17:07:53+02:00\")",
            ),
        ),
    ],
)
async def test_bad_entries_are_refused_and_change_nothing(
    client: httpx.AsyncClient,
    shop: Shop,
    world: World,
    catalog: dict[str, Any],
    entry: dict[str, Any],
    error: tuple[str, str],
) -> None:
    await put(client, shop, catalog, [{"sku_ref": "cola", "stock": "12"}])
    before = await world.snapshot()
    answer = await put(client, shop, catalog, [entry])
    assert answer.status_code == 422
    assert answer.json()["errors"] == [{"field": error[0], "message": error[1]}]
    assert await world.snapshot() == before


NOW = datetime(2026, 6, 24, 15, 7, 53, tzinfo=UTC)  # 17:07:53 in the location's time (Paris)


@pytest.mark.parametrize("method", ["PUT", "PATCH"])
@pytest.mark.parametrize(
    "expires_at", ["2026-06-24T17:07:53", "2026-06-24T15:07:53Z", "2026-06-24T17:00:00+02:00", "1900-01-01T00:00:00"]
)
async def test_an_expires_at_now_or_in_the_past_is_refused_and_changes_nothing(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any], method: str, expires_at: str
) -> None:
    await put(client, shop, catalog, [{"sku_ref": "cola", "stock": "12"}])
    clock.freeze(NOW)
    before = await world.snapshot()
    body = [{"option_ref": "mayo", "stock": "3"}, {"sku_ref": "cola", "stock": "0", "expires_at": expires_at}]
    answer = await (put if method == "PUT" else patch)(client, shop, catalog, body)
    assert answer.status_code == 422
    assert answer.json()["errors"] == [{"field": "[1].expires_at", "message": "must be in the future"}]
    assert await world.snapshot() == before


async def test_an_expires_at_a_second_ahead_is_accepted(
    client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any]
) -> None:
    clock.freeze(NOW)
    answer = await patch(
        client, shop, catalog, [{"sku_ref": "cola", "stock": "0", "expires_at": "2026-06-24T17:07:54"}]
    )
    assert answer.status_code == 200, answer.text
    assert answer.json() == [
        {"sku_ref": "cola", "option_ref": None, "stock": "0.0", "expires_at": "2026-06-24T17:07:54+02:00"}
    ]


async def test_a_past_expires_at_is_refused_in_the_words_of_a_past_resume_at(
    client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any]
) -> None:
    clock.freeze(NOW)
    past = "2026-06-24T12:00:00"
    stock = await patch(client, shop, catalog, [{"sku_ref": "cola", "stock": "0", "expires_at": past}])
    paused = await client.patch(
        "/v1/location", json={"order_acceptance": {"mode": "paused", "resume_at": past}}, headers=shop.headers()
    )
    assert (stock.status_code, paused.status_code) == (422, 422)
    assert [e["message"] for e in stock.json()["errors"]] == [e["message"] for e in paused.json()["errors"]]


async def test_a_ref_listed_twice_is_refused(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any]
) -> None:
    before = await world.snapshot()
    answer = await patch(client, shop, catalog, [{"sku_ref": "cola", "stock": "1"}, {"sku_ref": "cola", "stock": "2"}])
    assert answer.json()["errors"] == [{"field": "[1].sku_ref", "message": "'cola' is listed twice"}]
    assert await world.snapshot() == before


async def test_the_formats_of_every_entry_are_named_before_the_checks_against_the_catalog(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any]
) -> None:
    before = await world.snapshot()
    body = [{"sku_ref": "ghost", "stock": "1"}, {"sku_ref": "cola", "stock": "-1"}, {"sku_ref": "cola", "stock": "x"}]
    answer = await put(client, shop, catalog, body)
    assert answer.status_code == 422
    assert answer.json()["errors"] == [
        {"field": "[1].stock", "message": "must be at least 0"},
        {"field": "[2].stock", "message": "'x' is not a valid decimal (expected e.g. \"13.5\")"},
        {"field": "[0].sku_ref", "message": "no sku of the catalog has the ref 'ghost'"},
        {"field": "[2].sku_ref", "message": "'cola' is listed twice"},
    ]
    assert await world.snapshot() == before


async def test_a_ref_over_255_characters_is_refused_for_its_length_alone(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any]
) -> None:
    before = await world.snapshot()
    answer = await patch(client, shop, catalog, [{"option_ref": "m" * 256, "stock": "1"}])
    assert answer.status_code == 422
    assert answer.json()["errors"] == [
        {"field": "[0].option_ref", "message": "must be at most 255 characters (it has 256)"}
    ]
    assert await world.snapshot() == before


@pytest.mark.parametrize("method", ["PUT", "PATCH"])
async def test_each_entry_is_read_once(
    client: httpx.AsyncClient, shop: Shop, catalog: dict[str, Any], monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    read: list[Any] = []

    def counted(value: Any) -> Any:
        read.append(value)
        return parse_decimal(value)

    monkeypatch.setattr(fields, "parse_decimal", counted)
    body = [{"sku_ref": "cola", "stock": "12"}, {"option_ref": "mayo", "stock": "3"}]
    answer = await (put if method == "PUT" else patch)(client, shop, catalog, body)
    assert answer.status_code == 200, answer.text
    assert read == ["12", "3"]


async def test_a_body_that_is_not_an_array_is_422(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any]
) -> None:
    before = await world.snapshot()
    answer = await put(client, shop, catalog, {"sku_ref": "cola"})
    assert answer.status_code == 422
    assert answer.json()["errors"] == [{"field": "inventory", "message": "must be an array of entries, not an object"}]
    assert await world.snapshot() == before


async def test_inventories_are_per_location(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    shared = (
        await create(
            client, shop, {"name": "Shared", "data": full()}, path="/v1/account/catalogs", token=shop.account_token
        )
    ).json()
    paris = f"/v1/catalogs/{shared['id']}/locations/{shop.location.public_id}/inventory"
    lyon = f"/v1/catalogs/{shared['id']}/locations/{shop.other_location.public_id}/inventory"
    await client.put(paris, json=[{"sku_ref": "cola", "stock": "1"}], headers=shop.headers(shop.account_token))
    assert (await client.get(lyon, headers=shop.headers(shop.account_token))).json() == []


async def test_the_short_form_and_the_deprecated_catalog_scope(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any]
) -> None:
    # the shop's location token: location[orders.write,catalog.write,...,inventory.write]
    own = f"/v1/catalogs/{catalog['id']}/location/inventory"
    answer = await client.put(own, json=[{"sku_ref": "cola", "stock": "4"}], headers=shop.headers())
    assert answer.status_code == 200, answer.text
    deprecated = await world.token(
        "location[catalog.read]",
        location=shop.location,
        catalog=await world.catalog(location=shop.location, name="Other"),
    )
    assert (await client.get(own, headers={"X-Access-Token": deprecated})).json()[0]["stock"] == "4.0"
    before = await world.snapshot()
    refused = await client.put(own, json=[], headers={"X-Access-Token": deprecated})
    assert (refused.status_code, refused.json()) == (
        403,
        {
            "error_type": "forbidden",
            "message": "The connection's scope (location[catalog.read]) does not allow this request: "
            "it needs inventory.write or catalog.write",
        },
    )
    assert await world.snapshot() == before


async def test_an_account_token_needs_inventory_not_catalog_scopes(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any]
) -> None:
    token = await world.token("account[all_catalogs.read]", account=shop.account)
    answer = await client.get(path(catalog, shop), headers={"X-Access-Token": token})
    assert (answer.status_code, answer.json()) == (
        403,
        {
            "error_type": "forbidden",
            "message": "The connection's scope (account[all_catalogs.read]) does not allow this request: "
            "it needs inventory.read",
        },
    )


async def test_a_catalog_the_location_does_not_see_is_404(client: httpx.AsyncClient, shop: Shop, world: World) -> None:
    lyon = await world.catalog(location=shop.other_location, name="Lyon")
    answer = await client.get(
        f"/v1/catalogs/{lyon.public_id}/locations/{shop.location.public_id}/inventory",
        headers=shop.headers(shop.account_token),
    )
    assert (answer.status_code, answer.json()) == (
        404,
        {"error_type": "not_found", "message": f"No catalog with id {lyon.public_id!r}"},
    )


async def test_put_and_patch_events(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any]
) -> None:
    token = await world.token("account[inventory.read]", account=shop.account, client=await world.client(name="Till"))
    await subscribe(client, token, {"inventory": ["update", "patch"]})
    clock.freeze(datetime(2026, 6, 24, 15, 7, 53, tzinfo=UTC))
    await put(client, shop, catalog, [{"sku_ref": "cola", "stock": "12"}])
    await patch(client, shop, catalog, [{"sku_ref": "cola", "stock": "12"}])  # no change: no event
    await patch(client, shop, catalog, [{"sku_ref": "cola", "stock": "0", "expires_at": "2026-06-24T18:00:00+02:00"}])
    update, patched = await full_events(client, token)
    ids = {"catalog_id": catalog["id"], "location_id": shop.location.public_id}
    assert update == {
        "id": update["id"],
        "resource_type": "inventory",
        "event_type": "update",
        "created_at": "2026-06-24T17:07:53+02:00",
        **ids,
    }
    assert patched["state_change"] == [
        {
            "sku_ref": "cola",
            "option_ref": None,
            "previous_stock": "12.0",
            "stock": "0.0",
            "expires_at": "2026-06-24T18:00:00+02:00",
        }
    ]


async def test_entries_expiring_together_come_back_in_one_event(
    client: httpx.AsyncClient, shop: Shop, world: World, catalog: dict[str, Any]
) -> None:
    token = await world.token("account[inventory.read]", account=shop.account, client=await world.client(name="Till"))
    await subscribe(client, token, {"inventory": ["patch"]})
    now = datetime(2026, 6, 24, 15, 0, tzinfo=UTC)
    clock.freeze(now)
    at = "2026-06-24T18:00:00+02:00"
    await patch(client, shop, catalog, [
        {"sku_ref": "cola", "stock": "0", "expires_at": at},
        {"option_ref": "mayo", "stock": "0", "expires_at": at},
        {"sku_ref": "classic-single", "stock": "0", "expires_at": "2026-06-24T19:00:00+02:00"},
    ])  # fmt: skip
    assert await expire_entries(world.db) == 0  # not yet
    clock.freeze(now + timedelta(hours=1))
    assert await expire_entries(world.db) == 2
    assert await get(client, shop, catalog) == [
        {"sku_ref": "classic-single", "option_ref": None, "stock": "0.0", "expires_at": "2026-06-24T19:00:00+02:00"}
    ]
    events = await full_events(client, token)
    assert [e["state_change"] for e in events[1:]] == [
        [
            {"sku_ref": "cola", "option_ref": None, "previous_stock": "0.0", "stock": None, "expires_at": at},
            {"sku_ref": None, "option_ref": "mayo", "previous_stock": "0.0", "stock": None, "expires_at": at},
        ]
    ]
