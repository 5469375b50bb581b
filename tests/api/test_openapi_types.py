"""The document's types are the API's: what a parameter or body takes is what is checked."""

from __future__ import annotations

from typing import Any

import httpx
import pytest


@pytest.fixture
async def document(client: httpx.AsyncClient) -> dict[str, Any]:
    return (await client.get("/v1/openapi.json")).json()


def _parameter(document: dict[str, Any], path: str, method: str, name: str) -> dict[str, Any]:
    [found] = [p for p in document["paths"][path][method]["parameters"] if p["name"] == name]
    return dict(found["schema"])


async def test_count_is_an_integer_of_at_least_1_on_every_list(document: dict[str, Any]) -> None:
    lists = [
        (path, method)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if any(parameter["name"] == "count" for parameter in operation.get("parameters", []))
    ]
    assert len(lists) >= 15
    for path, method in lists:
        assert _parameter(document, path, method, "count") == {"type": "integer", "minimum": 1, "title": "Count"}


async def test_inventory_writes_take_a_typed_array_of_entries(document: dict[str, Any]) -> None:
    for path in (
        "/v1/catalogs/{catalog_id}/location/inventory",
        "/v1/catalogs/{catalog_id}/locations/{location_id}/inventory",
    ):
        put = document["paths"][path]["put"]["requestBody"]["content"]["application/json"]["schema"]
        patch = document["paths"][path]["patch"]["requestBody"]["content"]["application/json"]["schema"]
        for body in (put, patch):
            assert body["type"] == "array"
            assert set(body["items"]["properties"]) == {"sku_ref", "option_ref", "stock", "expires_at"}
        assert put["items"]["required"] == ["stock"]  # PUT replaces: every entry has a stock
        assert "required" not in patch["items"]  # PATCH: a null or absent stock leaves or deletes


async def test_query_parameters_say_what_is_checked(document: dict[str, Any]) -> None:
    assert _parameter(document, "/v1/catalogs/{catalog_id}", "get", "hide_data")["type"] == "boolean"
    status = _parameter(document, "/v1/location/orders", "get", "status")
    assert "in_preparation" in status["enum"]
    after = _parameter(document, "/v1/location/orders", "get", "after")
    assert after["pattern"].startswith("^(19[0-9]{2}|[2-8][0-9]{3})-")
    assert "[T ]" not in after["pattern"]  # only `T`: a space would be a `+` in a query
