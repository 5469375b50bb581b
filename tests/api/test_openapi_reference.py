"""The OpenAPI document reads as a reference: valid OpenAPI 3.1, every operation summarised,
described with its access rule and shown with an example, the headers every answer carries,
the authorisation server's endpoints and every callback as a webhook."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import jsonschema
import pytest
from openapi_spec_validator import validate

from comptoir.events import RESOURCE_EVENTS
from tests.api.callbacks.conftest import new_listener, subscribe, touch_location
from tests.api.conftest import Shop
from tests.factories import World

METHODS = ("get", "put", "post", "delete", "patch")


@pytest.fixture
async def document(client: httpx.AsyncClient) -> dict[str, Any]:
    response = await client.get("/v1/openapi.json")
    assert response.status_code == 200
    return response.json()


def operations(document: dict[str, Any], section: str = "paths") -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in document[section].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def api_operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    return ((p, m, o) for p, m, o in operations(document) if p.startswith("/v1/"))


def texts(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from texts(item)
    elif isinstance(value, str):
        yield value


def resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def has_example(document: dict[str, Any], operation: dict[str, Any]) -> bool:
    """An example in the request body or a 2xx answer (on the media type, or on the schema as
    the body's models declare them), or on a parameter."""
    media_types = [*operation.get("requestBody", {}).get("content", {}).values()]
    for status, response in operation["responses"].items():
        if status.startswith("2"):
            media_types += response.get("content", {}).values()
    for media in media_types:
        if "example" in media or "examples" in media:
            return True
        schema = media.get("schema", {})
        schema = resolve(document, schema.get("items", schema))
        if "example" in schema or "examples" in schema:
            return True
    return any("example" in p or "examples" in p for p in operation.get("parameters", []))


async def test_the_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    assert document["openapi"].startswith("3.1.")
    validate(document)


async def test_every_operation_has_a_summary_and_a_description(document: dict[str, Any]) -> None:
    found = [*operations(document), *operations(document, "webhooks")]
    assert len(found) == 119 + 18
    for path, method, operation in found:
        assert operation.get("summary", "").strip(), (path, method)
        assert operation.get("description", "").strip(), (path, method)


async def test_no_text_refers_to_a_document_the_reader_cannot_open(document: dict[str, Any]) -> None:
    found = [text for text in texts(document) if re.search(r"spec \d|specification", text, re.IGNORECASE)]
    assert found == []


async def test_every_operation_shows_an_example(document: dict[str, Any]) -> None:
    without = [(m, p) for p, m, o in operations(document) if not has_example(document, o)]
    assert without == []
    for name, item in document["webhooks"].items():
        assert "example" in item["post"]["requestBody"]["content"]["application/json"], name


async def test_examples_given_with_an_operation_match_its_schemas(document: dict[str, Any]) -> None:
    checked = 0
    for _path, _method, operation in operations(document):
        body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
        answer = operation["responses"].get("200", {}).get("content", {}).get("application/json", {})
        for media in (body, answer):
            if "example" in media:
                schema = {**media["schema"], "components": document["components"]}
                jsonschema.validate(media["example"], schema, cls=jsonschema.Draft202012Validator)
                checked += 1
    assert checked == 76


async def test_each_api_operation_states_the_access_its_route_declares(document: dict[str, Any]) -> None:
    orders = document["paths"]["/v1/location/orders"]["get"]["description"]
    assert orders.endswith("**Access**: token level location; scope: `orders.read`; rate limit: heavy.")
    account = document["paths"]["/v1/accounts/{account_id}/orders"]["get"]["description"]
    assert account.endswith("**Access**: token level account; scope: `orders.read`; rate limit: heavy.")
    callback = document["paths"]["/v1/callback"]["post"]["description"]
    assert callback.endswith("**Access**: token level any; scope: a valid token, nothing more; rate limit: general.")
    for path, method, operation in api_operations(document):
        assert "\n\n**Access**: token level " in operation["description"], (path, method)


async def test_both_ways_of_sending_the_token_are_declared(document: dict[str, Any]) -> None:
    schemes = document["components"]["securitySchemes"]
    assert schemes["AccessToken"] == {
        "type": "apiKey",
        "description": "The access token of a connection, as `POST /oauth2/v1/token` gave it.",
        "in": "header",
        "name": "X-Access-Token",
    }
    assert schemes["Bearer"]["type"] == "http"
    assert schemes["Bearer"]["scheme"] == "bearer"
    assert schemes["ClientBasic"]["scheme"] == "basic"
    for path, method, operation in api_operations(document):
        assert operation["security"] == [{"AccessToken": []}, {"Bearer": []}], (path, method)


IDEMPOTENT = {
    ("post", "/v1/locations/{location_id}/orders"),
    ("post", "/v1/location/orders"),
    ("post", "/v1/locations/{location_id}/orders/{order_id}/delivery_quotes"),
    ("post", "/v1/location/orders/{order_id}/delivery_quotes"),
    ("post", "/v1/locations/{location_id}/orders/{order_id}/delivery"),
    ("post", "/v1/location/orders/{order_id}/delivery"),
    ("post", "/v1/customer_lists/{customer_list_id}/customers"),
    ("post", "/v1/customer_lists/{customer_list_id}/loyalty_cards/{loyalty_card_id}/operations"),
}


async def test_the_idempotency_key_is_declared_on_the_creations_that_honour_it(document: dict[str, Any]) -> None:
    declared = {
        (method, path)
        for path, method, operation in api_operations(document)
        for parameter in operation.get("parameters", [])
        if parameter == {**parameter, "name": "Idempotency-Key", "in": "header", "required": False}
    }
    assert declared == IDEMPOTENT
    for method, path in IDEMPOTENT:
        assert "Idempotent-Replayed" in document["paths"][path][method]["responses"]["200"]["headers"]


async def test_every_answer_declares_the_request_id_and_rate_limit_headers(document: dict[str, Any]) -> None:
    for path, method, operation in api_operations(document):
        for status, response in operation["responses"].items():
            headers = set(response.get("headers", {}))
            assert "X-Request-Id" in headers, (path, method, status)
            if status != "401":
                assert {"RateLimit", "RateLimit-Policy"} <= headers, (path, method, status)
        assert "Retry-After" in operation["responses"]["429"]["headers"], (path, method)


async def test_paginated_lists_declare_the_cursor_both_ways(document: dict[str, Any]) -> None:
    lists = 0
    for path, method, operation in api_operations(document):
        parameters = {p["name"] for p in operation.get("parameters", [])}
        paginated = "X-Cursor-Next" in operation["responses"].get("200", {}).get("headers", {})
        assert paginated == ("cursor" in parameters), (path, method)
        if paginated:
            assert "count" in parameters, (path, method)
            lists += 1
    assert lists == 17


async def test_reads_declare_etag_if_none_match_and_304(document: dict[str, Any]) -> None:
    for path, method, operation in api_operations(document):
        parameters = {p["name"] for p in operation.get("parameters", [])}
        if method == "get":
            assert "If-None-Match" in parameters, path
            assert "ETag" in operation["responses"]["200"]["headers"], path
            assert set(operation["responses"]["304"]["headers"]) == {
                "ETag",
                "X-Request-Id",
                "RateLimit",
                "RateLimit-Policy",
            }
        else:
            assert "If-None-Match" not in parameters, (path, method)
            assert "304" not in operation["responses"], (path, method)


async def test_the_authorisation_server_is_documented(document: dict[str, Any]) -> None:
    oauth = {(m, p) for p, m, _ in operations(document) if not p.startswith("/v1/")}
    assert oauth == {
        ("get", "/oauth2/v1/authorize"),
        ("post", "/oauth2/v1/token"),
        ("post", "/oauth2/v1/revoke"),
        ("get", "/.well-known/oauth-authorization-server"),
    }
    token = document["components"]["schemas"]["TokenResponse"]
    assert set(token["properties"]) == {
        "access_token", "token_type", "scope", "account_id", "location_id", "catalog_id", "customer_list_id",
        "account_name", "location_name", "catalog_name", "customer_list_name",
    }  # fmt: skip
    assert document["paths"]["/oauth2/v1/token"]["post"]["security"] == [{"ClientBasic": []}]


async def test_every_callback_is_a_webhook_with_its_signature_headers(document: dict[str, Any]) -> None:
    expected = {f"{resource}.{event}" for resource, events in RESOURCE_EVENTS.items() for event in events}
    assert set(document["webhooks"]) == expected
    for name, item in document["webhooks"].items():
        post = item["post"]
        headers = {p["name"] for p in post["parameters"] if p["in"] == "header"}
        assert headers == {
            "X-Service-Hmac-SHA256",
            "X-Event-Id",
            "webhook-id",
            "webhook-timestamp",
            "webhook-signature",
        }
        media = post["requestBody"]["content"]["application/json"]
        jsonschema.validate(media["example"], media["schema"], cls=jsonschema.Draft202012Validator)
        resource, event = name.split(".")
        assert media["schema"]["properties"]["resource_type"]["const"] == resource
        assert media["schema"]["properties"]["event_type"]["const"] == event


async def test_an_order_update_webhook_requires_both_states(document: dict[str, Any]) -> None:
    schema = document["webhooks"]["order.update"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert schema["required"] == [
        "id", "resource_type", "event_type", "created_at", "order_id", "location_id", "new_state", "previous_state",
    ]  # fmt: skip
    catalog = document["webhooks"]["catalog.delete"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert "previous_state" not in catalog["properties"]


async def test_real_events_match_their_webhook_schemas(
    client: httpx.AsyncClient, shop: Shop, world: World, document: dict[str, Any]
) -> None:
    from tests.api.orders.conftest import order

    listener = await new_listener(world, shop, "Listening app")
    await subscribe(client, listener.token, {"order": ["create", "update"], "location": ["update"]})
    created = await client.post("/v1/location/orders", json=order(), headers=shop.headers())
    path = f"/v1/location/orders/{created.json()['id']}"
    await client.patch(path, json={"status": "accepted"}, headers=shop.headers())
    await touch_location(client, shop, 25)
    listed = (await client.get("/v1/callback/events", headers=listener.headers())).json()
    seen = []
    for summary in listed:
        event = (await client.get(f"/v1/callback/events/{summary['id']}", headers=listener.headers())).json()
        name = f"{event['resource_type']}.{event['event_type']}"
        schema = document["webhooks"][name]["post"]["requestBody"]["content"]["application/json"]["schema"]
        jsonschema.validate(event, schema, cls=jsonschema.Draft202012Validator)
        seen.append(name)
    assert seen == ["order.create", "order.update", "location.update"]
