"""The OpenAPI document at /v1/openapi.json describes every route with its real request and
response schemas: real responses are validated against it."""

from __future__ import annotations

from typing import Any

import httpx
import jsonschema
import pytest

from tests.api.conftest import Shop


@pytest.fixture
async def document(client: httpx.AsyncClient) -> dict[str, Any]:
    response = await client.get("/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


def schema_of(document: dict[str, Any], path: str, method: str, status: str) -> dict[str, Any]:
    content = document["paths"][path][method]["responses"][status]["content"]["application/json"]["schema"]
    return {**content, "components": document["components"]}


def check(document: dict[str, Any], path: str, method: str, response: httpx.Response) -> None:
    schema = schema_of(document, path, method, str(response.status_code))
    resolver_schema = {"$ref": "#/$defs/root", "$defs": {"root": schema}, "components": document["components"]}
    jsonschema.validate(response.json(), resolver_schema, cls=jsonschema.Draft202012Validator)


API_OPERATIONS = {
    ("/v1/accounts", "GET"),
    ("/v1/accounts/{account_id}", "GET"),
    ("/v1/account", "GET"),
    ("/v1/locations", "GET"),
    ("/v1/locations/{location_id}", "GET"),
    ("/v1/locations/{location_id}", "PATCH"),
    ("/v1/locations/{location_id}", "PUT"),
    ("/v1/location", "GET"),
    ("/v1/location", "PATCH"),
    ("/v1/location", "PUT"),
    ("/v1/user", "GET"),
    ("/v1/callback", "GET"),
    ("/v1/callback", "POST"),
    ("/v1/callback", "DELETE"),
    ("/v1/callback/events", "GET"),
    ("/v1/callback/stream", "GET"),
    ("/v1/callback/events/{event_id}", "GET"),
    ("/v1/callback/events/{event_id}", "DELETE"),
    ("/v1/callback/events/{event_id}/resend", "POST"),
    ("/v1/callback/replay", "POST"),
    ("/v1/callback/test", "POST"),
    ("/v1/callback/enable", "POST"),
    ("/v1/callback/signing_secret", "GET"),
    ("/v1/callback/signing_secret/rotate", "POST"),
    ("/v1/customer_lists/{customer_list_id}", "GET"),
    ("/v1/customer_lists/{customer_list_id}", "PATCH"),
    ("/v1/customer_lists/{customer_list_id}", "PUT"),
    ("/v1/customer_lists/{customer_list_id}", "DELETE"),
    ("/v1/locations/{location_id}/customer_lists", "GET"),
    ("/v1/locations/{location_id}/customer_lists", "POST"),
    ("/v1/location/customer_lists", "GET"),
    ("/v1/location/customer_lists", "POST"),
    ("/v1/accounts/{account_id}/customer_lists", "GET"),
    ("/v1/accounts/{account_id}/customer_lists", "POST"),
    ("/v1/account/customer_lists", "GET"),
    ("/v1/account/customer_lists", "POST"),
    ("/v1/customer_lists/{customer_list_id}/customers", "GET"),
    ("/v1/customer_lists/{customer_list_id}/customers", "POST"),
    ("/v1/customer_lists/{customer_list_id}/customers/{customer_id}", "GET"),
    ("/v1/customer_lists/{customer_list_id}/customers/{customer_id}", "PATCH"),
    ("/v1/customer_lists/{customer_list_id}/customers/{customer_id}", "PUT"),
    ("/v1/customer_lists/{customer_list_id}/customers/{customer_id}/anonymise", "POST"),
    ("/v1/customer_lists/{customer_list_id}/loyalty_cards", "GET"),
    ("/v1/customer_lists/{customer_list_id}/loyalty_cards", "POST"),
    ("/v1/customer_lists/{customer_list_id}/loyalty_cards/{loyalty_card_id}", "GET"),
    ("/v1/customer_lists/{customer_list_id}/loyalty_cards/{loyalty_card_id}", "PATCH"),
    ("/v1/customer_lists/{customer_list_id}/loyalty_cards/{loyalty_card_id}", "PUT"),
    ("/v1/customer_lists/{customer_list_id}/loyalty_cards/{loyalty_card_id}/operations", "GET"),
    ("/v1/customer_lists/{customer_list_id}/loyalty_cards/{loyalty_card_id}/operations", "POST"),
    ("/v1/customer_lists/{customer_list_id}/loyalty_cards/{loyalty_card_id}/operations/{operation_id}", "GET"),
    ("/v1/locations/{location_id}/orders", "GET"),
    ("/v1/locations/{location_id}/orders", "POST"),
    ("/v1/location/orders", "GET"),
    ("/v1/location/orders", "POST"),
    ("/v1/locations/{location_id}/orders/{order_id}", "GET"),
    ("/v1/locations/{location_id}/orders/{order_id}", "PATCH"),
    ("/v1/locations/{location_id}/orders/{order_id}", "PUT"),
    ("/v1/location/orders/{order_id}", "GET"),
    ("/v1/location/orders/{order_id}", "PATCH"),
    ("/v1/location/orders/{order_id}", "PUT"),
    ("/v1/accounts/{account_id}/orders", "GET"),
    ("/v1/account/orders", "GET"),
    ("/v1/locations/{location_id}/orders/{order_id}/delivery_quotes", "GET"),
    ("/v1/locations/{location_id}/orders/{order_id}/delivery_quotes", "POST"),
    ("/v1/locations/{location_id}/orders/{order_id}/delivery_quotes/{quote_id}", "GET"),
    ("/v1/locations/{location_id}/orders/{order_id}/delivery_quotes/{quote_id}/accept", "POST"),
    ("/v1/locations/{location_id}/orders/{order_id}/delivery", "GET"),
    ("/v1/locations/{location_id}/orders/{order_id}/delivery", "POST"),
    ("/v1/locations/{location_id}/orders/{order_id}/delivery", "PATCH"),
    ("/v1/locations/{location_id}/orders/{order_id}/delivery", "PUT"),
    ("/v1/location/orders/{order_id}/delivery_quotes", "GET"),
    ("/v1/location/orders/{order_id}/delivery_quotes", "POST"),
    ("/v1/location/orders/{order_id}/delivery_quotes/{quote_id}", "GET"),
    ("/v1/location/orders/{order_id}/delivery_quotes/{quote_id}/accept", "POST"),
    ("/v1/location/orders/{order_id}/delivery", "GET"),
    ("/v1/location/orders/{order_id}/delivery", "POST"),
    ("/v1/location/orders/{order_id}/delivery", "PATCH"),
    ("/v1/location/orders/{order_id}/delivery", "PUT"),
    ("/v1/account/catalogs", "GET"),
    ("/v1/account/catalogs", "POST"),
    ("/v1/accounts/{account_id}/catalogs", "GET"),
    ("/v1/accounts/{account_id}/catalogs", "POST"),
    ("/v1/location/catalogs", "GET"),
    ("/v1/location/catalogs", "POST"),
    ("/v1/locations/{location_id}/catalogs", "GET"),
    ("/v1/locations/{location_id}/catalogs", "POST"),
    ("/v1/catalogs/{catalog_id}", "GET"),
    ("/v1/catalogs/{catalog_id}", "PUT"),
    ("/v1/catalogs/{catalog_id}", "DELETE"),
    ("/v1/catalogs/{catalog_id}/categories", "GET"),
    ("/v1/catalogs/{catalog_id}/categories/{item_id}", "GET"),
    ("/v1/catalogs/{catalog_id}/products", "GET"),
    ("/v1/catalogs/{catalog_id}/products/{item_id}", "GET"),
    ("/v1/catalogs/{catalog_id}/products/{product_id}/skus", "GET"),
    ("/v1/catalogs/{catalog_id}/products/{product_id}/skus/{sku_id}", "GET"),
    ("/v1/catalogs/{catalog_id}/option_lists", "GET"),
    ("/v1/catalogs/{catalog_id}/option_lists/{item_id}", "GET"),
    ("/v1/catalogs/{catalog_id}/option_lists/{option_list_id}/options", "GET"),
    ("/v1/catalogs/{catalog_id}/option_lists/{option_list_id}/options/{option_id}", "GET"),
    ("/v1/catalogs/{catalog_id}/deals", "GET"),
    ("/v1/catalogs/{catalog_id}/deals/{item_id}", "GET"),
    ("/v1/catalogs/{catalog_id}/discounts", "GET"),
    ("/v1/catalogs/{catalog_id}/discounts/{item_id}", "GET"),
    ("/v1/catalogs/{catalog_id}/charges", "GET"),
    ("/v1/catalogs/{catalog_id}/charges/{item_id}", "GET"),
    ("/v1/catalogs/{catalog_id}/locations/{location_id}/inventory", "GET"),
    ("/v1/catalogs/{catalog_id}/locations/{location_id}/inventory", "PUT"),
    ("/v1/catalogs/{catalog_id}/locations/{location_id}/inventory", "PATCH"),
    ("/v1/catalogs/{catalog_id}/location/inventory", "GET"),
    ("/v1/catalogs/{catalog_id}/location/inventory", "PUT"),
    ("/v1/catalogs/{catalog_id}/location/inventory", "PATCH"),
    ("/v1/catalogs/{catalog_id}/images", "GET"),
    ("/v1/catalogs/{catalog_id}/images", "POST"),
    ("/v1/catalogs/{catalog_id}/images/{image_id}", "GET"),
    ("/v1/catalogs/{catalog_id}/images/{image_id}/data", "GET"),
}


async def test_every_api_route_is_documented_with_its_methods(document: dict[str, Any]) -> None:
    documented = {
        (path, method.upper()) for path, item in document["paths"].items() for method in item if path.startswith("/v1/")
    }
    assert documented == API_OPERATIONS


async def test_every_operation_documents_a_response_schema_and_errors(document: dict[str, Any]) -> None:
    for path, item in document["paths"].items():
        if not path.startswith("/v1/"):  # the authorisation server: tests/api/test_openapi_reference.py
            continue
        for method, operation in item.items():
            if path.endswith("/images/{image_id}/data"):  # the image's own bytes
                assert set(operation["responses"]["200"]["content"]) == {
                    "image/jpeg", "image/png", "image/webp", "image/gif", "image/bmp",
                }  # fmt: skip
            elif path == "/v1/callback/stream":  # Server-Sent Events
                assert set(operation["responses"]["200"]["content"]) == {"text/event-stream"}
            else:
                success = operation["responses"].get("200") or operation["responses"]["202"]  # 202: queued
                assert "schema" in success["content"]["application/json"], (path, method)
            assert {"401", "403", "404", "429"} <= set(operation["responses"]), (path, method)
            no_body = ("/anonymise", "/accept", "/resend", "/test", "/enable", "/rotate")
            if method in ("patch", "put", "post") and not path.endswith(no_body):
                assert "requestBody" in operation, (path, method)
                assert {"415", "422"} <= set(operation["responses"]), (path, method)


async def test_every_refusal_of_the_api_is_documented_as_a_json_error_body(document: dict[str, Any]) -> None:
    """Whatever the operation answers when it succeeds (a stream, an image), a refusal is the
    JSON error body (docs/api/conventions.md "Errors"), one of the shapes in the components."""
    shapes = {f"#/components/schemas/{name}" for name in ("ErrorBody", "ValidationErrorBody")}
    assert {ref.rsplit("/", 1)[1] for ref in shapes} <= set(document["components"]["schemas"])
    for path, item in document["paths"].items():
        if not path.startswith("/v1/"):
            continue
        for method, operation in item.items():
            for status, answer in operation["responses"].items():
                if status.startswith("4"):
                    assert set(answer["content"]) == {"application/json"}, (path, method, status)
                    assert answer["content"]["application/json"]["schema"]["$ref"] in shapes, (path, method, status)


async def test_real_responses_match_the_documented_schemas(
    client: httpx.AsyncClient, shop: Shop, document: dict[str, Any]
) -> None:
    account = shop.headers(shop.account_token)
    cases = [
        ("/v1/location", "get", await client.get("/v1/location", headers=shop.headers())),
        (
            "/v1/locations/{location_id}",
            "get",
            await client.get(f"/v1/locations/{shop.location.public_id}", headers=shop.headers()),
        ),
        ("/v1/locations", "get", await client.get("/v1/locations", headers=account)),
        ("/v1/account", "get", await client.get("/v1/account", headers=account)),
        ("/v1/accounts", "get", await client.get("/v1/accounts", headers=account)),
        (
            "/v1/accounts/{account_id}",
            "get",
            await client.get(f"/v1/accounts/{shop.account.public_id}", headers=account),
        ),
        ("/v1/user", "get", await client.get("/v1/user", headers=shop.headers())),
        (
            "/v1/location",
            "patch",
            await client.patch(
                "/v1/location",
                json={
                    "opening_hours": {"monday": [{"from": "10:00", "to": "12:00"}]},
                    "order_acceptance": {"mode": "busy", "extra_preparation_time": 5},
                    "custom_fields": {"x": [1, {"y": None}]},
                },
                headers=shop.headers(),
            ),
        ),
        ("/v1/location", "patch", await client.patch("/v1/location", json={"cutoff_time": 1}, headers=shop.headers())),
        ("/v1/location", "get", await client.get("/v1/location")),
        ("/v1/account", "get", await client.get("/v1/account", headers=shop.headers())),
    ]
    assert [r.status_code for _, _, r in cases][-3:] == [422, 401, 403]
    for path, method, response in cases:
        check(document, path, method, response)


async def test_documented_read_schemas_forbid_undocumented_fields(document: dict[str, Any]) -> None:
    location = document["components"]["schemas"]["Location"]
    assert location["additionalProperties"] is False
    assert set(location["required"]) == set(location["properties"])


async def test_lists_document_the_cursor_header_and_parameters(document: dict[str, Any]) -> None:
    for path in ("/v1/locations", "/v1/accounts", "/v1/callback/events"):
        operation = document["paths"][path]["get"]
        assert "X-Cursor-Next" in operation["responses"]["200"]["headers"]
        assert {p["name"] for p in operation["parameters"]} == {"count", "cursor", "If-None-Match"}


async def test_customer_responses_match_the_documented_schemas(
    client: httpx.AsyncClient, shop: Shop, document: dict[str, Any]
) -> None:
    headers = shop.headers()
    lists = await client.get("/v1/location/customer_lists", headers=headers)
    list_id = lists.json()[0]["id"]
    base = f"/v1/customer_lists/{list_id}"
    customer = await client.post(f"{base}/customers", json={"first_name": "Ann", "latitude": "1.5"}, headers=headers)
    customer_id = customer.json()["id"]
    card = await client.post(f"{base}/loyalty_cards", json={"customer_id": customer_id}, headers=headers)
    card_path = f"{base}/loyalty_cards/{card.json()['id']}"
    operation = await client.post(f"{card_path}/operations", json={"delta": "2"}, headers=headers)
    prefix = "/v1/customer_lists/{customer_list_id}"
    cases = [
        ("/v1/location/customer_lists", "get", lists),
        (prefix, "get", await client.get(base, headers=headers)),
        (prefix + "/customers", "post", customer),
        (prefix + "/customers", "get", await client.get(f"{base}/customers", headers=headers)),
        (
            prefix + "/customers/{customer_id}",
            "get",
            await client.get(f"{base}/customers/{customer_id}", headers=headers),
        ),
        (prefix + "/loyalty_cards", "post", card),
        (prefix + "/loyalty_cards/{loyalty_card_id}/operations", "post", operation),
        (
            prefix + "/loyalty_cards/{loyalty_card_id}/operations",
            "get",
            await client.get(f"{card_path}/operations", headers=headers),
        ),
        (
            prefix + "/customers/{customer_id}/anonymise",
            "post",
            await client.post(f"{base}/customers/{customer_id}/anonymise", headers=headers),
        ),
    ]
    assert {r.status_code for _, _, r in cases} == {200}
    for path, method, response in cases:
        check(document, path, method, response)


async def test_order_responses_match_the_documented_schemas(
    client: httpx.AsyncClient, shop: Shop, document: dict[str, Any]
) -> None:
    from tests.api.orders.conftest import order

    headers = shop.headers()
    created = await client.post("/v1/location/orders", json=order(), headers=headers)
    path = f"/v1/location/orders/{created.json()['id']}"
    cases = [
        ("/v1/location/orders", "post", created),
        ("/v1/location/orders/{order_id}", "get", await client.get(path, headers=headers)),
        (
            "/v1/location/orders/{order_id}",
            "patch",
            await client.patch(path, json={"status": "accepted"}, headers=headers),
        ),
        ("/v1/location/orders", "get", await client.get("/v1/location/orders", headers=headers)),
    ]
    assert {r.status_code for _, _, r in cases} == {200}
    for route, method, response in cases:
        check(document, route, method, response)


async def test_catalog_responses_match_the_documented_schemas(
    client: httpx.AsyncClient, shop: Shop, document: dict[str, Any]
) -> None:
    from tests.api.catalogs.conftest import create, full
    from tests.api.catalogs.test_images import PNG

    made = await create(client, shop, {"name": "Carte", "data": full()})
    catalog = made.json()
    data, auth = catalog["data"], shop.headers(shop.account_token)
    base = f"/v1/catalogs/{catalog['id']}"
    product, option_list = data["products"][0], data["option_lists"][0]
    inventory = f"{base}/locations/{shop.location.public_id}/inventory"
    image = await client.post(f"{base}/images", content=PNG, headers={**auth, "Content-Type": "image/png"})
    cases = [
        ("/v1/locations/{location_id}/catalogs", "post", made),
        ("/v1/catalogs/{catalog_id}", "get", await client.get(base, headers=auth)),
        ("/v1/location/catalogs", "get", await client.get("/v1/location/catalogs", headers=shop.headers())),
        ("/v1/catalogs/{catalog_id}/categories", "get", await client.get(f"{base}/categories", headers=auth)),
        (
            "/v1/catalogs/{catalog_id}/products/{item_id}",
            "get",
            await client.get(f"{base}/products/{product['id']}", headers=auth),
        ),
        (
            "/v1/catalogs/{catalog_id}/products/{product_id}/skus/{sku_id}",
            "get",
            await client.get(f"{base}/products/{product['id']}/skus/{product['skus'][0]['id']}", headers=auth),
        ),
        (
            "/v1/catalogs/{catalog_id}/option_lists/{item_id}",
            "get",
            await client.get(f"{base}/option_lists/{option_list['id']}", headers=auth),
        ),
        ("/v1/catalogs/{catalog_id}/deals", "get", await client.get(f"{base}/deals", headers=auth)),
        ("/v1/catalogs/{catalog_id}/discounts", "get", await client.get(f"{base}/discounts", headers=auth)),
        ("/v1/catalogs/{catalog_id}/charges", "get", await client.get(f"{base}/charges", headers=auth)),
        (
            "/v1/catalogs/{catalog_id}/locations/{location_id}/inventory",
            "put",
            await client.put(
                inventory, json=[{"sku_ref": "cola", "stock": "0", "expires_at": "2030-06-24T18:00:00Z"}], headers=auth
            ),
        ),
        ("/v1/catalogs/{catalog_id}/images", "post", image),
        ("/v1/catalogs/{catalog_id}/images", "get", await client.get(f"{base}/images", headers=auth)),
    ]
    assert {r.status_code for _, _, r in cases} == {200}
    for path, method, response in cases:
        check(document, path, method, response)
