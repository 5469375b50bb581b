"""spec 2.4 catalog rules 1-7 and docs/api/catalogs.md "Content": each refusal names the error by
its path and leaves the previous catalog unchanged."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.catalogs.conftest import create, full
from tests.api.conftest import Shop
from tests.factories import World


@pytest.fixture
async def catalog_id(client: httpx.AsyncClient, shop: Shop) -> str:
    answer = await create(client, shop, {"name": "Carte", "data": full()})
    assert answer.status_code == 200, answer.text
    return answer.json()["id"]


@pytest.fixture
def refused(client: httpx.AsyncClient, shop: Shop, world: World, catalog_id: str):  # type: ignore[no-untyped-def]
    async def put(data: Any) -> list[dict[str, str]]:
        before = await world.snapshot()
        answer = await client.put(
            f"/v1/catalogs/{catalog_id}", json={"data": data}, headers={"X-Access-Token": shop.account_token}
        )
        assert answer.status_code == 422, answer.text
        assert answer.json()["error_type"] == "unprocessable_entity"
        assert await world.snapshot() == before
        return answer.json()["errors"]

    return put


@pytest.fixture
def accepted(client: httpx.AsyncClient, shop: Shop, catalog_id: str):  # type: ignore[no-untyped-def]
    async def put(data: Any) -> dict[str, Any]:
        answer = await client.put(
            f"/v1/catalogs/{catalog_id}", json={"data": data}, headers={"X-Access-Token": shop.account_token}
        )
        assert answer.status_code == 200, answer.text
        return answer.json()["data"]

    return put


def one_product(**sku: Any) -> dict[str, Any]:
    return {
        "categories": [{"ref": "c", "name": "C"}],
        "products": [{"category_ref": "c", "name": "P", "skus": [{"price": "1 EUR", **sku}]}],
    }


async def test_every_error_is_listed_with_its_path(refused) -> None:  # type: ignore[no-untyped-def]
    data = full()
    data["products"][0]["skus"][1]["price"] = "free"
    data["products"][1]["name"] = ""
    data["option_lists"][0]["options"][0]["default"] = "yes"
    data["categories"].append({"ref": "drinks", "name": "Again"})
    data["deals"][0]["lines"][0]["skus"][0]["ref"] = "nothing"
    assert await refused(data) == [
        {
            "field": "data.products[0].skus[1].price",
            "message": "'free' is not a valid monetary amount (expected e.g. \"12.50 EUR\")",
        },
        {"field": "data.products[1].name", "message": "must not be empty"},
        {"field": "data.option_lists[0].options[0].default", "message": "must be true or false, not 'yes'"},
        {"field": "data.categories[4].ref", "message": "'drinks' is already the ref of another category"},
        {"field": "data.deals[0].lines[0].skus[0].ref", "message": "no sku has the ref 'nothing'"},
    ]


async def test_data_and_sections_must_have_their_types(refused) -> None:  # type: ignore[no-untyped-def]
    assert await refused([]) == [{"field": "data", "message": "must be an object, not an array"}]
    assert await refused({"products": {}, "variants": ["x"]}) == [
        {"field": "data.variants[0]", "message": "must be an object, not 'x'"},
        {"field": "data.products", "message": "must be an array, not an object"},
    ]


async def test_rule_1_sku_names_are_unique_in_a_product(refused, accepted) -> None:  # type: ignore[no-untyped-def]
    data = one_product(name="Small")
    data["products"][0]["skus"].append({"name": "Small", "price": "2 EUR"})
    assert await refused(data) == [
        {"field": "data.products[0].skus[1].name", "message": "'Small' is already the name of skus[0] of this product"}
    ]
    data["products"][0]["skus"][1]["name"] = "Large"
    assert len((await accepted(data))["products"][0]["skus"]) == 2


async def test_rule_1_only_one_sku_without_a_name(refused) -> None:  # type: ignore[no-untyped-def]
    data = one_product()
    data["products"][0]["skus"].append({"price": "2 EUR"})
    assert await refused(data) == [
        {
            "field": "data.products[0].skus[1].name",
            "message": "only one sku of a product may have no name (skus[0] has none)",
        }
    ]


@pytest.mark.parametrize("code", ["1234567", "123456789", "12345678901234", "1234567a"])
async def test_rule_2_a_barcode_has_8_12_or_13_digits(refused, code: str) -> None:  # type: ignore[no-untyped-def]
    assert await refused(one_product(barcodes=["12345678", code])) == [
        {"field": "data.products[0].skus[0].barcodes[1]", "message": f"'{code}' is not a barcode (8, 12 or 13 digits)"}
    ]


async def test_rule_3_tax_rate_has_all_three_keys_or_none(refused, accepted) -> None:  # type: ignore[no-untyped-def]
    data = one_product()
    data["products"][0]["tax_rate"] = {"delivery": "5.5", "eat_in": "10"}
    assert await refused(data) == [
        {
            "field": "data.products[0].tax_rate",
            "message": "must have all of delivery, collection and eat_in, or be omitted (missing collection)",
        }
    ]
    data["products"][0]["tax_rate"] = None
    assert (await accepted(data))["products"][0]["tax_rate"] is None


async def test_rule_4_no_more_defaults_than_max_selections(refused) -> None:  # type: ignore[no-untyped-def]
    data = full()
    data["option_lists"][0]["options"][1]["default"] = True  # 2 defaults, max 2: fine
    data["option_lists"][0]["max_selections"] = 1
    assert await refused(data) == [
        {"field": "data.option_lists[0].options", "message": "2 options are default, more than max_selections (1)"}
    ]


async def test_min_selections_cannot_exceed_max(refused) -> None:  # type: ignore[no-untyped-def]
    data = full()
    data["option_lists"][0]["min_selections"] = 3
    assert await refused(data) == [
        {"field": "data.option_lists[0].min_selections", "message": "must not exceed max_selections (2)"}
    ]


@pytest.mark.parametrize(
    ("given", "read"),
    [
        ({"type": "single"}, (1, 1, "single")),
        ({"type": "multiple"}, (0, None, "multiple")),
        ({}, (0, None, "multiple")),
        ({"min_selections": 1, "max_selections": 3}, (1, 3, "multiple")),
        ({"max_selections": 1}, (0, 1, "single")),
    ],
)
async def test_rule_5_the_deprecated_type_maps_to_min_and_max(
    accepted, given: dict[str, Any], read: tuple[Any, ...]
) -> None:  # type: ignore[no-untyped-def]
    data = {"option_lists": [{"ref": "l", "name": "L", "options": [{"name": "O"}], **given}]}
    found = (await accepted(data))["option_lists"][0]
    assert (found["min_selections"], found["max_selections"], found["type"]) == read


async def test_an_unknown_type_is_refused(refused) -> None:  # type: ignore[no-untyped-def]
    data = {"option_lists": [{"ref": "l", "name": "L", "type": "some", "options": [{"name": "O"}]}]}
    assert await refused(data) == [
        {"field": "data.option_lists[0].type", "message": "must be one of single, multiple, not 'some'"}
    ]


async def test_rule_6_restrictions_are_checked(refused) -> None:  # type: ignore[no-untyped-def]
    restrictions = {
        "dow": "1234567X", "start_time": "25:00", "start_date": "2026-02-30", "min_order_amount": "5 USD",
        "variant_refs": ["nope"], "max_per_order": 0, "enabled": "no", "service_types": ["drive"],
    }  # fmt: skip
    fields = {e["field"].rsplit(".", 1)[1] for e in await refused(one_product(restrictions=restrictions))}
    assert fields == {
        "dow", "start_time", "start_date", "min_order_amount", "variant_refs[0]", "max_per_order", "enabled",
        "service_types[0]",
    }  # fmt: skip


async def test_rule_6_a_price_override_needs_a_context_and_known_variants(refused) -> None:  # type: ignore[no-untyped-def]
    data = one_product(price_overrides=[{"price": "2 EUR"}, {"price": "3 EUR", "variant_refs": ["ghost"]}])
    assert await refused(data) == [
        {
            "field": "data.products[0].skus[0].price_overrides[0]",
            "message": "needs a context besides the price: one of variant_refs, dow, start_time, end_time, start_date, "
            "end_date, service_types, service_type_refs",
        },
        {
            "field": "data.products[0].skus[0].price_overrides[1].variant_refs[0]",
            "message": "no variant has the ref 'ghost'",
        },
    ]


async def test_rule_7_nutrition_is_checked(refused) -> None:  # type: ignore[no-untyped-def]
    data = one_product()
    data["products"][0]["nutrition"] = {"allergens": "nuts", "fat_g": "-1", "sugars_g": "a lot"}
    assert await refused(data) == [
        {"field": "data.products[0].nutrition.allergens", "message": "must be an array of strings, not 'nuts'"},
        {"field": "data.products[0].nutrition.fat_g", "message": "must be at least 0"},
        {
            "field": "data.products[0].nutrition.sugars_g",
            "message": "'a lot' is not a valid decimal (expected e.g. \"13.5\")",
        },
    ]


async def test_every_ref_pointing_somewhere_must_resolve(refused) -> None:  # type: ignore[no-untyped-def]
    data = full()
    data["categories"][1]["parent_ref"] = "ghost"
    data["products"][1]["category_ref"] = "ghost"
    data["products"][0]["skus"][0]["option_list_refs"] = ["sauces", "ghost"]
    data["deals"][0]["category_ref"] = "ghost"
    data["deals"][0]["lines"][1]["skus"][0]["ref"] = "ghost"
    data["products"][0]["skus"][0]["restrictions"]["variant_refs"] = ["ghost"]
    assert [e["field"] for e in await refused(data)] == [
        "data.products[0].skus[0].restrictions.variant_refs[0]",
        "data.categories[1].parent_ref",
        "data.products[0].skus[0].option_list_refs[1]",
        "data.products[1].category_ref",
        "data.deals[0].category_ref",
        "data.deals[0].lines[1].skus[0].ref",
    ]


async def test_refs_meant_to_be_unique_are(refused) -> None:  # type: ignore[no-untyped-def]
    data = full()
    data["variants"].append({"ref": "web", "name": "Again"})
    data["option_lists"].append({"ref": "sides", "name": "Again", "options": [{"name": "O"}]})
    assert await refused(data) == [
        {"field": "data.variants[2].ref", "message": "'web' is already the ref of another variant"},
        {"field": "data.option_lists[2].ref", "message": "'sides' is already the ref of another option list"},
    ]


async def test_a_category_cannot_be_its_own_ancestor(refused) -> None:  # type: ignore[no-untyped-def]
    data = {"categories": [{"ref": "a", "parent_ref": "b", "name": "A"}, {"ref": "b", "parent_ref": "a", "name": "B"}]}
    assert await refused(data) == [
        {"field": "data.categories[0].parent_ref", "message": "categories must not be their own ancestor"},
        {"field": "data.categories[1].parent_ref", "message": "categories must not be their own ancestor"},
    ]


async def test_required_lists_must_not_be_empty(refused) -> None:  # type: ignore[no-untyped-def]
    data = {
        "categories": [{"ref": "c", "name": "C"}],
        "products": [{"category_ref": "c", "name": "P", "skus": []}],
        "option_lists": [{"ref": "l", "name": "L"}],
        "deals": [{"name": "D", "lines": [{"skus": [], "pricing_effect": "unchanged"}]}],
    }
    assert await refused(data) == [
        {"field": "data.products[0].skus", "message": "must hold at least one sku"},
        {"field": "data.option_lists[0].options", "message": "must hold at least one option"},
        {"field": "data.deals[0].lines[0].skus", "message": "must hold at least one sku"},
    ]


async def test_money_must_be_in_the_account_currency(refused) -> None:  # type: ignore[no-untyped-def]
    assert await refused(one_product(price="1 USD")) == [
        {"field": "data.products[0].skus[0].price", "message": "must be in the account's currency, EUR (not USD)"}
    ]


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ({"pricing_effect": "fixed_price"}, ("pricing_value", "is required")),
        (
            {"pricing_effect": "percentage_off", "pricing_value": "120"},
            ("pricing_value", "must be a percentage between 0 and 100"),
        ),
        (
            {"pricing_effect": "unchanged", "pricing_value": "1 EUR"},
            ("pricing_value", "must be omitted when pricing_effect is unchanged"),
        ),
        (
            {"pricing_effect": "half"},
            ("pricing_effect", "must be one of unchanged, fixed_price, price_off, percentage_off, not 'half'"),
        ),
    ],
)
async def test_deal_line_pricing(refused, line: dict[str, Any], error: tuple[str, str]) -> None:  # type: ignore[no-untyped-def]
    data = one_product(ref="s")
    data["deals"] = [{"name": "D", "lines": [{"skus": [{"ref": "s"}], **line}]}]
    assert await refused(data) == [{"field": f"data.deals[0].lines[0].{error[0]}", "message": error[1]}]


async def test_charge_types_and_discount_effects(refused) -> None:  # type: ignore[no-untyped-def]
    data = {
        "charges": [{"name": "X", "type": "fee"}],
        "discounts": [{"name": "Y", "pricing_effect": "fixed_price", "pricing_value": "1 EUR"}],
    }
    assert await refused(data) == [
        {
            "field": "data.discounts[0].pricing_effect",
            "message": "must be one of price_off, percentage_off, not 'fixed_price'",
        },
        {
            "field": "data.charges[0].type",
            "message": "must be one of delivery, payment_fee, tip, tax, other, not 'fee'",
        },
    ]


async def test_unknown_image_ids_are_refused(refused) -> None:  # type: ignore[no-untyped-def]
    data = one_product()
    data["products"][0]["image_ids"] = ["abcde"]
    assert await refused(data) == [
        {"field": "data.products[0].image_ids[0]", "message": "no image of this catalog has the id 'abcde'"}
    ]


async def test_decimals_sent_as_json_numbers_keep_their_exact_text(
    client: httpx.AsyncClient, shop: Shop, catalog_id: str
) -> None:
    body = '{"data": {"categories": [{"ref": "c", "name": "C"}], "products": [{"category_ref": "c", "name": "P", "tax_rate": {"delivery": 5.50, "collection": 0.1, "eat_in": 19.6000000000000000001}, "skus": [{"price": "1 EUR"}]}]}}'
    answer = await client.put(
        f"/v1/catalogs/{catalog_id}",
        content=body,
        headers={"X-Access-Token": shop.account_token, "Content-Type": "application/json"},
    )
    assert answer.json()["data"]["products"][0]["tax_rate"] == {
        "delivery": "5.5",
        "collection": "0.1",
        "eat_in": "19.6000000000000000001",
    }


async def test_unknown_fields_are_ignored(accepted) -> None:  # type: ignore[no-untyped-def]
    data = one_product(colour="blue")
    data["products"][0]["id"] = "mine"
    product = (await accepted(data))["products"][0]
    assert "colour" not in product["skus"][0]
    assert product["id"] != "mine"
