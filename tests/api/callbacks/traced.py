"""Fixtures that trace a test module's app, database and delivery worker into an in-memory
exporter (docs/operations.md "Traces"): a module imports `spans`, `database` and `app` from
here, replacing the usual ones. `tracing.install` runs before anything is built, the app
is the test's own (never the process's shared one), `install(None)` runs after."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from fastapi import FastAPI
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from comptoir.app import create_app
from comptoir.config import Settings
from comptoir.db.engine import Database, create_database
from comptoir.kit import tracing


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.install(provider)
    yield exporter
    tracing.install(None)
    provider.shutdown()


@pytest.fixture
async def database(settings: Settings, spans: InMemorySpanExporter) -> AsyncIterator[Database]:
    db = create_database(settings, pool_size=5)
    await db.load_id_key()
    yield db
    await db.dispose()


@pytest.fixture
async def app(settings: Settings, database: Database) -> AsyncIterator[FastAPI]:
    app = create_app(settings, database=database, background=False)
    yield app
    await app.state.comptoir.fast.close()


def trace_of(spans: InMemorySpanExporter, name: str) -> list[ReadableSpan]:
    """Every finished span of the trace of the (one) span called `name`."""
    [root] = [span for span in spans.get_finished_spans() if span.name == name]
    assert root.context is not None
    trace_id = root.context.trace_id
    return [
        span for span in spans.get_finished_spans() if span.context is not None and span.context.trace_id == trace_id
    ]
