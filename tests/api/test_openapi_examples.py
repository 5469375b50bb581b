"""Every request body and read shape of the OpenAPI document carries a realistic example,
valid against its own model and against the constraints the document states."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel

import comptoir
from tests.response_schemas import FORMATS

# The shapes that must carry examples: every request body, and the read shapes of resources.
REQUEST_BODIES = {
    "CallbackUpdate", "CatalogCreate", "CatalogWrite", "CustomerListWrite", "CustomerWrite", "QuoteCreate",
    "DeliveryCreate", "DeliveryUpdate", "LocationUpdate", "LoyaltyCardCreate", "LoyaltyCardUpdate",
    "LoyaltyOperationCreate", "OrderCreate", "OrderUpdate", "ReplayRange",
}  # fmt: skip
READ_SHAPES = {
    "Account", "Callback", "EventSummary", "CustomerList", "Customer", "Delivery", "Image", "InventoryEntry",
    "Location", "LoyaltyCard", "LoyaltyOperation", "Quote", "User", "SigningSecret", "TestEvent", "Queued",
}  # fmt: skip


def _models() -> dict[str, type[BaseModel]]:
    """The pydantic models of every feature's schemas module, by name."""
    found: dict[str, type[BaseModel]] = {}
    for module in pkgutil.iter_modules(comptoir.__path__):
        try:
            schemas = importlib.import_module(f"comptoir.{module.name}.schemas")
        except ModuleNotFoundError:
            continue
        for value in vars(schemas).values():
            if isinstance(value, type) and issubclass(value, BaseModel) and value.__module__ == schemas.__name__:
                found[value.__name__] = value
    return found


@pytest.fixture
async def document(client: httpx.AsyncClient) -> dict[str, Any]:
    return (await client.get("/v1/openapi.json")).json()


def _examples(model: type[BaseModel]) -> list[Any]:
    """The model's own examples (the document's copy of them loses its `null` values: FastAPI
    writes the document without them)."""
    return list(model.model_json_schema().get("examples", []))


async def test_every_request_body_and_read_shape_has_examples(document: dict[str, Any]) -> None:
    models = _models()
    assert {name for name in REQUEST_BODIES | READ_SHAPES if not _examples(models[name])} == set()
    bodies = {
        operation["requestBody"]["content"]["application/json"]["schema"].get("$ref", "").rsplit("/", 1)[-1]
        for item in document["paths"].values()
        for operation in item.values()
        if "requestBody" in operation and "application/json" in operation["requestBody"]["content"]
    }
    assert bodies - {""} <= REQUEST_BODIES


async def test_every_example_is_valid_against_the_document_and_its_model(document: dict[str, Any]) -> None:
    components = document["components"]["schemas"]
    checked = 0
    for name, model in _models().items():
        for example in _examples(model):
            schema = {**components[name], "components": document["components"]}
            validator = Draft202012Validator(schema, format_checker=FORMATS)
            assert [error.message for error in validator.iter_errors(example)] == [], name
            model.model_validate(example)
            checked += 1
    assert checked >= len(REQUEST_BODIES | READ_SHAPES)
