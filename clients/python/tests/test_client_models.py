"""The client's models are generated from the server's OpenAPI document, and its asyncio
resources from its sync ones (scripts/generate_client_models.py): the committed files are
what the generator writes now, so the client cannot drift from the server."""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path
from types import ModuleType

from comptoir_client import async_resources, resources

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
