"""The client's models are generated from the server's OpenAPI document, and its asyncio
resources from its sync ones (scripts/generate_client_models.py): the committed files are
what the generator writes now, so the client cannot drift from the server."""

from __future__ import annotations

import importlib.util
import inspect
import re
from pathlib import Path
from types import ModuleType

import pydantic
import pytest

from comptoir_client import async_resources, models, resources

ROOT = Path(__file__).resolve().parents[3]


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate_client_models", ROOT / "scripts/generate_client_models.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_models_are_what_the_server_document_generates() -> None:
    generator = _generator()
    assert generator.MODELS.read_text() == generator.generate(), "run: uv run python scripts/generate_client_models.py"


def test_the_async_resources_are_generated_from_the_sync_ones() -> None:
    generator = _generator()
    assert generator.ASYNC_RESOURCES.read_text() == generator.generate_async_resources()


def test_every_sync_method_has_its_async_twin_with_the_same_parameters() -> None:
    for name, cls in inspect.getmembers(resources, inspect.isclass):
        if cls.__module__ != resources.__name__ or name.startswith("_"):
            continue
        twin = getattr(async_resources, name)
        for method, function in inspect.getmembers(cls, inspect.isfunction):
            if method.startswith("_"):
                continue
            assert list(inspect.signature(function).parameters) == list(
                inspect.signature(getattr(twin, method)).parameters
            ), f"{name}.{method}"


def test_a_constrained_string_field_holds_a_plain_str() -> None:
    item = models.Item(product_name="Burger", price="12.50 EUR", quantity="2", customer_notes="hi")

    assert item.customer_notes == "hi"
    assert type(item.customer_notes) is str


def test_a_constrained_string_keeps_its_constraints() -> None:
    with pytest.raises(pydantic.ValidationError) as refused:
        models.Item(product_name="Burger", price="12.50 EUR", quantity="2", customer_notes="x" * 5001)

    assert [error["type"] for error in refused.value.errors()] == ["string_too_long"]


def test_no_model_has_a_numbered_or_in_out_name() -> None:
    names = [
        name
        for name, value in vars(models).items()
        if isinstance(value, type) and value.__module__ == "comptoir_client.models"
    ]

    assert [name for name in names if re.search(r"(In|Out|\d)$", name)] == []
    assert {"OrderCreate", "Item", "ItemOption", "OrderCharge", "Payment", "OrderAcceptanceUpdate"} <= set(names)


def test_an_order_acceptance_update_is_one_model_for_every_mode() -> None:
    update = models.LocationUpdate(
        order_acceptance=models.OrderAcceptanceUpdate(mode="busy", extra_preparation_time=15)
    )

    assert update.model_dump(exclude_unset=True) == {"order_acceptance": {"mode": "busy", "extra_preparation_time": 15}}


def test_a_name_of_0_1_still_works_with_a_deprecation_warning() -> None:
    with pytest.warns(
        DeprecationWarning, match=r"^comptoir_client.models.ItemIn is Item since 0.2; ItemIn goes in 0.3$"
    ):
        renamed = models.ItemIn

    assert renamed is models.Item


def test_an_unknown_model_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'Nothing'"):
        models.Nothing  # noqa: B018
