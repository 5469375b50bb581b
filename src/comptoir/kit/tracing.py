"""OpenTelemetry traces, off unless asked for (docs/operations.md "Traces").

Tracing is on in a process when `OTEL_TRACES_EXPORTER` names an exporter (`otlp`, `console`,
or both, comma-separated) other than `none` and `OTEL_SDK_DISABLED` is not `true`: then
`configure_from_environment` (called once by `serve`'s app factory and by `comptoir
worker`) builds a tracer provider and `install`s it. Tests `install` their own provider (an
in-memory exporter) and `install(None)` to turn tracing off again.

While no provider is installed, nothing of OpenTelemetry's SDK or instrumentations is
imported and nothing is wrapped: each call here returns at once (`fastapi_telemetry()`
turns FastAPI's own off) and `traceparent()` returns None after one test. The pieces that trace
are chosen where they are built (the app, the engine, the direct reader, the callback
client), so a request pays nothing when tracing is off.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # never imported at run time unless tracing is on
    from fastapi.telemetry import TelemetryConfig
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.trace import Tracer

EXPORTERS = ("otlp", "console")
DEFAULT_SERVICE_NAME = "comptoir"
# what `traceparent()` writes and what the delivery worker accepts back: version 00, a trace
# id and a span id (lowercase hex, not all zeros) and the flags
TRACEPARENT = re.compile(r"00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}")

# OpenTelemetry's loggers that warn about a request's malformed `tracestate` or `baggage`
# headers, quoting them: a client would choose what our logs say (docs/operations.md "Traces")
CLIENT_HEADER_LOGGERS = (
    "opentelemetry.trace.span",
    "opentelemetry.trace.propagation.tracecontext",
    "opentelemetry.baggage.propagation",
)

_provider: TracerProvider | None = None
_tracer: Tracer | None = None


class TracingConfigError(ValueError):
    """OTEL_TRACES_EXPORTER names an exporter this build does not have."""


def enabled() -> bool:
    return _provider is not None


QUERY_VALUE_HIDDEN = "_"


def query_without_values(query: str) -> str:
    """A URL query with its names kept and every value hidden (`email=_&count=_`): a list's
    filters may hold a customer's email or phone, which a trace must not carry."""
    from urllib.parse import parse_qsl, urlencode

    return urlencode([(name, QUERY_VALUE_HIDDEN) for name, _ in parse_qsl(query, keep_blank_values=True)])


def _query_values_hidden() -> Any:
    """A span processor that hides the values of a server span's `url.query` as the span
    starts (the attribute is set when the span is made; the span is still writable then)."""
    from opentelemetry.sdk.trace import SpanProcessor

    class QueryValuesHidden(SpanProcessor):
        def on_start(self, span: Any, parent_context: Any = None) -> None:
            query = (span.attributes or {}).get("url.query")
            if isinstance(query, str) and query:
                span.set_attribute("url.query", query_without_values(query))

    return QueryValuesHidden()


def install(provider: TracerProvider | None) -> None:
    """Trace with `provider` from now on in this process (None: stop). What is built
    afterwards is traced (apps, engines, readers, callback clients); what was built before
    keeps its state. A span's query keeps its names, never its values."""
    global _provider, _tracer
    if provider is not None:
        for name in CLIENT_HEADER_LOGGERS:
            logging.getLogger(name).setLevel(logging.ERROR)
        provider.add_span_processor(_query_values_hidden())
    _provider = provider
    _tracer = None if provider is None else provider.get_tracer("comptoir")


def exporter_names(environ: Mapping[str, str]) -> list[str]:
    """The exporters the environment asks for; [] when tracing stays off."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return []
    names = [name.strip().lower() for name in environ.get("OTEL_TRACES_EXPORTER", "").split(",")]
    names = [name for name in names if name and name != "none"]
    unknown = [name for name in names if name not in EXPORTERS]
    if unknown:
        raise TracingConfigError(
            f"OTEL_TRACES_EXPORTER: unknown exporter {unknown[0]!r} (known: {', '.join(EXPORTERS)}, none)"
        )
    return names


def configure_from_environment(environ: Mapping[str, str] | None = None) -> bool:
    """Turn tracing on when the `OTEL_*` variables ask for it; whether it is on."""
    environ = os.environ if environ is None else environ
    if _provider is not None:
        return True
    names = exporter_names(environ)
    if not names:
        return False
    from opentelemetry import trace
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter

    # OTEL_RESOURCE_ATTRIBUTES and OTEL_TRACES_SAMPLER are read by the SDK itself
    service = environ.get("OTEL_SERVICE_NAME", "").strip() or DEFAULT_SERVICE_NAME
    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: service}))
    for name in names:
        exporter: SpanExporter
        if name == "otlp":  # OTLP over HTTP (protobuf); OTEL_EXPORTER_OTLP_* read by the exporter
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            exporter = OTLPSpanExporter()
        else:
            exporter = ConsoleSpanExporter()
        provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    install(provider)
    return True


def flush() -> None:
    """Export the spans still buffered (at a process's end)."""
    if _provider is not None:
        _provider.force_flush()


# --- what is traced (each a no-op while tracing is off) -------------------------------------


def fastapi_telemetry() -> TelemetryConfig:
    """FastAPI's own telemetry settings (`FastAPI(telemetry=...)`): with tracing on, the
    server span of every request from our provider, around the whole application and our
    middlewares, named after the route (`POST /v1/locations/{location_id}/orders`); a
    client's valid `traceparent` is continued, any other is ignored. No metrics, logs or
    per-step spans. While tracing is off, every kind of FastAPI's telemetry off: its
    defaults trace nothing without a global provider, but ask OpenTelemetry's API for its
    providers at every request to find that out (docs/performance.md "Routing")."""
    if _provider is None:
        return {"tracing": False, "metrics": False, "logs": False, "operation_spans": False}
    return {"tracer_provider": _provider, "metrics": False, "logs": False, "operation_spans": False}


def instrument_engine(sync_engine: Any) -> None:
    """A span per statement of a SQLAlchemy engine (an async engine's `sync_engine`) run
    inside a span: a request's, a delivery's. The worker's polls and the timed jobs, which
    run outside any, make no trace of their own every fraction of a second."""
    if _provider is None:
        return
    from opentelemetry.instrumentation.sqlalchemy import __version__
    from opentelemetry.instrumentation.sqlalchemy.engine import EngineTracer
    from opentelemetry.metrics import NoOpMeterProvider
    from opentelemetry.trace import get_current_span

    class InSpans(EngineTracer):
        def _before_cur_exec(self, conn: Any, cursor: Any, statement: str, params: Any, *args: Any) -> Any:
            if not get_current_span().get_span_context().is_valid:
                return statement, params
            return super()._before_cur_exec(conn, cursor, statement, params, *args)

    tracer = _provider.get_tracer("opentelemetry.instrumentation.sqlalchemy", __version__)
    usage = NoOpMeterProvider().get_meter("comptoir").create_up_down_counter("db.client.connections.usage")
    InSpans(tracer, sync_engine, usage)


@contextmanager
def client_span(method: str, url: str, headers: dict[str, str]) -> Iterator[dict[str, Any]]:
    """A client span around one outgoing request of the callback client, while tracing is
    on: `traceparent` (and `tracestate`) of that span are added to `headers`; the caller sets
    `status` in the dict yielded once it has the answer. Does nothing while tracing is off."""
    answer: dict[str, Any] = {}
    if _tracer is None:
        yield answer
        return
    from opentelemetry.propagate import inject
    from opentelemetry.trace import SpanKind, Status, StatusCode

    attributes = {"http.request.method": method, "url.full": url_without_credentials(url)}
    with _tracer.start_as_current_span(method, kind=SpanKind.CLIENT, attributes=attributes) as span:
        inject(headers)
        yield answer
        status = answer.get("status")
        if status is not None:
            span.set_attribute("http.response.status_code", status)
            if status >= 500:
                span.set_status(Status(StatusCode.ERROR))


def url_without_credentials(url: str) -> str:
    """A URL as a span may show it: no user or password."""
    from yarl import URL

    try:
        parsed = URL(url)
    except ValueError:
        return ""
    return str(parsed.with_user(None)) if parsed.user is not None else url


def traced_statements(system: str, call: Callable[..., Any], sql_of: Callable[..., str]) -> Callable[..., Any]:
    """`call` (an async function running one statement) with a client span around it named
    after the statement's first word, when it runs inside a span (as `instrument_engine`);
    `call` itself while tracing is off."""
    if _tracer is None:
        return call
    from opentelemetry.trace import SpanKind, get_current_span

    tracer = _tracer

    async def traced(*args: Any, **kwargs: Any) -> Any:
        if not get_current_span().get_span_context().is_valid:
            return await call(*args, **kwargs)
        sql = sql_of(*args, **kwargs)
        name = sql.lstrip().split(None, 1)[0].upper() if sql.strip() else system
        attributes = {"db.system.name": system, "db.query.text": sql}
        with tracer.start_as_current_span(name, kind=SpanKind.CLIENT, attributes=attributes):
            return await call(*args, **kwargs)

    return traced


def traceparent() -> str | None:
    """The W3C `traceparent` of the current span (what an outbox row keeps); None while
    tracing is off or outside any span."""
    if _provider is None:
        return None
    from opentelemetry.trace import get_current_span

    context = get_current_span().get_span_context()
    if not context.is_valid:
        return None
    return f"00-{context.trace_id:032x}-{context.span_id:016x}-{int(context.trace_flags):02x}"


@contextmanager
def continued(traceparent: str | None, name: str, attributes: Mapping[str, Any]) -> Iterator[None]:
    """A span for work done later on behalf of a recorded trace (a delivery): a child of
    `traceparent` when it is one `traceparent()` wrote, a new trace otherwise."""
    if _tracer is None:
        yield
        return
    from opentelemetry.context import Context
    from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, TraceFlags, set_span_in_context

    parent = Context()  # a new trace, whatever span the caller is in
    if traceparent is not None and TRACEPARENT.fullmatch(traceparent):
        _version, trace_id, span_id, flags = traceparent.split("-")
        flags_set = TraceFlags(int(flags, 16))
        remote = SpanContext(int(trace_id, 16), int(span_id, 16), is_remote=True, trace_flags=flags_set)
        parent = set_span_in_context(NonRecordingSpan(remote))
    with _tracer.start_as_current_span(name, context=parent, kind=SpanKind.CONSUMER, attributes=dict(attributes)):
        yield
