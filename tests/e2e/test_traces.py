"""docs/operations.md "Traces": the `OTEL_*` variables turn tracing on in a real `serve`
process, which exports its spans over OTLP/HTTP (here to a collector on loopback that
records what it receives). Which values turn it on: tests/unit/test_tracing.py."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from tests.e2e.conftest import Server
from tests.receiver import Receiver, running_receiver
from tests.waiting import PATIENCE

pytestmark = pytest.mark.e2e


@pytest.fixture
def collector() -> Iterator[Receiver]:
    with running_receiver() as running:
        yield running


def _otlp(collector: Receiver) -> dict[str, str]:
    return {
        "OTEL_TRACES_EXPORTER": "otlp",
        "OTEL_EXPORTER_OTLP_ENDPOINT": collector.base_url,
        "OTEL_SERVICE_NAME": "comptoir-e2e",
        "OTEL_BSP_SCHEDULE_DELAY": "50",  # milliseconds
    }


def _read_location(server: Server) -> None:
    """A request that reads the database: an unknown token is looked up, then refused."""
    with server.http() as http:
        assert http.get("/v1/location", headers={"X-Access-Token": "unknown-token"}).status_code == 401


def _exported(collector: Receiver) -> list[tuple[str, Span]]:
    """(service name, span) of everything exported so far."""
    found = []
    for request in collector.requests_to("/v1/traces"):
        export = ExportTraceServiceRequest.FromString(request.body)
        for resource_spans in export.resource_spans:
            attributes = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
            for scope_spans in resource_spans.scope_spans:
                found.extend((attributes["service.name"], span) for span in scope_spans.spans)
    return found


def test_otlp_exports_the_server_span_and_its_statements(
    start_server: Callable[..., Server], collector: Receiver
) -> None:
    server = start_server(env=_otlp(collector))
    _read_location(server)
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        spans = _exported(collector)
        [*servers] = [span for _service, span in spans if span.name == "GET /v1/location"]
        if servers:
            break
        time.sleep(0.1)
    [server_span] = servers
    assert {service for service, _span in spans} == {"comptoir-e2e"}
    assert server_span.kind == Span.SpanKind.SPAN_KIND_SERVER
    children = [span for _service, span in spans if span.parent_span_id == server_span.span_id]
    assert children  # its statements
    assert all(span.trace_id == server_span.trace_id for span in children)
